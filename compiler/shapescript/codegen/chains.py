"""Pipes, and the iterator chains in them.

An iteration is a Python expression giving a tuple of whole tensors, each with the
iterated axis first. Each map or filter runs as the checker recorded: on the whole
tensors at once when its function is elementwise, or through torch.vmap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from shapescript.check.algebra.types import HostType, TensorType
from shapescript.codegen import casts, devices
from shapescript.codegen.builtins import dim_of
from shapescript.codegen.context import python_name
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator

ITERATOR_STAGES = ("map", "filter", "zip", "enumerate")


@dataclass(slots=True)
class Iteration:
    """A tuple of whole tensors (`parts` of them), iterated along their first axis."""

    expr: str
    parts: int
    #: Per part: whether it is the indices 0, 1, ... of a size (so `x[i]` is `x`).
    indices: tuple[bool, ...]


def stage_name(stage) -> str | None:
    callee = stage.callee if isinstance(stage, ast.Call) else stage
    if isinstance(callee, ast.Name) and callee.name in ITERATOR_STAGES:
        return callee.name
    return None


def pipe(gen: FunctionGenerator, node: ast.Pipe) -> str:
    #: None until the input is evaluated: the first stage decides how (a chain iterates it).
    current: str | Iteration | None = None
    previous = node.input
    # A statement's pipe is computed a line of stages at a time, each in a variable whose
    # line is the stages' .ss line, so a traceback names the stage that failed.
    indent = gen.pipe_lines.pop(id(node), None)
    line_start = node.input
    if indent is not None and node.stages and stage_name(node.stages[0]) is None:
        current = gen.expr(node.input)
    for stage in node.stages:
        if (
            indent is not None
            and isinstance(current, str)
            and _line(gen, stage) != _line(gen, line_start)
        ):
            current = _line_of_stages(gen, current, line_start, indent)
            line_start = stage
        name = stage_name(stage)
        if name is not None:
            if not isinstance(current, Iteration):
                current = start(gen, previous, stage, current)
            current = apply(gen, current, stage, name)
            previous = stage
            continue
        if current is None:
            current = gen.expr(node.input)
        elif isinstance(current, Iteration):
            current = finish(current)
        if isinstance(stage, ast.ToStage):
            current = casts.convert(
                gen, gen.type(previous), gen.type(stage), stage.type, current, stage.span
            )
        else:
            call = stage if isinstance(stage, ast.Call) else ast.Call(stage, [], stage.span)
            gen.piped_nodes.append(previous)
            try:
                current = devices.gathered(gen, call.span, current)
                current = devices.wrap(gen, call, gen.call(call, current))
            finally:
                gen.piped_nodes.pop()
        previous = stage
    if current is None:
        return gen.expr(node.input)
    if isinstance(current, Iteration):
        return finish(current)
    if indent is not None and line_start is not node.input:
        gen.pipe_ends[id(node)] = gen.origin(line_start.span)
    return current


def _line_of_stages(gen: FunctionGenerator, value: str, start, indent: int) -> str:
    """The value of a line of stages in a variable of its own, on that .ss line."""
    if value.isidentifier():
        return value
    temp = gen.temp("p")
    gen.out.add(indent, f"{temp} = {value}", gen.origin(start.span))
    return temp


def _line(gen: FunctionGenerator, node) -> int:
    return gen.origin(node.span).line


def finish(iteration: Iteration) -> str:
    if iteration.parts == 1:
        return f"{iteration.expr}[0]"
    return iteration.expr


def _over_name(stage) -> str | None:
    if isinstance(stage, ast.Call):
        for arg in stage.args:
            if arg.name == "over" and isinstance(arg.value, ast.Name):
                return arg.value.name
    return None


def source(gen: FunctionGenerator, node, stage, value: str | None = None) -> tuple[str, bool]:
    """What a chain iterates, as one whole tensor with the iterated axis first; `value` is
    the node's code when it is already computed (the result of an earlier stage)."""
    if isinstance(node, ast.Range):
        lo, hi = gen.expr(node.lo), gen.expr(node.hi)
        from_zero = isinstance(node.lo, ast.IntLit) and node.lo.value == 0
        return f"_ss_torch.arange({lo}, {hi}, device=_ss_dev)", from_zero
    type_ = gen.type(node)
    if isinstance(type_, HostType):
        size = gen.expr(node) if value is None else value
        return f"_ss_torch.arange({size}, device=_ss_dev)", True
    if value is None:
        value = gen.expr(node)
    over = _over_name(stage)
    if over is not None and isinstance(type_, TensorType) and type_.axes:
        dim = dim_of(gen, node, over, stage.span)
        if dim != -len(type_.axes):
            value = f"_ss_torch.movedim({value}, {dim}, 0)"
    return value, False


