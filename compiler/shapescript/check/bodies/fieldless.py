"""Field reads on values that have no fields: tensors, host scalars, strings, functions
and the several results of split, topk or value_and_grad."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.types import (
    FunctionType,
    HostType,
    SeveralType,
    StringType,
    TensorType,
    Type,
    format_type,
)
from shapescript.check.bodies import builtin_rules
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext

FIELDLESS = TensorType | HostType | StringType | FunctionType | SeveralType

_HELP = {
    TensorType: "a tensor has no fields or methods: its sizes are its axis names, usable "
    "as ints (`n`), and operations take it as an argument, as `sum(x, over=n)` or `x |> f`",
    HostType: "a host scalar has no fields or methods: pass it to a function instead",
    StringType: "a string has no fields or methods",
    FunctionType: "call the function, or pass it by name to a stage, as `x |> f`",
    SeveralType: "name the results first, as `a, b = ...`, then use each name",
}


def report_no_fields(checker: BodyContext, node: ast.Member, target: Type) -> bool:
    """E0301 at `.name` when `target` has no fields at all; False for other targets."""
    if not isinstance(target, FIELDLESS):
        return False
    checker.reporter.report(
        "E0301",
        f"{_value_text(node.target, target)} has no fields, so `.{node.name}` names nothing",
        node.name_span,
        "no such field",
        help=_function_help(checker, node) or _HELP[type(target)],
    )
    return True


def _function_help(checker: BodyContext, node: ast.Member) -> str | None:
    """For `x.sum`, where `sum` is a function: how to call it with the value."""
    name = node.name
    symbol = checker.scope.symbols.get(name)
    is_function = (
        (symbol is not None and symbol.kind in ("fn", "extern"))
        or name in builtin_rules.KNOWN
        or name in checker.program.prelude.signatures
    )
    if not is_function:
        return None
    value = node.target.name if isinstance(node.target, ast.Name) else "x"
    return (
        f"`{name}` is a function, not a method: pass the value to it, as `{name}({value})` "
        f"or `{value} |> {name}`"
    )


def _value_text(expr: ast.Expr, target: Type) -> str:
    """`x` (a tensor [n]), or the kind of value alone when the target isn't a name."""
    kind = _kind(target)
    described = f"{kind} {format_type(target)}" if isinstance(target, TensorType) else kind
    if isinstance(expr, ast.Name):
        return f"`{expr.name}` ({described})"
    return f"this value ({described})"


def _kind(target: Type) -> str:
    if isinstance(target, TensorType):
        return "a tensor"
    if isinstance(target, HostType):
        return f"an {target.kind}" if target.kind == "int" else f"a {target.kind}"
    if isinstance(target, StringType):
        return "a string"
    if isinstance(target, FunctionType):
        return f"the function `{target.name}`"
    return "the several results of one call, before they are named"
