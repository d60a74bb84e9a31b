"""A notebook cell checked in its notebook, for editors: the cell's text first, at its own
offsets, then the earlier `%%shapescript` cells; the latest declaration of each name,
and every statement outside a fn, earlier cells' first, as the body of one function.

Names the notebook's Python cells bind before the cell are Python values.
"""

from __future__ import annotations

import ast as python_ast
from itertools import repeat

from shapescript.check.program import Checked
from shapescript.notebook.combine import CELL_FN
from shapescript.notebook.python_names import PYTHON_NAMES
from shapescript.syntax import ast
from shapescript.syntax.parser import ParseResult, _parse_chunk
from shapescript.syntax.source import SourceFile, Span

MAGIC = "%%shapescript"


def is_shapescript_cell(text: str) -> bool:
    return text.lstrip().startswith(MAGIC)


def python_names(text: str) -> set[str]:
    """The names a Python cell binds at its top level (magics and shell lines left out)."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = python_ast.parse("\n".join(lines))
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, python_ast.Import | python_ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, python_ast.FunctionDef | python_ast.ClassDef):
            names.add(node.name)
        else:
            for part in python_ast.walk(node):
                if isinstance(part, python_ast.Name) and isinstance(part.ctx, python_ast.Store):
                    names.add(part.id)
    return names


def _key(item: ast.Item, text: str) -> tuple[str, str]:
    name = getattr(item, "name", None)
    return ("name", name) if isinstance(name, str) else ("text", text)


def cell_program(path: str, cell: str, earlier: list[str]) -> tuple[ParseResult, set[str]]:
    """The parse of `cell` within the notebook whose cells before it are `earlier`, and
    the names the Python cells among them bind."""
    pieces = [cell if cell.endswith("\n") else cell + "\n"]
    regions = [(0, len(pieces[0]))]
    python: set[str] = set()
    offset = len(pieces[0])
    for text in earlier:
        if not is_shapescript_cell(text):
            python |= python_names(text)
            continue
        body = text.split("\n", 1)[1] if "\n" in text else ""
        body = "\n" + body + ("" if body.endswith("\n") else "\n")
        pieces.append(body)
        regions.append((offset, offset + len(body)))
        offset += len(body)
    full = "".join(pieces)
    chunk = _parse_chunk(path, full, True)
    own = regions[0][1]

    def region_of(item: ast.Item) -> int:
        for number, (start, end) in enumerate(regions):
            if start <= item.span.start < end:
                return number
        return 0

    by_key: dict[tuple[str, str], tuple[int, list[ast.Item]]] = {}
    statements: list[tuple[int, int, ast.Stmt]] = []
    for item in chunk.items:
        number = region_of(item)
        if isinstance(item, ast.StmtItem):
            statements.append(
                (0 if number == 0 else -len(regions) + number, item.span.start, item.stmt)
            )
            continue
        if isinstance(item, ast.ErrorItem) and number:
            continue
        key = _key(item, full[item.span.start : item.span.end])
        rank = len(regions) if number == 0 else number
        found = by_key.get(key)
        if found is None or found[0] < rank:
            by_key[key] = (rank, [item])
        elif found[0] == rank:
            found[1].append(item)
    items: list[ast.Item] = [item for _, kept in by_key.values() for item in kept]
    items.sort(key=lambda item: item.span.start)
    if statements:
        statements.sort(key=lambda entry: (entry[0], entry[1]))
        body = [stmt for _, _, stmt in statements]
        start = min(stmt.span.start for stmt in body)
        end = max(stmt.span.end for stmt in body)
        items.append(
            ast.FnDecl(CELL_FN, Span(start, start), [], None, body, None, Span(start, end))
        )
    module = ast.Module(items, Span(0, len(full)), True, [0] * len(items))
    diagnostics = [diag for diag in chunk.diagnostics if diag.span.start < own]
    source = SourceFile(path, full)
    result = ParseResult(module, diagnostics, source, {}, list(zip(repeat(0), chunk.comments)))
    return result, python


def check_cell(path: str, cell: str, earlier: list[str]) -> Checked:
    """The cell's analysis: diagnostics only in the cell, offsets the cell's own."""
    from shapescript.check.checker import check_parsed

    parsed, python = cell_program(path, cell, earlier)
    names = frozenset(python) - {getattr(item, "name", "") for item in parsed.module.items}
    token = PYTHON_NAMES.set(names)
    try:
        checked = check_parsed(parsed)
    finally:
        PYTHON_NAMES.reset(token)
    own = len(cell) + (0 if cell.endswith("\n") else 1)
    checked.diagnostics = [diag for diag in checked.diagnostics if diag.span.start < own]
    checked.notebook_names = _notebook_names(checked, own, path, names)
    return checked


def _notebook_names(checked: Checked, own: int, path: str, python: frozenset[str]):
    """What the cell sees wherever the cursor is: the values earlier cells' statements
    bound (after the cell's own text in the program), then the Python variables."""
    from shapescript.check.declarations.symbols import Reference, Symbol

    found = {}
    for facts in checked.items:
        if getattr(facts.item, "name", None) != CELL_FN or facts.body is None:
            continue
        for entry in facts.body.facts.entries:
            if entry.symbol.kind == "param" or facts.base + entry.visible_from < own:
                continue
            symbol = checked._resolve(Reference(entry.scope, entry.symbol), facts.base)
            if symbol is not None:
                found.setdefault(entry.name, (symbol, entry.type))
    for name in sorted(python):
        symbol = Symbol(name, "python", Span(0, 0), path, "a Python variable of the notebook")
        found.setdefault(name, (symbol, None))
    return found


def earlier_line(cell: str, earlier: list[str], line: int) -> tuple[int, int] | None:
    """For a line (from 0) of the program `cell_program` made, the earlier cell it is in
    (its index in `earlier`) and its line there; None for a line of `cell` itself."""
    start = (cell if cell.endswith("\n") else cell + "\n").count("\n")
    if line < start:
        return None
    for index, text in enumerate(earlier):
        if not is_shapescript_cell(text):
            continue
        rest = text.split("\n", 1)[1] if "\n" in text else ""
        size = 1 + (rest if rest.endswith("\n") else rest + "\n").count("\n")
        if line < start + size:
            return index, line - start
        start += size
    return None
