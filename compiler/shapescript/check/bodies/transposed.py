"""A weight written transposed: on the E0401 of `x @ w` where w's last two axes, swapped,
would fit, the help "did you mean `[D C]`?" and the edit that swaps them where w's shape
is written (a field of a model of this file, or a parameter of the function)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.solver import sizes_equal
from shapescript.check.algebra.types import ModelType, TensorType, format_shape
from shapescript.diagnostics.diagnostic import Edit, Fix
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext


def transposed_weight(
    checker: BodyContext, left: TensorType, right: TensorType, right_expr: ast.Expr | None
) -> tuple[str | None, list[Fix]]:
    """The help and fixes for `left @ right` whose contracted axes differ, when the right
    operand's last axis is the one that fits; (None, []) otherwise."""
    lhs, rhs = left.axes or (), right.axes or ()
    if len(lhs) < 1 or len(rhs) < 2:
        return None, []
    dims = checker.scope.dim_values
    if not sizes_equal(lhs[-1].size, rhs[-1].size, dims):
        return None, []
    shown = format_shape((*rhs[:-2], rhs[-1], rhs[-2]))
    return f"did you mean `{shown}`?", _swap_where_written(checker, right_expr, len(rhs), shown)


def _swap_where_written(
    checker: BodyContext, expr: ast.Expr | None, rank: int, shown: str
) -> list[Fix]:
    indexed = 0
    while isinstance(expr, ast.Index) and all(
        not isinstance(item, ast.Slice | ast.SpacedIndex) for item in expr.items
    ):
        indexed += len(expr.items)
        expr = expr.target
    written = _written_axes(checker, expr)
    if written is None or len(written) != rank + indexed:
        return []
    first, second = (_moved(axis, -checker.base) for axis in written[-2:])
    texts = [checker.text_of(axis) for axis in (first, second)]
    edit = Edit(Span(first.start, second.end), f"{texts[1]} {texts[0]}")
    return [Fix(f"Swap the last two axes: `{shown}`", (edit,))]


def _written_axes(checker: BodyContext, expr: ast.Expr | None) -> list[Span] | None:
    """The absolute spans of the axes where the operand's shape is written, if they are in
    this file: a parameter of the function, or a field of a model declared here."""
    if isinstance(expr, ast.Name):
        decl = checker.decl
        for param in getattr(decl, "params", ()):
            if param.name == expr.name and param.type is not None and param.type.shape:
                return [_moved(axis.span, checker.base) for axis in param.type.shape.axes]
        return None
    if not isinstance(expr, ast.Member) or not isinstance(expr.target, ast.Name):
        return None
    owner = checker.env.values.get(expr.target.name)
    model = owner[0] if owner is not None else None
    if not isinstance(model, ModelType):
        return None
    decl = checker.scope.models.get(model.name)
    info = checker.scope.model_infos.get(model.name)
    if decl is None or info is None or expr.name not in info.fields:
        return None
    field = next((f for f in decl.fields if f.name == expr.name), None)
    if field is None or field.type is None or field.type.shape is None:
        return None
    base = info.fields[expr.name].span.start - field.name_span.start
    return [_moved(axis.span, base) for axis in field.type.shape.axes]


def _moved(span: Span, offset: int) -> Span:
    return Span(span.start + offset, span.end + offset)
