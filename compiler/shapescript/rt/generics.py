"""Calls from Python of overloaded and generic ShapeScript functions.

ShapeScript code calls an overload (`_ss_forward__Mlp`) or a generic function's instance
(`_ss_fit__Mlp__Digit`) directly. Python calls the plain name, which compiled code
defines as a call of one of these two, with a table of which function is for which model
class.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Table = tuple[tuple[type, Callable[..., Any]], ...]
InstanceTable = tuple[tuple[tuple[tuple[int, str, type], ...], Callable[..., Any]], ...]


def call_overload(
    name: str, table: Table, first_names: tuple[str, ...], args: tuple, kwargs: dict
) -> Any:
    """Call the overload of `name` whose model is the first argument's class."""
    if args:
        first = args[0]
    else:
        given = [key for key in first_names if key in kwargs]
        if not given:
            raise TypeError(f"{name}() takes a model first, and got none")
        first = kwargs[given[0]]
    for cls, function in table:
        if isinstance(first, cls):
            return function(*args, **kwargs)
    models = ", ".join(cls.__name__ for cls, _ in table)
    raise TypeError(
        f"{name}() is chosen by its first argument's model, one of {models}; "
        f"got {type(first).__name__}"
    )


def call_instance(name: str, table: InstanceTable, args: tuple, kwargs: dict) -> Any:
    """Call the instance of the generic function `name` for the classes of its model
    arguments: the first instance whose models they all are."""
    if not table:
        raise TypeError(
            f"{name}() is a generic function that no ShapeScript code calls, so it has no "
            "instances: each ShapeScript call makes one for its types, and Python calls those"
        )
    for checks, function in table:
        if all(
            isinstance(_argument(args, kwargs, position, param), cls)
            for position, param, cls in checks
        ):
            return function(*args, **kwargs)
    given = sorted(
        {
            type(_argument(args, kwargs, position, param)).__name__
            for checks, _ in table
            for position, param, _ in checks
        }
    )
    made = sorted({cls.__name__ for checks, _ in table for _, _, cls in checks})
    raise TypeError(
        f"{name}() has no instance for {', '.join(given) or 'these arguments'}: ShapeScript "
        f"code calls it only with {', '.join(made)}, and each such call makes the instance "
        "Python can call"
    )


_MISSING = object()


def _argument(args: tuple, kwargs: dict, position: int, name: str) -> Any:
    if position < len(args):
        return args[position]
    return kwargs.get(name, _MISSING)
