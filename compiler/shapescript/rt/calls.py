"""The checks of a call itself: its number of arguments, and its host scalar arguments.

With checks on, a compiled function's parameters without a default get `MISSING` as one,
and extra positional arguments land in `*_ss_more`; the function's first line tests both
(an `is` and a truth test) and only a failing call comes here. Its `__signature__` is set
to the one the `.ss` file writes (`written_signature`), so `inspect` and editors see that.

A host scalar parameter is tested inline with `type(v) is int` and the like; a value of
another type comes here, which accepts the other Python numbers of the right kind (an int
subclass, a numpy integer) and raises for the rest.

A call from one compiled function to another checks nothing: it goes to the callee's
unchecked copy (`codegen.trusted`), which `shown_as` names as the function it copies.
"""

from __future__ import annotations

import inspect
import numbers
from typing import Any

from shapescript.rt.errors import CallError, ShapeError

#: The largest and smallest ints: a host int becomes an i64 when it meets a tensor.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1


class _Missing:
    """The default of a parameter that has none: no argument was given for it."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<no argument>"


MISSING = _Missing()


def written_signature(function: Any) -> inspect.Signature:
    """`function`'s signature as the `.ss` file writes it: without `MISSING` defaults and
    the `*_ss_more` that catches extra arguments."""
    signature = inspect.signature(function)
    parameters = [
        parameter.replace(default=inspect.Parameter.empty)
        if parameter.default is MISSING
        else parameter
        for parameter in signature.parameters.values()
        if parameter.kind is not inspect.Parameter.VAR_POSITIONAL
    ]
    return signature.replace(parameters=parameters)


def shown_as(function: Any, name: str) -> None:
    """Name an unchecked copy of a compiled function as that function, so that its frames
    in a traceback and its messages read as the function's own."""
    function.__code__ = function.__code__.replace(co_name=name, co_qualname=name)
    function.__name__ = function.__qualname__ = name


def _names(names: list[str]) -> str:
    quoted = [f"`{name}`" for name in names]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


def call_error(spec, more: tuple[Any, ...], known: dict[str, Any]) -> None:
    """Raise CallError for a call with arguments missing, or with `more` than it takes."""
    path, line, column, function, params = spec
    if more:
        count = len(params)
        listed = ", ".join(param[0] for param in params)
        raise CallError(
            f"fn {function}({listed}) takes {count} argument{'' if count == 1 else 's'}, "
            f"but {count + len(more)} were given",
            path=path,
            line=line,
            column=column,
            function=function,
        )
    missing = [
        param for param in params if known.get(param[0], known.get(param[0] + "_")) is MISSING
    ]
    if not missing:
        raise AssertionError("a call without missing or extra arguments")
    first = missing[0]
    names = [param[0] for param in missing]
    plural = "s" if len(names) > 1 else ""
    raise CallError(
        f"no argument was given for parameter{plural} {_names(names)}; fn {function} takes "
        + ", ".join(param[0] for param in params),
        path=path,
        line=first[1],
        column=first[2],
        function=function,
        parameter=first[0],
    )


def _described(value: Any) -> str:
    """`the float 2.5`, `a tensor of shape (3,), int64`: what an argument is, for a message."""
    try:
        import torch
    except ImportError:  # pragma: no cover - compiled code always has torch
        torch = None
    if torch is not None and isinstance(value, torch.Tensor):
        dtype = str(value.dtype).removeprefix("torch.")
        return f"a tensor of shape {tuple(value.shape)}, {dtype}"
    text = repr(value)
    if len(text) > 60:
        text = text[:59] + "…"
    return f"the {type(value).__name__} {text}"


def _is_bool(value: Any) -> bool:
    kind = type(value)
    return isinstance(value, bool) or (
        kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")
    )


def host_error(spec, index: int, value: Any, kind: str) -> None:
    """Return if `value` is a Python number of `kind` ("int", "float" or "bool") in range,
    and raise ShapeError naming the parameter if it isn't."""
    path, _line, _column, function, params = spec
    name, line, column = params[index][:3]
    where = {"path": path, "line": line, "column": column, "function": function, "parameter": name}
    tensor = type(value).__module__.startswith("torch")
    if kind == "bool":
        if _is_bool(value):
            return
        hint = ""
    elif _is_bool(value):
        hint = "; a bool isn't a number in ShapeScript"
    elif kind == "int" and isinstance(value, numbers.Integral) and not tensor:
        number = int(value)
        if INT_MIN <= number <= INT_MAX:
            return
        raise ShapeError(
            f"expected an int, got {number}, outside an int's range, -2**63 to 2**63 - 1",
            **where,
        )
    elif kind == "float" and isinstance(value, numbers.Real) and not tensor:
        return
    elif tensor:
        hint = (
            f"; {'an' if kind == 'int' else 'a'} {kind} is read on the host: pass a Python "
            f"{kind}, as t.item() gives (which waits for the device)"
        )
    elif kind == "int" and isinstance(value, numbers.Real):
        hint = "; if a whole number is meant, round it first with round()"
    else:
        hint = ""
    article = "an" if kind == "int" else "a"
    raise ShapeError(f"expected {article} {kind}, got {_described(value)}{hint}", **where)


__all__ = [
    "INT_MAX",
    "INT_MIN",
    "MISSING",
    "call_error",
    "host_error",
    "shown_as",
    "written_signature",
]
