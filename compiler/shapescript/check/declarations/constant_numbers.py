"""Constant numbers: an initializer's arguments, worked out when the file is checked.

An argument may use numbers, `true` and `false`, dims with a value, unary minus,
`+ - * /`, `sqrt(x)` and `pow(x, y)`, as `normal(std=0.02 / sqrt(2 * L))`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from shapescript.check.algebra.sizes import Poly
from shapescript.syntax import ast
from shapescript.syntax.source import Span

Number = int | float | bool

#: What an argument may use, for the message of E0903.
ALLOWED = (
    "numbers, dims, unary -, + - * /, sqrt(x) and pow(x, y), as in `normal(std=0.02 / sqrt(2 * L))`"
)

#: The functions of numbers an argument may call, with how many arguments each takes.
_FUNCTIONS = {"sqrt": 1, "pow": 2}


def constant_number(
    expr: ast.Expr,
    dim_values: Mapping[str, Poly],
    on_dim: Callable[[str, Span], None],
) -> Number | None:
    """The value of a constant expression, or None where it isn't one (or has no real
    value: a division by zero, the square root of a negative number); `on_dim` hears of
    each dim it reads."""
    if isinstance(expr, ast.BoolLit | ast.IntLit | ast.FloatLit):
        return expr.value
    if isinstance(expr, ast.Name):
        value = dim_values.get(expr.name)
        if value is None or value.value is None:
            return None
        on_dim(expr.name, expr.span)
        return int(value.value)
    if isinstance(expr, ast.Unary) and expr.op == "-":
        inner = _arithmetic(constant_number(expr.operand, dim_values, on_dim))
        return -inner if inner is not None else None
    if isinstance(expr, ast.Binary) and expr.op in ("+", "-", "*", "/"):
        left = _arithmetic(constant_number(expr.left, dim_values, on_dim))
        right = _arithmetic(constant_number(expr.right, dim_values, on_dim))
        if left is None or right is None:
            return None
        return _binary(expr.op, left, right)
    if isinstance(expr, ast.Call):
        return _call(expr, dim_values, on_dim)
    return None


def _arithmetic(value: Number | None) -> int | float | None:
    """A number arithmetic may use: not a bool."""
    return None if value is None or isinstance(value, bool) else value


def _binary(op: str, left: int | float, right: int | float) -> int | float | None:
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    return left / right if right != 0 else None


def _call(
    expr: ast.Call, dim_values: Mapping[str, Poly], on_dim: Callable[[str, Span], None]
) -> float | None:
    if not isinstance(expr.callee, ast.Name) or expr.callee.name not in _FUNCTIONS:
        return None
    if len(expr.args) != _FUNCTIONS[expr.callee.name] or any(arg.name for arg in expr.args):
        return None
    values = [_arithmetic(constant_number(arg.value, dim_values, on_dim)) for arg in expr.args]
    if any(value is None for value in values):
        return None
    if expr.callee.name == "sqrt":
        (value,) = values
        return math.sqrt(value) if value >= 0 else None
    base, exponent = values
    try:
        result = math.pow(base, exponent)
    except (ValueError, OverflowError, ZeroDivisionError):
        return None
    return result if math.isfinite(result) else None