def start(gen: FunctionGenerator, node, stage, value: str | None = None) -> Iteration:
    value, indices = source(gen, node, stage, value)
    return Iteration(f"({value},)", 1, (indices,))


def apply(gen: FunctionGenerator, iteration: Iteration, stage, name: str) -> str | Iteration:
    call = stage if isinstance(stage, ast.Call) else ast.Call(stage, [], stage.span)
    if name == "zip":
        other = next((arg.value for arg in call.args if arg.name is None), None)
        if other is None:
            raise gen.unsupported("zip without an iteration", stage.span)
        value, indices = source(gen, other, ast.Call(ast.Name("zip", stage.span), [], stage.span))
        axis = gen.view.zip_axis(stage.span)
        if axis:
            value = f"_ss_torch.movedim({value}, {axis}, 0)"
        return Iteration(
            f"({iteration.expr} + ({value},))",
            iteration.parts + 1,
            iteration.indices + (indices,),
        )
    if name == "enumerate":
        parts = ", ".join(f"_ss_p{index}" for index in range(iteration.parts))
        return Iteration(
            f"(lambda {parts}: (_ss_torch.arange(_ss_p0.shape[0], device=_ss_dev), {parts}))"
            f"(*{iteration.expr})",
            iteration.parts + 1,
            (True,) + iteration.indices,
        )
    function = next((arg.value for arg in call.args if arg.name is None), None)
    if function is None:
        raise gen.unsupported(f"`{name}` without a function", stage.span)
    body = _function(gen, iteration, function)
    if name == "map":
        return f"{body}(*{iteration.expr})"
    parts = ", ".join(f"_ss_p{index}" for index in range(iteration.parts))
    kept = ", ".join(f"_ss_p{index}[_ss_keep]" for index in range(iteration.parts))
    return Iteration(
        f"(lambda {parts}: (lambda _ss_keep: ({kept},))({body}({parts})))(*{iteration.expr})",
        iteration.parts,
        tuple(False for _ in range(iteration.parts)),
    )


def _function(gen: FunctionGenerator, iteration: Iteration, function) -> str:
    """A callable taking the iteration's parts: a Python lambda, vmapped unless the
    checker recorded the stage's function as elementwise."""
    elementwise = gen.view.stage_kind(function.span) == "elementwise"
    if isinstance(function, ast.Lambda):
        names = []
        saved = dict(gen.lowered)
        saved_locals = set(gen.locals)
        try:
            if not elementwise:
                gen.lowered = {}
            for index, param in enumerate(function.params):
                python = python_name(param.name) if param.name != "_" else f"_ss_unused{index}"
                names.append(python)
                if param.name == "_":
                    continue
                if elementwise:
                    from shapescript.codegen.function import Lowered

                    gen.lowered[param.name] = Lowered(python, iteration.indices[index])
                else:
                    gen.locals.add(param.name)
            body = gen.expr(function.body)
            if elementwise and not gen.depends(function.body):
                body = _repeated(gen, body, function.body, names[0])
        finally:
            gen.lowered = saved
            gen.locals = saved_locals
        callable_ = f"(lambda {', '.join(names)}: {body})"
        return callable_ if elementwise else f"_ss_torch.vmap{callable_}"
    from shapescript.codegen.function import Element

    element = "_ss_e"
    recorded = Element(gen.view.stage_element(function.span), function.span, elementwise)
    if isinstance(function, ast.ToStage):
        body = casts.convert(
            gen, recorded.type, gen.type(function), function.type, element, function.span
        )
    else:
        call = function if isinstance(function, ast.Call) else ast.Call(function, [], function.span)
        gen.piped_nodes.append(recorded)
        try:
            body = gen.call(call, element)
        finally:
            gen.piped_nodes.pop()
    callable_ = f"(lambda {element}: {body})"
    return callable_ if elementwise else f"_ss_torch.vmap{callable_}"


def _repeated(gen: FunctionGenerator, body: str, node, part: str) -> str:
    """An elementwise body that uses no parameter, as `n |> map(i => 1.0)`: the same value
    for every element, so it is repeated along the iterated axis of `part`."""
    type_ = gen.type(node)
    if isinstance(type_, HostType):
        dtype = {"float": "f32", "int": "i64", "bool": "bool"}[type_.kind]
        body = f"_ss_torch.as_tensor({body}, dtype={gen.context.dtype(dtype)}, device=_ss_dev)"
    return f"(lambda _ss_v: _ss_v.expand({part}.shape[0], *_ss_v.shape))({body})"
