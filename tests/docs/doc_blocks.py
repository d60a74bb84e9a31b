"""The ```shapescript code blocks of the docs, their marks, and what the checker says of one.

A block's mark is an HTML comment on the line right before its fence (GitHub and the site
show neither): `<!-- shapescript: expect E0301 E0302 -->` (the block yields exactly these
codes), `<!-- shapescript: run NAME -->` (the block is `NAME.ss`, and the ```python block
after it is run beside it), `<!-- shapescript: fragment REASON -->` (not a whole program;
the reason says why). A block with no mark must check with no diagnostic at all. The rules
are in docs/contributing-docs.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from shapescript.analysis import check
from shapescript.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parents[2]

_BLOCK = re.compile(r"^```shapescript\n(.*?)^```", re.MULTILINE | re.DOTALL)
_FENCE = re.compile(r"^( *)(`{3,}|~{3,})([^\n`]*)$")
_MARK = re.compile(r"^<!--\s*shapescript:\s*(\w+)\s*(.*?)\s*-->\s*$")
MARKS = ("expect", "run", "fragment")


@dataclass(frozen=True)
class DocBlock:
    """One fenced block of a Markdown file: where it starts, its language, text and mark."""

    path: Path
    line: int
    language: str
    text: str
    mark: str = ""
    argument: str = ""

    @property
    def where(self) -> str:
        shown = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{shown.as_posix()}:{self.line}"


def doc_pages() -> list[Path]:
    """README.md and every Markdown page under docs/, the site's and GitHub's."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def fenced_blocks(path: Path) -> list[DocBlock]:
    """Every fenced block of a page, in order, with the mark on the line before it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[DocBlock] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence, info = opening.groups()
        end = index + 1
        while end < len(lines) and not _closes(lines[end], fence):
            end += 1
        mark = _MARK.match(lines[index - 1]) if index > 0 else None
        language = info.strip().split(" ")[0] if info.strip() else ""
        text = "".join(_unindent(line, len(indent)) + "\n" for line in lines[index + 1 : end])
        blocks.append(
            DocBlock(
                path,
                index + 1,
                language,
                text,
                mark.group(1) if mark else "",
                mark.group(2) if mark else "",
            )
        )
        index = end + 1
    return blocks


def _closes(line: str, fence: str) -> bool:
    """Whether `line` closes a block opened with `fence` (as long or longer, nothing else)."""
    stripped = line.strip()
    return stripped.startswith(fence) and set(stripped) == {fence[0]}


def _unindent(line: str, width: int) -> str:
    """`line` without the indentation of its block's fence (up to `width` spaces)."""
    spaces = len(line) - len(line.lstrip(" "))
    return line[min(spaces, width) :]


def shapescript_blocks(markdown: str) -> list[str]:
    """The text of each ```shapescript block that starts a line, in order."""
    return _BLOCK.findall(markdown)


def codes_of(text: str, name: str) -> list[str]:
    """The codes of every diagnostic (errors, warnings, hints) the checker reports, sorted."""
    checked = check(SourceFile.from_text(name, text))
    return sorted({diagnostic.code for diagnostic in checked.diagnostics})


def messages_of(text: str, name: str) -> list[str]:
    """`CODE line:column: message` for each diagnostic the checker reports in `text`."""
    source = SourceFile.from_text(name, text)
    checked = check(source)
    return [
        f"{diagnostic.code} {diagnostic.span.start}: {diagnostic.message}"
        for diagnostic in checked.diagnostics
    ]


def errors_of(text: str, name: str) -> list[str]:
    """`CODE at offset: message` for each error the checker reports in `text`."""
    checked = check(SourceFile.from_text(name, text))
    return [f"{error.code} at {error.span.start}: {error.message}" for error in checked.errors]


def page(root: Path, name: str) -> str:
    return (root / "docs" / name).read_text(encoding="utf-8")
