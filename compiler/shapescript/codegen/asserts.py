"""`assert`: nothing for a proved one, else a check that raises ShapeError naming its line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.assertions import PROVED, written_text
from shapescript.check.algebra.types import HostType
from shapescript.codegen.casts import site_constant
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator


def _named_values(gen: FunctionGenerator, condition: ast.Expr) -> list[ast.Name]:
    """The names of host values in the condition, each once, for the failure's message."""
    found: dict[str, ast.Name] = {}
    pending: list[ast.Expr] = [condition]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Name):
            if isinstance(gen.type(node), HostType):
                found.setdefault(node.name, node)
        elif isinstance(node, ast.Binary):
            pending.append(node.right)
            pending.append(node.left)
        elif isinstance(node, ast.Unary):
            pending.append(node.operand)
    return sorted(found.values(), key=lambda name: name.span.start)


def emit_assert(gen: FunctionGenerator, stmt: ast.Assert, indent: int) -> None:
    """Check an assert the checker didn't prove, as the check modes say."""
    verdict = gen.view.assert_verdict(stmt.span)
    mode = gen.context.checks
    if (verdict is not None and verdict.kind == PROVED) or mode == "never":
        return
    origin = gen.origin(stmt.span)
    condition = gen.condition(stmt.condition)
    guard = f"not ({condition})"
    if mode == "debug":
        guard = f"__debug__ and {guard}"
    site = site_constant(gen, stmt)
    names = _named_values(gen, stmt.condition)
    values = ", ".join(f"{name.name!r}: {gen.expr(name)}" for name in names)
    span = stmt.condition.span
    text = written_text(gen.context.source.text, gen.base + span.start, gen.base + span.end)
    fail = "_ss_assert_failed" if gen.context.standalone else "_ss_rt.assert_failed"
    gen.out.add(indent, f"if {guard}:", origin)
    gen.out.add(indent + 1, f"{fail}({text!r}, {{{values}}}, {site})", origin)
