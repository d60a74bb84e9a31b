"""The checks at the top of every compiled function: each tensor argument's rank, sizes,
dtype and device, with the function's generic sizes read from the arguments once.

The fast path is a few tuple comparisons per argument; only a failing check calls into the
runtime, which works out which axis failed and says so (`shapescript.rt.checks`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import TensorType, axis_text, format_type
from shapescript.check.declarations.signatures import Signature
from shapescript.codegen import devices
from shapescript.codegen.context import ModuleContext, python_name
from shapescript.codegen.sizes import MissingSize, SizeNames, size_expr


@dataclass(slots=True)
class AxisPlan:
    """How one axis of one argument is used: read a symbol from it, or check it."""

    param: int
    axis: int
    size: Poly
    #: How the type writes the axis, and the size before dims were replaced by numbers.
    text: str = ""
    written: Poly | None = None
    #: The symbol this axis gives a value to, and the `a*symbol + c` form it is read with.
    reads: str | None = None
    factor: str = "1"
    offset: str = "0"


@dataclass(slots=True)
class ArgumentPlan:
    """The checks and reads of one function's arguments, in the order they run."""

    tensors: list[tuple[int, str, TensorType]] = field(default_factory=list)
    axes: list[AxisPlan] = field(default_factory=list)
    #: Symbol -> Python expression, for every size the body may use.
    sizes: SizeNames = field(default_factory=lambda: SizeNames({}))


@dataclass(slots=True)
class ModuleDims:
    """The dims that arguments are checked against (`devices.argument_dims`), made once per
    module: each dim's value, and the Python name every function's sizes start from."""

    values: dict[str, int]
    names: dict[str, str]

    def sizes_in(self, size: Poly) -> dict[str, Poly]:
        """The values of the dims `size` names, as sizes to substitute."""
        values = self.values
        return {name: Poly.const(values[name]) for name in size.symbols() if name in values}


def module_dims(context: ModuleContext) -> ModuleDims:
    """The module's `ModuleDims`, made on first use: a file's dims grow with its length,
    and so does its number of functions, so a table per function would cost their product."""
    if context.argument_dims is None:
        values = devices.argument_dims(context.checked)
        context.argument_dims = ModuleDims(values, {name: python_name(name) for name in values})
    return context.argument_dims


def planned(context: ModuleContext, signature: Signature) -> ArgumentPlan:
    """`plan_arguments` for the module's dims, made once per signature: a function and
    its unchecked copy share it (nothing changes a plan once made)."""
    found = context.argument_plans.get(id(signature))
    if found is None or found[0] is not signature:
        found = (signature, plan_arguments(signature, module_dims(context)))
        context.argument_plans[id(signature)] = found
    return found[1]


def plan_arguments(signature: Signature, dims: ModuleDims) -> ArgumentPlan:
    """Decide which axis each generic size is read from and which axes are checked."""
    plan = ArgumentPlan()
    known = SizeNames(dims.names)
    pending: list[AxisPlan] = []
    for index, param in enumerate(signature.params):
        type_ = param.type
        if not isinstance(type_, TensorType) or type_.axes is None or param.special:
            continue
        plan.tensors.append((index, python_name(param.name), type_))
        for position, axis in enumerate(type_.axes):
            if axis.rest:
                continue
            pending.append(
                AxisPlan(
                    index,
                    position,
                    axis.size.substitute(dims.sizes_in(axis.size)),
                    axis_text(axis),
                    axis.size,
                )
            )
    # Plain axes first: `n` is read where it stands alone.
    for axis in pending:
        symbol = axis.size.single_symbol()
        if symbol is not None and symbol not in known and not symbol.startswith("?"):
            axis.reads = symbol
            known[symbol] = python_name(symbol)
    # Then sizes such as (h Dh), 16h or h+3: one unknown symbol, linear, the rest known.
    progress = True
    while progress:
        progress = False
        for axis in pending:
            if axis.reads is not None:
                continue
            unread = [s for s in axis.size.symbols() if s not in known and not s.startswith("?")]
            if len(unread) != 1:
                continue
            symbol = unread[0]
            linear = axis.size.linear_in(symbol)
            if linear is None:
                continue
            factor, offset = linear
            try:
                axis.factor = size_expr(factor, known)
                axis.offset = size_expr(offset, known)
            except MissingSize:
                continue
            axis.reads = symbol
            known[symbol] = python_name(symbol)
            progress = True
    plan.axes = pending
    plan.sizes = known
    return plan


def axis_spec(axis: AxisPlan, known: SizeNames) -> str:
    """The axis as the runtime's failure path reads it: a tuple of Python expressions."""
    if axis.reads is not None:
        factor_text = axis.factor
        if axis.written is not None:
            linear = axis.written.linear_in(axis.reads)
            if linear is not None and str(linear[0]) != axis.factor:
                factor_text = f"{linear[0]} = {axis.factor}"
        return repr(
            ("read", python_name(axis.reads), axis.factor, axis.offset, axis.text, factor_text)
        )
    try:
        return repr(("size", size_expr(axis.size, known), axis.text))
    except MissingSize:
        return repr(("any", axis.text))


