"""`split H`: the plan that carries a split along a dim through each operation.

A value is split across the devices when its type has one axis of size H, or a group axis
that starts with H, such as (H Dh); a value with H elsewhere, or twice, is whole. Since the
layout follows the types, most operations need nothing: elementwise maths, reductions and
softmax over other axes, einsum and matmul that keep H, rearranging that keeps H first in
its group. The others are recorded as collectives for the compiler:

- `cut`: a value computed whole whose type has H (as `split(b n (3 H Dh) -> b H n Dh)`) is
  cut to each device's heads, with no communication;
- `sum`: an einsum, matmul or sum that contracts the split axis is added up (an all-reduce);
- `rows_right` / `rows_left`: a matmul contracting a split (H Dh) with a whole operand uses
  the whole operand's block of rows (or columns) that matches each device's heads, then adds
  the parts up;
- `gathered`: an operation along H (softmax over H) or across it that isn't a sum (max over
  H) takes its split operands gathered whole (`Placement.gathers`, an all-gather each), and
  its result is cut again if its type has H.

E1801 is for indexing the split axis, an `@` across it that isn't a contraction, a split
value given to a parameter whose type doesn't split it in the same place, and the dim used
as a number (on a worker, its name holds its share), which this compiler doesn't lower yet.
A parameter whose type has H is split too: the controller sends each worker its heads, and
its arguments are checked against the worker's share of H. A model's params along H are
split by their model, so those of the models it holds (`attn: Attention`, `h: [L] Block`)
are split wherever they are held: `split_fields` names every model's own.
"""

from __future__ import annotations

from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.algebra.types import HostType, ModelType, SeveralType, TensorType, Type
from shapescript.check.analyses.placement import (
    CONTROLLER,
    Collective,
    Placement,
    _absolute,
    _callee,
    _Function,
    _over,
)
from shapescript.syntax import ast

#: Operations that contract the split axis into a sum.
_SUMS = frozenset({"einsum", "sum", "matmul"})


def split_axis(type_: Type | None, dim: str) -> int | None:
    """The axis a value of this type is split along with `split dim`, or None if whole."""
    if not isinstance(type_, TensorType) or type_.axes is None:
        return None
    symbol = Poly.symbol(dim)
    found: list[int] = []
    elsewhere = False
    for index, axis in enumerate(type_.axes):
        if axis.size == symbol:
            found.append(index)
        elif axis.parts:
            if axis.parts[0].size == symbol:
                found.append(index)
            if any(part.size == symbol for part in axis.parts[1:]):
                elsewhere = True
    if len(found) != 1 or elsewhere:
        return None
    return found[0]


def _axes(type_: Type | None, dim: str) -> tuple[int | None, ...]:
    if isinstance(type_, SeveralType):
        return tuple(split_axis(item, dim) for item in type_.items)
    return (split_axis(type_, dim),)


def _split(type_: Type | None, dim: str) -> bool:
    return any(axis is not None for axis in _axes(type_, dim))


def plan_heads(
    functions: dict[str, _Function], placement: Placement, scope, reporter: Reporter
) -> None:
    """Each function's collectives with `split H`, the models' split fields, and E1801 for
    what has no lowering."""
    dim = placement.split_dim or ""
    for name, info in (getattr(scope, "model_infos", None) or {}).items():
        fields = {}
        for field_name, field_info in info.fields.items():
            axis = split_axis(getattr(field_info, "type", None), dim)
            if axis is not None and getattr(field_info, "kind", "param") == "param":
                fields[field_name] = axis
        if fields:
            placement.split_fields[name] = fields
    for name, function in functions.items():
        if placement.places.get(name) == CONTROLLER:
            continue
        _plan(function, functions, placement, dim, reporter)
        signature = getattr(scope, "signatures", {}).get(name)
        result = getattr(signature, "return_type", None)
        axis = split_axis(result, dim)
        if axis is not None:
            placement.split_results[name] = axis


def _plan(function: _Function, functions, placement: Placement, dim: str, reporter) -> None:
    types = function.types
    name = function.decl.name
    for param in function.decl.params:
        axis = split_axis(types.get(param.name_span), dim)
        if axis is not None:
            # Split as its type says: the controller sends each worker its heads.
            placement.split_params.setdefault(name, {})[param.name] = axis
    stages = set()
    for node in walk(function.decl):
        if isinstance(node, ast.Pipe):
            before = types.get(node.input.span)
            for stage in node.stages:
                stages.add(id(stage))
                if isinstance(stage, ast.Call | ast.Name):
                    call = stage if isinstance(stage, ast.Call) else None
                    callee = _callee(stage) if call is not None else stage.name
                    operands = [before] + _arg_types(call, types)
                    _classify(
                        function,
                        functions,
                        placement,
                        dim,
                        reporter,
                        stage,
                        callee,
                        operands,
                        types.get(stage.span),
                        call,
                    )
                before = types.get(stage.span)
    for node in walk(function.decl):
        if isinstance(node, ast.Call) and id(node) not in stages:
            operands = _arg_types(node, types)
            _classify(
                function,
                functions,
                placement,
                dim,
                reporter,
                node,
                _callee(node),
                operands,
                types.get(node.span),
                node,
            )
        elif isinstance(node, ast.Binary) and node.op == "@":
            operands = [types.get(node.left.span), types.get(node.right.span)]
            _classify(
                function,
                functions,
                placement,
                dim,
                reporter,
                node,
                "matmul",
                operands,
                types.get(node.span),
                None,
            )
        elif (
            isinstance(node, ast.Name)
            and node.name == dim
            and isinstance(types.get(node.span), HostType)
        ):
            # On a worker the dim's name is its share of heads, which reshapes use.
            _refuse(
                reporter,
                placement,
                function,
                node.span,
                f"`{dim}` used as a number",
                f"declare a dim of its own equal to {dim}",
            )
        elif isinstance(node, ast.Index):
            axis = split_axis(types.get(node.target.span), dim)
            if axis is not None and axis < len(node.items):
                _refuse(
                    reporter,
                    placement,
                    function,
                    node.span,
                    f"indexing a value split along {dim}",
                    "index a whole value",
                )
    del name


