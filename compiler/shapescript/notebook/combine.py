"""One program from a notebook's cells: the declarations of the cells that ran, latest
first, and the new cell's statements as the body of a function whose parameters are the
values earlier cells made, with a map from the program's lines back to the cell's."""

from __future__ import annotations

from shapescript.codegen.trusted import NOTEBOOK_CELL
from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile, Span

#: The function the new cell's statements become.
CELL_FN = NOTEBOOK_CELL
INDENT = "    "


@record
class CellRun:
    """A cell as it ran: its label (`[3]`), its text with the `%%shapescript` line, parsed."""

    label: str
    text: str
    module: ast.Module


@record
class Combined:
    """The program for one cell and where each of its lines came from."""

    text: str
    #: For each line of `text` (from 0): the cell's line (from 0) and how far it was
    #: indented, or None for a line from elsewhere.
    lines: list[tuple[int, int] | None]
    #: The line (from 0) of each parameter, by the value's name.
    param_lines: dict[str, int] = field(default_factory=dict)
    has_statements: bool = False
    #: For each line of `text`: the index in the history of the cell whose declaration
    #: it is, or None.
    owners: list[int | None] = field(default_factory=list)


def item_text(module: ast.Module, index: int, text: str) -> tuple[int, int]:
    """The offsets of the whole lines an item takes."""
    item = module.items[index]
    base = module.base_of(index)
    start = text.rfind("\n", 0, base + item.span.start) + 1
    end = text.find("\n", max(base + item.span.end - 1, start))
    return start, len(text) if end < 0 else end


def _key(item: ast.Item, text: str) -> tuple[str, str]:
    name = getattr(item, "name", None)
    return ("name", name) if isinstance(name, str) else ("text", text.strip())


def _declarations(run: CellRun) -> list[tuple[tuple[str, str], int, int]]:
    found = []
    for index, item in enumerate(run.module.items):
        if isinstance(item, ast.StmtItem | ast.ErrorItem):
            continue
        start, end = item_text(run.module, index, run.text)
        found.append((_key(item, run.text[start:end]), start, end))
    return found


def combine(
    history: list[CellRun],
    cell: CellRun,
    params: list[tuple[str, str]],
    leave_out: frozenset[str] = frozenset(),
) -> Combined:
    """The program that checks `cell` after `history`, with `params` as (name, type text),
    without the earlier cells' declarations of the names in `leave_out`."""
    current = {key for key, _, _ in _declarations(cell)}
    current |= {("name", name) for name in leave_out}
    latest: dict[tuple[str, str], list[str]] = {}
    owner: dict[tuple[str, str], int] = {}
    for number, run in enumerate(history):
        for key, start, end in _declarations(run):
            if owner.get(key) != number:
                latest[key] = []
                owner[key] = number
            latest[key].append(run.text[start:end])
    lines: list[str] = []
    origins: list[tuple[int, int] | None] = []
    owners: list[int | None] = []
    cell_lines = cell.text.split("\n")
    source = SourceFile.from_text("<cell>", cell.text)

    def add(start: int, end: int, indent: str) -> None:
        first = source.position(start).line - 1
        last = source.position(max(end - 1, start)).line - 1
        for number in range(first, last + 1):
            lines.append(indent + cell_lines[number])
            origins.append((number, len(indent)))
            owners.append(None)

    # The cell's devices line comes first, as in a file.
    for index, item in enumerate(cell.module.items):
        if isinstance(item, ast.DevicesDecl):
            add(*item_text(cell.module, index, cell.text), "")
    # Devices lines first, as in a file.
    keys = sorted(latest, key=lambda key: not (key[0] == "text" and key[1].startswith("devices")))
    for key in keys:
        texts = latest[key]
        if key in current:
            continue
        for text in texts:
            for line in text.split("\n"):
                lines.append(line)
                origins.append(None)
                owners.append(owner[key])
    statements = []
    for index, item in enumerate(cell.module.items):
        start, end = item_text(cell.module, index, cell.text)
        if isinstance(item, ast.StmtItem):
            statements.append((start, end))
        elif not isinstance(item, ast.ErrorItem | ast.DevicesDecl):
            add(start, end, "")
    param_lines = {}
    if statements:
        lines.append(f"fn {CELL_FN}(")
        origins.append(None)
        owners.append(None)
        for name, type_text in params:
            param_lines[name] = len(lines)
            lines.append(f"{INDENT}{name}: {type_text},")
            origins.append(None)
            owners.append(None)
        lines.append("):")
        origins.append(None)
        owners.append(None)
        for start, end in statements:
            add(start, end, INDENT)
    return Combined("\n".join(lines) + "\n", origins, param_lines, bool(statements), owners)


def cell_span(combined: Combined, program: SourceFile, cell: SourceFile, span: Span) -> Span | None:
    """`span` of the program as a span of the cell, or None where it isn't the cell's."""
    start = _cell_offset(combined, program, cell, span.start)
    if start is None:
        return None
    end = _cell_offset(combined, program, cell, span.end)
    return Span(start, start if end is None or end < start else end)


def _cell_offset(combined: Combined, program: SourceFile, cell: SourceFile, offset: int):
    position = program.position(offset)
    if position.line - 1 >= len(combined.lines):
        return None
    origin = combined.lines[position.line - 1]
    if origin is None:
        return None
    line, shift = origin
    return cell.offset(line + 1, position.column - shift)


def cell_line(combined: Combined, line: int) -> tuple[int, int] | None:
    """The cell's line (from 1) and indent for the program's line (from 1)."""
    if not 1 <= line <= len(combined.lines):
        return None
    origin = combined.lines[line - 1]
    return None if origin is None else (origin[0] + 1, origin[1])
