"""The ```shapescript code blocks of a docs page, and what the checker says of one."""

from __future__ import annotations

import re
from pathlib import Path

from shapescript.analysis import check
from shapescript.syntax.source import SourceFile

_BLOCK = re.compile(r"^```shapescript\n(.*?)^```", re.MULTILINE | re.DOTALL)


def shapescript_blocks(markdown: str) -> list[str]:
    """The text of each ```shapescript block that starts a line, in order."""
    return _BLOCK.findall(markdown)


def errors_of(text: str, name: str) -> list[str]:
    """`CODE at offset: message` for each error the checker reports in `text`."""
    checked = check(SourceFile.from_text(name, text))
    return [f"{error.code} at {error.span.start}: {error.message}" for error in checked.errors]


def page(root: Path, name: str) -> str:
    return (root / "docs" / name).read_text(encoding="utf-8")
