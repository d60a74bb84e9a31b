"""Facts about a body's syntax that depend on what the built-ins do: whether a loop's
term is independent of the accumulators, whether a lambda body is elementwise, whether a
call goes into Python."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.syntax_facts import PRELUDE_MATH, walk
from shapescript.check.bodies import builtin_rules, chains
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext


def independent_term(term: ast.Expr, index: str, accumulators: set[str]) -> bool:
    """A term that reads no accumulator, uses the loop index only as `x[i]`, and computes."""
    allowed_index_spans = set()
    for node in walk(term):
        if isinstance(node, ast.Index) and len(node.items) == 1:
            item = node.items[0]
            if isinstance(item, ast.Name) and item.name == index:
                allowed_index_spans.add(item.span)
    for node in walk(term):
        if isinstance(node, ast.Name):
            if node.name in accumulators:
                return False
            if node.name == index and node.span not in allowed_index_spans:
                return False
        if isinstance(node, ast.Call) and (
            (isinstance(node.callee, ast.Name) and node.callee.name in chains.EFFECTFUL)
            or any(arg.mut for arg in node.args)
        ):
            return False
    return True


def python_call(checker: BodyContext, member: ast.Member) -> bool:
    root = member
    while isinstance(root, ast.Member):
        root = root.target
    return (
        isinstance(root, ast.Name)
        and root.name in checker.scope.python_modules
        and (root.name not in checker.env.values)
    )


_ELEMENTWISE_CALLS = None


def elementwise_body(expr: ast.Expr) -> bool:
    """Whether a lambda body is made only of elementwise parts (so no vmap is needed)."""
    global _ELEMENTWISE_CALLS
    if _ELEMENTWISE_CALLS is None:
        _ELEMENTWISE_CALLS = builtin_rules.ELEMENTWISE | PRELUDE_MATH
    if isinstance(expr, ast.Name | ast.IntLit | ast.FloatLit | ast.BoolLit | ast.InfLit):
        return True
    if isinstance(expr, ast.Binary):
        return expr.op != "@" and elementwise_body(expr.left) and elementwise_body(expr.right)
    if isinstance(expr, ast.Unary):
        return elementwise_body(expr.operand)
    if isinstance(expr, ast.Cast):
        return expr.kind == "to" and elementwise_body(expr.operand)
    if isinstance(expr, ast.Index):
        return (
            isinstance(expr.target, ast.Name)
            and len(expr.items) == 1
            and isinstance(expr.items[0], ast.Name)
        )
    if isinstance(expr, ast.Call):
        return (
            isinstance(expr.callee, ast.Name)
            and expr.callee.name in _ELEMENTWISE_CALLS
            and all(
                not isinstance(arg.value, ast.Pattern) and elementwise_body(arg.value)
                for arg in expr.args
            )
        )
    return False
