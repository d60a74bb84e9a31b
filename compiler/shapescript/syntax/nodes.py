"""Constructors of the syntax tree's nodes for the parser: `nodes.Name(name, span)` makes
what `ast.Name(name, span)` makes, about half the cost.

Calling a record class goes through the type's call, its `__init__` slot and a fresh
interpreter frame entered from C; a plain function is called within the interpreter's
own loop and sets the fields itself. Each constructor takes its class's `__init__`
parameters, with the same defaults and factories, and is written the first time it is
asked for (as records compile their methods).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shapescript.records import init_parameters
from shapescript.syntax import ast


def maker(cls: type) -> Callable[..., Any]:
    """A function that makes an instance of the (not frozen) record `cls` as calling the
    class would."""
    if cls.__record_frozen__:
        raise TypeError(f"{cls.__name__} is frozen: its fields can't be set one by one")
    names: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    params, values = init_parameters(cls.__record_fields__, names)
    body = [
        f"    self.{item.name} = {value}\n"
        for item, value in zip(cls.__record_fields__, values, strict=True)
    ]
    source = (
        f"def {cls.__name__}({', '.join(params)}):\n"
        "    self = _new(_cls)\n" + "".join(body) + "    return self\n"
    )
    exec(source, names)
    function = names[cls.__name__]
    function.__qualname__ = f"nodes.{cls.__name__}"
    return function


def __getattr__(name: str) -> Callable[..., Any]:
    cls = getattr(ast, name, None)
    if not isinstance(cls, type) or not hasattr(cls, "__record_fields__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    made = globals()[name] = maker(cls)
    return made
