"""`textDocument/foldingRange`: the parts of a file an editor may fold.

Declarations with a block (function bodies, models, data and logs records), the blocks of
`for` and `if`/`else`, runs of comment lines (doc comments and plain ones apart), runs of
import lines, and brackets whose contents span lines (calls, signatures, shapes). Blocks
come from the syntax tree, whose statements are followed with an explicit stack; comments
and brackets from one scan of the text, so no input depth reaches a recursion limit.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from lsprotocol import types

from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript_lsp.positions import line_index

#: Comments and strings (whose brackets don't count), and brackets.
_BRACKET_SCAN = re.compile(r'\#[^\n]*|"[^"\n]*"?|[()\[\]]')
#: A line that holds only a comment.
_COMMENT_LINE = re.compile(r"^[ \t]*(\#\#?)[^\n]*$", re.MULTILINE)
_BLOCK_ITEMS = (ast.FnDecl, ast.ModelDecl, ast.DataDecl, ast.LogsDecl)
_IMPORT_ITEMS = (ast.ImportDecl, ast.ImportPythonDecl)

FoldKind = types.FoldingRangeKind


def folding_ranges(checked: Checked) -> list[types.FoldingRange]:
    """The file's folding ranges, by start line (one per start and end line)."""
    text = checked.source.text
    starts = line_index(text).starts

    def line(offset: int) -> int:
        return bisect.bisect_right(starts, offset) - 1

    found: dict[tuple[int, int], str | None] = {}

    def add(first: int, last: int, kind: str | None = None) -> None:
        if last > first:
            found.setdefault((first, last), kind)

    _blocks(checked, text, line, add)
    _comments(text, line, add)
    _brackets(text, starts, line, add)
    return [
        types.FoldingRange(start_line=first, end_line=last, kind=kind)
        for (first, last), kind in sorted(found.items())
    ]


def _last_line(text: str, start: int, end: int, line: Callable[[int], int]) -> int:
    """The line of the last visible character in [start, end)."""
    while end > start and text[end - 1] in " \t\r\n\f":
        end -= 1
    return line(max(start, end - 1))


def _blocks(checked: Checked, text: str, line, add) -> None:
    imports: list[int] = []
    for item in checked.items:
        node, base = item.item, item.base
        first = line(base + node.span.start)
        if isinstance(node, _IMPORT_ITEMS):
            if imports and first > imports[-1] + 1:
                add(imports[0], imports[-1], FoldKind.Imports)
                imports = []
            imports.append(first)
            continue
        if not isinstance(node, _BLOCK_ITEMS):
            continue
        add(first, _last_line(text, base + node.span.start, base + node.span.end, line))
        if isinstance(node, ast.FnDecl) and node.body:
            _statement_blocks(node.body, base, text, line, add)
    if imports:
        add(imports[0], imports[-1], FoldKind.Imports)


def _statement_blocks(body: list, base: int, text: str, line, add) -> None:
    """The blocks of `for` and `if`/`else` inside a function body, on an explicit stack."""
    stack = [body]
    while stack:
        for statement in stack.pop():
            if isinstance(statement, ast.For):
                _body(statement.span.start, statement.body, base, text, line, add)
                stack.append(statement.body)
            elif isinstance(statement, ast.If):
                _body(statement.span.start, statement.then_body, base, text, line, add)
                stack.append(statement.then_body)
                if statement.else_body:
                    header = (statement.else_span or statement.else_body[0].span).start
                    _body(header, statement.else_body, base, text, line, add)
                    stack.append(statement.else_body)


def _body(header: int, body: list, base: int, text: str, line, add) -> None:
    if not body:
        return
    last = body[-1].span
    add(line(base + header), _last_line(text, base + last.start, base + last.end, line))


def _comments(text: str, line, add) -> None:
    """Runs of two or more comment lines; a run of doc comments (`##`) is one of its own."""
    run: list[int] = []
    run_kind = ""
    for match in _COMMENT_LINE.finditer(text):
        number = line(match.start())
        kind = match.group(1)
        if run and (number != run[-1] + 1 or kind != run_kind):
            add(run[0], run[-1], FoldKind.Comment)
            run = []
        run.append(number)
        run_kind = kind
    if run:
        add(run[0], run[-1], FoldKind.Comment)


def _brackets(text: str, starts: list[int], line, add) -> None:
    """Brackets whose contents span lines: from the opener's line to the line before the
    closer when the closer starts its line (so it stays in sight), else the closer's."""
    openers: list[int] = []
    for match in _BRACKET_SCAN.finditer(text):
        char = match.group()
        if char in "([":
            openers.append(match.start())
        elif char in ")]" and openers:
            opened = openers.pop()
            first, last = line(opened), line(match.start())
            if last == first:
                continue
            if not text[starts[last] : match.start()].strip():
                last -= 1
            add(first, last)
