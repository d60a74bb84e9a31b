"""Terminal rendering of diagnostics in the rustc style: header, location, source and labels."""

from __future__ import annotations

import unicodedata

from shapescript.diagnostics.diagnostic import Diagnostic, Label, Severity
from shapescript.records import record
from shapescript.shown_paths import shown as shown_path
from shapescript.syntax.source import SourceFile

TAB_WIDTH = 4

_RESET = "\x1b[0m"
_STYLES: dict[str, str] = {
    "error": "\x1b[1;31m",
    "warning": "\x1b[1;33m",
    "hint": "\x1b[1;36m",
    "gutter": "\x1b[1;34m",
    "secondary": "\x1b[1;34m",
    "bold": "\x1b[1m",
}

# A row of output cells: each a character and the style it is drawn in (None for plain).
_Cell = tuple[str, str | None]


@record(frozen=True)
class _Mark:
    """A label placed on one displayed line, in display columns [start, end)."""

    start: int
    end: int
    message: str
    primary: bool

    @property
    def style(self) -> str:
        return "primary" if self.primary else "secondary"


class _Painter:
    """Wraps text in ANSI styles when colour is on, and leaves it alone otherwise."""

    def __init__(self, color: bool, severity: Severity) -> None:
        self.color = color
        self.severity = severity

    def code_for(self, style: str | None) -> str:
        if style == "primary":
            style = self.severity.value
        return _STYLES.get(style, "") if style else ""

    def paint(self, text: str, style: str | None) -> str:
        code = self.code_for(style)
        if not self.color or not code or not text:
            return text
        return f"{code}{text}{_RESET}"

    def cells(self, cells: list[_Cell]) -> str:
        """Render a row of cells, styling runs of equal style and dropping trailing blanks."""
        while cells and cells[-1][0] == " ":
            cells = cells[:-1]
        out: list[str] = []
        run: list[str] = []
        run_style: str | None = None
        for char, style in cells:
            if style != run_style and run:
                out.append(self.paint("".join(run), run_style))
                run = []
            run_style = style
            run.append(char)
        if run:
            out.append(self.paint("".join(run), run_style))
        return "".join(out)


def _invisible(char: str) -> bool:
    """Control and format characters, bidi overrides among them, which are drawn as U+FFFD."""
    return char != "\t" and unicodedata.category(char) in ("Cc", "Cf")


def _char_width(char: str) -> int:
    if char == "\t":
        return TAB_WIDTH
    if _invisible(char):
        return 1
    if unicodedata.combining(char):
        return 0
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 2
    return 1


def _display(char: str) -> str:
    """How one source character is drawn: tabs as spaces, invisible characters as U+FFFD."""
    if char == "\t":
        return " " * TAB_WIDTH
    if _invisible(char):
        return "\ufffd"
    return char


class _Line:
    """One source line prepared for display, with a map from character index to column."""

    def __init__(self, text: str) -> None:
        self.text = "".join(_display(char) for char in text)
        self.columns = [0]
        for char in text:
            self.columns.append(self.columns[-1] + _char_width(char))

    def column(self, index: int) -> int:
        return self.columns[max(0, min(index, len(self.columns) - 1))]


def _place(
    label: Label, primary: bool, source: SourceFile, lines: dict[int, _Line]
) -> tuple[int, _Mark]:
    """Put a label's mark on the line where its span starts; return that line number."""
    start = source.position(label.span.start)
    end = source.position(max(label.span.start, label.span.end))
    if start.line not in lines:
        lines[start.line] = _Line(source.line_text(start.line))
    line = lines[start.line]
    first = line.column(start.column - 1)
    if end.line == start.line:
        last = line.column(end.column - 1)
    else:
        last = line.column(len(line.columns) - 1)
    return start.line, _Mark(first, max(last, first + 1), label.message, primary)


def _underline(marks: list[_Mark]) -> list[_Cell]:
    """Carets under the primary span and dashes under the others; the carets win overlaps."""
    underline: list[_Cell] = [(" ", None)] * max(mark.end for mark in marks)
    for mark in sorted(marks, key=lambda mark: mark.primary):
        char = "^" if mark.primary else "-"
        underline[mark.start : mark.end] = [(char, mark.style)] * (mark.end - mark.start)
    return underline


def _inline(marks: list[_Mark], hidden: list[_Mark], width: int) -> _Mark | None:
    """The label whose text can follow the underline: the rightmost, if nothing is past it."""
    candidates = [mark for mark in marks if mark.message and all(mark is not h for h in hidden)]
    if not candidates:
        return None
    widest = max(candidates, key=lambda mark: (mark.end, mark.start, mark.primary))
    return widest if widest.end == width else None


