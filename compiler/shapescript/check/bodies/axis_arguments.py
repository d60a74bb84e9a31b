"""The help for an argument given by position that lands on a library function's axis
parameter, as the weight does in `layer_norm(x, ln.weight, ln.bias)`."""

from __future__ import annotations

from shapescript.check.algebra.types import TensorType
from shapescript.check.bodies.env import Arg
from shapescript.check.declarations.signatures import ParamSig, Signature
from shapescript.check.declarations.stub_signatures import one_line
from shapescript.syntax import ast

_LIBRARY = ("prelude", "nn")


def positional_axis_help(
    signature: Signature, param: ParamSig, value: Arg, prelude_symbols, values
) -> str | None:
    """The signature, and for a tensor which parameter the axis is and how to pass the
    tensor; None unless a library function's axis parameter got this argument by position.

    `prelude_symbols` are the stubs' symbols by name, `values` the names in scope."""
    if value.name is not None or signature.origin not in _LIBRARY:
        return None
    symbol = prelude_symbols.get(signature.name)
    if symbol is None:
        return None
    shown = f"the signature is `{one_line(symbol.detail)}`"
    tensor_param = _next_tensor_param(signature, param)
    if tensor_param is None or not _looks_like_a_tensor(value, values):
        return shown
    position = _ordinal(signature.params.index(param) + 1)
    return (
        f"`{param.name}` is the {position} parameter; pass the {tensor_param} as "
        f"`{tensor_param}=` ({shown})"
    )


def _next_tensor_param(signature: Signature, param: ParamSig) -> str | None:
    """The first tensor parameter after `param`: what a tensor given there was meant for."""
    after = signature.params[signature.params.index(param) + 1 :]
    return next((p.name for p in after if isinstance(p.type, TensorType)), None)


def _looks_like_a_tensor(value: Arg, values) -> bool:
    """A field read, or the name of a tensor in scope."""
    expr = value.expr
    if isinstance(expr, ast.Member):
        return True
    if isinstance(expr, ast.Name) and expr.name in values:
        return isinstance(values[expr.name][0], TensorType)
    return isinstance(value.type, TensorType)


def _ordinal(number: int) -> str:
    """`1st`, `2nd`, `3rd`, `4th`, ..., `11th`, `21st`."""
    if number % 100 in (11, 12, 13):
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"
