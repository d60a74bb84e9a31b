"""Valid programs from the reference check clean, and their types are the ones it states.

`tests/data/valid/*.ss` must check with no diagnostic at all. `tests/data/types/*.ss` too,
and each `#= TYPE` marker at the end of a line asserts, through the query API, the type of
what that line binds (the first name), of a one-line function's body, or of a `return`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shapescript.check.algebra.types import format_type
from shapescript.check.checker import check_text
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import Span

DATA = Path(__file__).resolve().parent.parent / "data"
VALID = sorted((DATA / "valid").glob("*.ss"))
TYPED = sorted((DATA / "types").glob("*.ss"))
MARKER = re.compile(r"#=\s*(.+?)\s*$")


def _diagnostics(checked: Checked) -> list[str]:
    return [
        f"{checked.source.position(d.span.start).line}: {d.code} {d.message}"
        for d in checked.diagnostics
    ]


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_valid_program_checks_clean(path: Path) -> None:
    checked = check_text(path.read_text(encoding="utf-8"), path.name)
    assert _diagnostics(checked) == []


def _statements(stmts: list[ast.Stmt]):
    for stmt in stmts:
        yield stmt
        if isinstance(stmt, ast.For):
            yield from _statements(stmt.body)
        elif isinstance(stmt, ast.If):
            yield from _statements(stmt.then_body)
            yield from _statements(stmt.else_body or [])


def _marked_span(checked: Checked, line: int) -> Span | None:
    """The (absolute) span whose type a marker on this line asserts."""
    for index, item in enumerate(checked.module.items):
        if not isinstance(item, ast.FnDecl):
            continue
        base = checked.module.base_of(index)

        def absolute(span: Span, base: int = base) -> Span:
            return Span(span.start + base, span.end + base)

        def on_line(span: Span) -> bool:
            return checked.source.position(absolute(span).start).line == line

        if item.expr_body is not None and on_line(item.expr_body.span):
            return absolute(item.expr_body.span)
        for stmt in _statements(item.body or []):
            if not on_line(stmt.span):
                continue
            if isinstance(stmt, ast.Assign):
                return absolute(stmt.targets[0].span)
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                return absolute(stmt.value.span)
            if isinstance(stmt, ast.ExprStmt):
                return absolute(stmt.expr.span)
    return None


@pytest.mark.parametrize("path", TYPED, ids=[p.stem for p in TYPED])
def test_stated_types(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    checked = check_text(text, path.name)
    assert _diagnostics(checked) == []
    markers = [
        (number, match.group(1))
        for number, line in enumerate(text.split("\n"), start=1)
        if (match := MARKER.search(line))
    ]
    assert markers, "a types file needs at least one `#=` marker"
    actual = []
    for line, _ in markers:
        span = _marked_span(checked, line)
        assert span is not None, f"line {line}: nothing to check a type of"
        type_ = checked.type_of(span)
        actual.append((line, format_type(type_) if type_ is not None else None))
    assert actual == markers