def _mark_rows(marks: list[_Mark]) -> list[list[_Cell]]:
    """The underline row of a line, then the rows that hang labels off it."""
    marks = sorted(marks, key=lambda mark: (mark.start, mark.end, mark.primary))
    underline = _underline(marks)
    width = len(underline)
    hidden = [
        mark
        for mark in marks
        if not mark.primary and all(cell[0] == "^" for cell in underline[mark.start : mark.end])
    ]
    inline = _inline(marks, hidden, width)
    if inline is not None:
        underline.append((" ", None))
        underline.extend((char, inline.style) for char in inline.message)
    rows = [underline]

    hanging = [mark for mark in marks if mark.message and mark is not inline]
    if not hanging and not hidden:
        return rows
    # A mark hidden under the carets is drawn again on the next row, so that it still shows.
    connector: list[_Cell] = [(" ", None)] * width
    for mark in hanging:
        connector[mark.start] = ("|", mark.style)
    for mark in hidden:
        connector[mark.start : mark.end] = [("-", mark.style)] * (mark.end - mark.start)
    rows.append(connector)
    for index in range(len(hanging) - 1, -1, -1):
        mark = hanging[index]
        row: list[_Cell] = [(" ", None)] * mark.start
        for left in hanging[:index]:
            if left.start < mark.start:
                row[left.start] = ("|", left.style)
        row.extend((char, mark.style) for char in mark.message)
        rows.append(row)
    return rows


def _shown_lines(marked: list[int], source: SourceFile) -> list[int | None]:
    """The line numbers to show, in order, with None where a gap is drawn as `...`."""
    shown: list[int | None] = []
    for number in sorted(marked):
        previous = shown[-1] if shown else None
        if previous is not None and number > previous + 1:
            between = range(previous + 1, number)
            if number == previous + 2 and source.line_text(previous + 1).strip():
                shown.append(previous + 1)
            elif any(source.line_text(gap).strip() for gap in between):
                shown.append(None)
        shown.append(number)
    return shown


def _note_lines(kind: str, text: str, pad: str, painter: _Painter) -> list[str]:
    head = f"{pad} {painter.paint('=', 'gutter')} {painter.paint(kind, 'bold')}: "
    indent = " " * (len(pad) + len(f" = {kind}: "))
    first, *rest = text.split("\n")
    return [f"{head}{first}".rstrip()] + [f"{indent}{more}".rstrip() for more in rest]


def render_diagnostic(
    diag: Diagnostic, source: SourceFile, *, color: bool = False, heading: str | None = None
) -> str:
    """The diagnostic as terminal text (no trailing newline), with ANSI colour if asked.

    `heading` replaces `error[CODE]`, for what has no code, such as a run-time error.
    """
    painter = _Painter(color, diag.severity)
    lines: dict[int, _Line] = {}
    marks: dict[int, list[_Mark]] = {}
    for label, primary in [(diag.primary, True), *((label, False) for label in diag.secondary)]:
        number, mark = _place(label, primary, source, lines)
        marks.setdefault(number, []).append(mark)

    shown = _shown_lines(list(marks), source)
    width = len(str(max(number for number in shown if number is not None)))
    pad = " " * width
    bar = painter.paint("|", "gutter")

    where = source.position(diag.primary.span.start)
    path = shown_path(diag.path or source.path)
    out = [
        painter.paint(heading or f"{diag.severity.value}[{diag.code}]", "primary")
        + painter.paint(f": {diag.message}", "bold"),
        f"{pad}{painter.paint('-->', 'gutter')} {path}:{where.line}:{where.column}",
        f"{pad} {bar}",
    ]
    for number in shown:
        if number is None:
            out.append(painter.paint("...", "gutter"))
            continue
        line = lines.get(number) or _Line(source.line_text(number))
        gutter = painter.paint(f"{number:>{width}} |", "gutter")
        out.append(f"{gutter} {line.text}".rstrip())
        if number in marks:
            rows = _mark_rows(marks[number])
            out.extend(f"{pad} {bar} {painter.cells(row)}".rstrip() for row in rows)

    if diag.notes or diag.help:
        out.append(f"{pad} {bar}")
        for note in diag.notes:
            out.extend(_note_lines("note", note, pad, painter))
        if diag.help:
            out.extend(_note_lines("help", diag.help, pad, painter))
    return "\n".join(out)


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


def render_summary(error_count: int, warning_count: int, hint_count: int, file_count: int) -> str:
    """The closing line of a check, such as `found 2 errors and 1 warning in 3 files`."""
    files = _count(file_count, "file")
    parts = [
        _count(number, word)
        for number, word in (
            (error_count, "error"),
            (warning_count, "warning"),
            (hint_count, "hint"),
        )
        if number
    ]
    if not parts:
        return f"no problems found in {files}"
    listed = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return f"found {listed} in {files}"
