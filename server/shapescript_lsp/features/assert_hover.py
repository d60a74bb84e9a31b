"""Hover on an `assert`: whether the checker proved it, refuted it, or left it to run time."""

from __future__ import annotations

from shapescript.check.algebra.assertions import PROVED, REFUTED, Verdict
from shapescript.check.declarations.symbols import ItemFacts
from shapescript.syntax import ast
from shapescript.syntax.source import Span


def _asserts(item: ast.Item) -> list[ast.Assert]:
    """The asserts of a top-level item: itself, or those anywhere in a fn's body."""
    if isinstance(item, ast.Assert):
        return [item]
    if not isinstance(item, ast.FnDecl) or not item.body:
        return []
    found: list[ast.Assert] = []
    pending: list[ast.Stmt] = list(item.body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, ast.Assert):
            found.append(stmt)
        elif isinstance(stmt, ast.For):
            pending.extend(stmt.body)
        elif isinstance(stmt, ast.If):
            pending.extend(stmt.then_body)
            pending.extend(stmt.else_body or [])
    return found


def assert_keyword_at(item: ItemFacts | None, offset: int) -> tuple[ast.Assert, Span] | None:
    """The assert whose `assert` keyword is at `offset`, and the keyword's file span."""
    if item is None:
        return None
    relative = offset - item.base
    for stmt in _asserts(item.item):
        keyword = stmt.keyword_span
        if keyword.start <= relative <= keyword.end:
            return stmt, Span(item.base + keyword.start, item.base + keyword.end)
    return None


def verdict_of(item: ItemFacts, stmt: ast.Assert) -> Verdict | None:
    for facts in item.fact_tables():
        found = facts.asserts.get(stmt.span)
        if found is not None:
            return found
    return None


def assert_markdown(verdict: Verdict | None) -> str:
    """What the checker decided, in a sentence or two."""
    if verdict is None:
        return "**assert**: not decided (the function wasn't checked)"
    if verdict.kind == PROVED:
        return (
            "**assert: proved** for every size it can take; it compiles to nothing and its "
            "relations are facts for the statements after it"
        )
    if verdict.kind == REFUTED:
        return f"**assert: fails** ({verdict.detail})"
    return (
        f"**assert: checked at run time**: {verdict.detail}; the compiled function checks it "
        "under the check modes and raises ShapeError naming this line when it doesn't hold"
    )
