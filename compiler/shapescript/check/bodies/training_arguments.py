"""The argument rules the training built-ins (and the data and model values) share:
matching arguments to named parameters, and the host-scalar arguments."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.types import (
    HostType,
    PythonType,
    TensorType,
    UnknownType,
    format_type,
)
from shapescript.check.declarations.module_scope import suggestion
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext
    from shapescript.check.bodies.env import Arg


def match_named(
    checker: BodyContext,
    name: str,
    args: list[Arg],
    node: ast.Call,
    params: tuple[str, ...],
    *,
    required: tuple[str, ...] = (),
    keyword: tuple[str, ...] = (),
    positional: tuple[str, ...] = (),
) -> dict[str, Arg] | None:
    """Pair arguments with parameters; those in `keyword` only by name, those in
    `positional` only by position (E0406 otherwise, and for unknown, repeated or missing
    ones)."""
    found: dict[str, Arg] = {}
    open_positions = [param for param in params if param not in keyword]
    position = 0
    for arg in args:
        if arg.name is None:
            if position >= len(open_positions):
                if keyword and position < len(params):
                    message = f"`{name}` takes `{params[len(open_positions)]}` by name"
                else:
                    message = f"`{name}` takes {len(open_positions)} argument(s) by position"
                checker.reporter.report("E0406", message, arg.span, "given by position")
                return None
            found[open_positions[position]] = arg
            position += 1
            continue
        if arg.name not in params:
            checker.reporter.report(
                "E0406",
                f"`{name}` has no parameter `{arg.name}`",
                arg.span,
                "unknown name",
                help=suggestion(arg.name, params),
            )
            return None
        if arg.name in positional:
            checker.reporter.report(
                "E0406",
                f"`{name}` takes `{arg.name}` by position",
                arg.span,
                "given by name",
            )
            return None
        if arg.name in found:
            checker.reporter.report("E0406", f"`{arg.name}` is given twice", arg.span, "again")
            return None
        found[arg.name] = arg
    for param in required:
        if param not in found:
            checker.reporter.report(
                "E0406",
                f"`{name}` is missing its argument `{param}`"
                + (" (by name)" if param in keyword else ""),
                node.span,
                f"no `{param}`",
            )
            return None
    return found


def host_argument(checker: BodyContext, name: str, param: str, arg: Arg, kind: str) -> bool:
    """A host scalar argument: a tensor is E0805, another kind of value E0502."""
    type_ = arg.type
    if isinstance(type_, (UnknownType, PythonType)):
        return True
    if isinstance(type_, TensorType):
        checker.reporter.report(
            "E0805",
            f"`{name}` takes a host {kind} as `{param}`, not the tensor {format_type(type_)}",
            arg.span,
            "a tensor",
            help="compute the number on the host",
        )
        return False
    fits = isinstance(type_, HostType) and (
        type_.kind == kind or (kind == "float" and type_.kind == "int")
    )
    if not fits:
        checker.reporter.report(
            "E0502",
            f"`{name}` takes {'an' if kind == 'int' else 'a'} {kind} as `{param}`, "
            f"not {format_type(type_)}",
            arg.span,
            f"not {'an' if kind == 'int' else 'a'} {kind}",
        )
    return fits
