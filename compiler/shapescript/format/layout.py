"""The canonical layout of a file's lines: indentation, spacing, blank lines, long pipes."""

from __future__ import annotations

import bisect

from shapescript.format.spacing import ends_operand, gap
from shapescript.records import field, record
from shapescript.syntax.tokens import DEDENT, EOF, INDENT, NEWLINE, Comment, Token

INDENT_WIDTH = 4
MAX_COLUMNS = 100
#: Top-level declarations that open a block or a body of their own.
_DECLARATION_WORDS = frozenset(
    {"dim", "domain", "fn", "extern", "import", "model", "data", "logs", "devices", "export"}
)


@record
class Line:
    """One output line: code (with maybe a trailing comment), a comment alone, or blank."""

    kind: str
    text: str = ""
    level: int = 0
    #: For code: the first token's text, and whether the line starts a top-level item.
    first: str = ""
    starts_item: bool = False
    opens_block: bool = False
    tokens: list[tuple[str, int]] = field(default_factory=list)
    #: The width of the code, without a trailing comment.
    code_width: int = 0


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset) - 1


def _comment_text(text: str, comment: Comment) -> str:
    """A comment as written; an ordinary one loses its trailing spaces, a `##` doc keeps
    them, since they are part of the doc's text."""
    written = text[comment.span.start : comment.span.end].rstrip("\r")
    return written if comment.is_doc else written.rstrip()


def layout(text: str, tokens: list[Token], comments: list[Comment]) -> list[Line]:
    """The file's lines in the canonical layout, before blank lines are settled."""
    starts = [0] + [index + 1 for index, char in enumerate(text) if char == "\n"]
    by_line: dict[int, list[Token]] = {}
    level = 0
    levels: dict[int, int] = {}
    for token in tokens:
        if token.kind == INDENT:
            level += 1
            continue
        if token.kind == DEDENT:
            level -= 1
            continue
        if token.kind in (NEWLINE, EOF) or token.synthetic:
            continue
        line = _line_of(starts, token.start)
        if line not in by_line:
            by_line[line] = []
            levels[line] = level
        by_line[line].append(token)
    comment_at = {_line_of(starts, comment.span.start): comment for comment in comments}
    lines: list[Line] = []
    depth = 0
    previous: Token | None = None
    before_previous: Token | None = None
    previous_sign = False
    brackets: list[str] = []
    for number in range(len(starts)):
        comment = comment_at.get(number)
        comment_text = _comment_text(text, comment) if comment else ""
        line_tokens = by_line.get(number)
        if not line_tokens:
            lines.append(Line("comment", comment_text) if comment else Line("blank"))
            continue
        first = line_tokens[0]
        continued = bool(brackets) or first.kind == "|>"
        indent = (
            levels[number]
            + (len(brackets) - (first.kind in (")", "]")))
            + (first.kind == "|>" and not brackets)
        )
        pieces: list[str] = []
        placed: list[tuple[str, int]] = []
        width = 0
        for index, token in enumerate(line_tokens):
            sign = token.kind in ("-", "+") and not ends_operand(previous)
            if index:
                had_gap = token.start > line_tokens[index - 1].end
                space = gap(
                    line_tokens[index - 1],
                    token,
                    had_gap,
                    "[" if "[" in brackets else (brackets[-1] if brackets else None),
                    previous_sign,
                    sign,
                )
                pieces.append(space)
                width += len(space)
            placed.append((token.kind if not brackets else "", width))
            pieces.append(token.text)
            width += len(token.text)
            if token.kind == "(" and before_previous is not None and before_previous.kind == "fn":
                brackets.append("sig")
            elif token.kind in ("(", "["):
                brackets.append(token.kind)
            elif token.kind in (")", "]") and brackets:
                brackets.pop()
            before_previous, previous, previous_sign = previous, token, sign
        code = "".join(pieces)
        code_width = len(code)
        if comment is not None:
            code += "  " + comment_text
        depth = len(brackets)
        lines.append(
            Line(
                "code",
                code,
                max(indent, 0),
                first.text,
                starts_item=not continued and levels[number] == 0,
                opens_block=depth == 0 and line_tokens[-1].kind == ":",
                tokens=placed,
                code_width=code_width,
            )
        )
    return lines


def break_long_pipes(lines: list[Line]) -> list[Line]:
    """A line over MAX_COLUMNS with `|>` outside brackets gets one stage per line."""
    out: list[Line] = []
    for line in lines:
        if line.kind != "code" or line.level * INDENT_WIDTH + line.code_width <= MAX_COLUMNS:
            out.append(line)
            continue
        bars = [column for kind, column in line.tokens if kind == "|>"]
        if not bars:
            out.append(line)
            continue
        edges = [0, *bars, len(line.text)]
        parts = [line.text[start:end].strip() for start, end in zip(edges, edges[1:], strict=False)]
        out.append(
            Line(
                "code",
                parts[0],
                line.level,
                line.first,
                line.starts_item,
                line.opens_block,
            )
        )
        level = line.level + (0 if line.first == "|>" else 1)
        for part in parts[1:]:
            out.append(Line("code", part, level, "|>"))
    return out


def _item_kind(line: Line) -> str:
    return line.first if line.first in _DECLARATION_WORDS else "statement"


def settle_blank_lines(lines: list[Line]) -> list[Line]:
    """One blank line at most anywhere, none at a block's start or the file's ends, and
    one between top-level declarations that differ in kind or span several lines."""
    items: list[tuple[int, int]] = []
    for index, line in enumerate(lines):
        if line.kind == "code" and line.starts_item and line.first not in ("else", "|>"):
            items.append((index, index))
    ends = [start for start, _ in items[1:]] + [len(lines)]
    multiline = {}
    for (start, _), end in zip(items, ends, strict=False):
        code = [line for line in lines[start:end] if line.kind == "code"]
        multiline[start] = len(code) > 1
    need_blank: set[int] = set()
    for (previous, _), (current, _) in zip(items, items[1:], strict=False):
        if (
            multiline[previous]
            or multiline[current]
            or _item_kind(lines[previous]) != _item_kind(lines[current])
        ):
            top = current
            while top > 0 and lines[top - 1].kind == "comment":
                top -= 1
            if top > previous:
                need_blank.add(top)
    out: list[Line] = []
    for index, line in enumerate(lines):
        if index in need_blank and out and out[-1].kind != "blank":
            out.append(Line("blank"))
        if line.kind == "blank" and (not out or out[-1].kind == "blank" or out[-1].opens_block):
            continue
        out.append(line)
    while out and out[-1].kind == "blank":
        out.pop()
    return out


def indent_comments(lines: list[Line]) -> None:
    """A comment line takes the indentation of the code line after it."""
    level = 0
    for line in reversed(lines):
        if line.kind == "code":
            level = line.level
        elif line.kind == "comment":
            line.level = level


def render(lines: list[Line]) -> str:
    out = []
    for line in lines:
        if line.kind == "blank":
            out.append("")
        else:
            out.append(" " * (line.level * INDENT_WIDTH) + line.text)
    return "\n".join(out) + "\n" if out else ""