def function_spec(
    context: ModuleContext,
    signature: Signature,
    plan: ArgumentPlan,
    location: tuple[int, int],
    param_locations: list[tuple[int, int]],
    written: list[str | None],
) -> str:
    """A module constant describing the function, for the runtime's error messages."""
    params = []
    by_param: dict[int, list[str]] = {}
    for axis in plan.axes:
        by_param.setdefault(axis.param, []).append(axis_spec(axis, plan.sizes))
    for index, param in enumerate(signature.params):
        type_ = param.type
        axes = by_param.get(index)
        shown = written[index] or (format_type(type_) if isinstance(type_, TensorType) else None)
        dtype = (
            type_.resolved_dtype
            if isinstance(type_, TensorType) and type_.axes is not None
            else None
        )
        line, column = param_locations[index]
        params.append(
            f"({param.name!r}, {line}, {column}, {shown!r}, "
            f"{'(' + ', '.join(axes) + ',)' if axes else '()'}, {dtype!r})"
        )
    path = context.source.path
    return (
        f"({path!r}, {location[0]}, {location[1]}, {signature.name!r}, (\n    "
        + ",\n    ".join(params)
        + ("," if params else "")
        + "\n))"
    )


def check_lines(
    context: ModuleContext, plan: ArgumentPlan, spec: str, fail: str
) -> tuple[list[str], list[str], list[str]]:
    """Rank, dtype and device checks; reads of the generic sizes; checks of the sizes.

    They run in that order. `debug` mode puts both kinds of check under `if __debug__:`;
    the reads always run, since the body may use the sizes.
    """
    checks: list[str] = []
    reads: list[str] = []
    shape_vars = {}
    for index, _name, _type in plan.tensors:
        shape_vars[index] = f"_ss_s{index}"
    for index, name, type_ in plan.tensors:
        has_rest = any(axis.rest for axis in type_.axes)
        rank = len([axis for axis in type_.axes if not axis.rest])
        conditions = [
            f"len(_ss_s{index}) {'<' if has_rest else '!='} {rank}",
            f"{name}.dtype is not {context.dtype(type_.resolved_dtype)}",
            f"{name}.device != _ss_dev",
        ]
        checks.append(
            f"if {' or '.join(conditions)}:\n    {fail}({spec}, {index}, {name}, locals())"
        )
    per_param: dict[int, list[str]] = {}
    for axis in plan.axes:
        shape = shape_vars[axis.param]
        position = _position(plan, axis)
        item = f"{shape}[{position}]"
        if axis.reads is not None:
            symbol = python_name(axis.reads)
            if axis.factor == "1" and axis.offset == "0":
                reads.append(f"{symbol} = {item}")
                continue
            if axis.factor == "1":
                reads.append(f"{symbol} = {item} - {axis.offset}")
                per_param.setdefault(axis.param, []).append(f"{symbol} < 0")
                continue
            # A remainder of its own for each axis: a later read mustn't hide this one's.
            remainder = f"_ss_r{axis.param}_{axis.axis}"
            reads.append(f"{symbol}, {remainder} = divmod({item} - {axis.offset}, {axis.factor})")
            per_param.setdefault(axis.param, []).append(f"{remainder} or {symbol} < 0")
            continue
        try:
            expected = size_expr(axis.size, plan.sizes)
        except MissingSize:
            continue
        per_param.setdefault(axis.param, []).append(f"{item} != {expected}")
    sizes_checks = []
    for index, conditions in per_param.items():
        name = next(n for i, n, _ in plan.tensors if i == index)
        sizes_checks.append(
            f"if {' or '.join(conditions)}:\n    {fail}({spec}, {index}, {name}, locals())"
        )
    return checks, reads, sizes_checks


def _position(plan: ArgumentPlan, axis: AxisPlan) -> int:
    """The axis's index in the argument's shape: negative after a `...`."""
    for index, _name, type_ in plan.tensors:
        if index != axis.param:
            continue
        rest_at = next((i for i, a in enumerate(type_.axes) if a.rest), None)
        if rest_at is None or axis.axis < rest_at:
            return axis.axis
        return axis.axis - len(type_.axes)
    return axis.axis


def used_reads(plan: ArgumentPlan, body: str) -> list[str]:
    """With checks off: reads of the sizes the body's code uses, straight from the shapes."""
    lines = []
    for axis in plan.axes:
        if axis.reads is None:
            continue
        symbol = python_name(axis.reads)
        if not re.search(rf"\b{re.escape(symbol)}\b", body):
            continue
        name = next(n for i, n, _ in plan.tensors if i == axis.param)
        item = f"{name}.shape[{_position(plan, axis)}]"
        if axis.factor == "1" and axis.offset == "0":
            lines.append(f"{symbol} = {item}")
        else:
            lines.append(f"{symbol} = ({item} - {axis.offset}) // {axis.factor}")
    return lines