def _arg_nodes(node: ast.Call | None) -> list[ast.Expr]:
    if node is None:
        return []
    return [
        arg.value
        for arg in node.args
        if arg.name is None and not isinstance(arg.value, ast.Pattern)
    ]


def _arg_types(node: ast.Call | None, types: dict) -> list[Type | None]:
    return [types.get(value.span) for value in _arg_nodes(node)]


def _gather(function, placement: Placement, dim: str, node, operands, result, call) -> None:
    """Gather each split operand whole (an all-gather), compute the operation whole, and
    cut its result to each worker's heads if its type has H."""
    fn_name = function.decl.name
    gathers = placement.gathers.setdefault(fn_name, {})
    nodes: list[ast.Expr | None] = _arg_nodes(call)
    if len(operands) == len(nodes) + 1:
        nodes = [None, *nodes]  # a pipe stage's input, gathered where the stage takes it
    for operand, value in zip(operands, nodes, strict=False):
        axis = split_axis(operand, dim)
        if axis is not None:
            gathers[node.span if value is None else value.span] = axis
    placement.collectives.setdefault(fn_name, []).append(
        Collective(node.span, fn_name, "gathered", _axes(result, dim))
    )


def _classify(
    function, functions, placement, dim, reporter, node, callee, operands, result, call
) -> None:
    if callee in functions:
        if call is not None:
            _check_arguments(function, functions[callee], call, placement, dim, reporter)
        return  # a function of the file lays out its own values
    if callee in ("value_and_grad", "update"):
        return
    if any(isinstance(t, ModelType) for t in operands):
        return
    split_in = any(_split(t, dim) for t in operands)
    split_out = _split(result, dim)
    fn_name = function.decl.name
    collectives = placement.collectives.setdefault(fn_name, [])
    if not split_in and split_out:
        collectives.append(Collective(node.span, fn_name, "cut", _axes(result, dim)))
        return
    if split_in and split_out:
        over = _over(call) if call is not None else None
        first = next((t for t in operands if _split(t, dim)), None)
        axis = split_axis(first, dim)
        names = [a.name for a in first.axes] if isinstance(first, TensorType) else []
        if over is not None and axis is not None and over in names and names.index(over) == axis:
            _gather(function, placement, dim, node, operands, result, call)
        return
    if not split_in:
        return
    if callee == "matmul" and len(operands) >= 2:
        left, right = operands[0], operands[1]
        kind = _matmul_kind(left, right, dim)
        if kind is not None:
            collectives.append(Collective(node.span, fn_name, kind))
            return
    elif callee in _SUMS:
        collectives.append(Collective(node.span, fn_name, "sum"))
        return
    if call is not None or not isinstance(node, ast.Binary):
        _gather(function, placement, dim, node, operands, result, call)
        return
    _refuse(
        reporter,
        placement,
        function,
        node.span,
        f"`{callee}` across the axis split along {dim}",
        "contract it with einsum, matmul or sum, which have a lowering",
    )


def _check_arguments(function, callee, call: ast.Call, placement, dim: str, reporter) -> None:
    """A value split along H given to a parameter whose type doesn't split it the same way
    would be one worker's heads where the callee expects them all: E1801."""
    names = [param.name for param in callee.decl.params]
    spans = {param.name: param.name_span for param in callee.decl.params}
    positional = [a.value for a in call.args if a.name is None]
    pairs = list(zip(names, positional, strict=False))
    pairs += [(a.name, a.value) for a in call.args if a.name is not None]
    for name, value in pairs:
        mine = split_axis(function.types.get(value.span), dim)
        if mine is None or name not in spans:
            continue
        theirs = split_axis(callee.types.get(spans[name]), dim)
        if theirs != mine:
            _refuse(
                reporter,
                placement,
                function,
                value.span,
                f"a value split along {dim} given to `{callee.decl.name}`'s `{name}`, "
                f"whose type doesn't split it there",
                f"give `{name}` a type with {dim} where this value has it",
            )


def _matmul_kind(left: Type | None, right: Type | None, dim: str) -> str | None:
    """How a matmul contracting the split axis is lowered, if it is."""
    if not isinstance(left, TensorType) or not isinstance(right, TensorType):
        return None
    if left.axes is None or right.axes is None:
        return None
    left_axis = split_axis(left, dim)
    right_axis = split_axis(right, dim)
    left_contracted = left_axis == len(left.axes) - 1
    right_contracted = right_axis == (0 if len(right.axes) == 1 else len(right.axes) - 2)
    if left_contracted and right_contracted:
        return "sum"
    if left_contracted and right_axis is None:
        return "rows_right"
    if right_contracted and left_axis is None:
        return "rows_left"
    return None


def _refuse(reporter: Reporter, placement: Placement, function, span, what: str, help_: str):
    reporter.report(
        "E1801",
        f"{what}, with `split {placement.split_dim}` on {placement.device_count} devices, has "
        "no lowering yet",
        _absolute(span, function.base),
        f"split along {placement.split_dim}",
        help=help_,
    )
