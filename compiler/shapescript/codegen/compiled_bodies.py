"""With the torch.compile switch on: a function's body as a function of its own.

The public function keeps its argument checks and ends by calling `_ss_body_NAME`, a
module-level function holding the statements of the body, wrapped by the runtime's
`torch_compile.compiled`, which runs it through `torch.compile`. The checks stay plain
Python outside the compiled region, so their errors read as they always do.

The body takes the parameters and the prologue's values it uses (the device, the masks,
the call counter). The sizes it reads from its tensor arguments' shapes (`b`, `n`) it
reads again itself, so torch.compile sees them as the shapes' symbols rather than as
numbers it would specialize on; the checker's dims are module constants, static.

Only bodies of tensor code are split: a function that takes an optimizer, a dataset, a
sink or a `mut` parameter, or whose body steps, logs, saves or loops over batches, runs
as it always does (its tensor work is in the functions it calls, which are compiled).
"""

from __future__ import annotations

import ast as py_ast
import re
from typing import TYPE_CHECKING

from shapescript.check.algebra.types import (
    BatchType,
    GradType,
    HostType,
    ModelType,
    ModeType,
    TensorType,
)
from shapescript.codegen import arguments
from shapescript.codegen.context import python_name
from shapescript.codegen.emit import Origin, SourceBuilder
from shapescript.codegen.sizes import MissingSize, size_expr

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator

#: Runtime parts whose work is Python bookkeeping that a trace can't hold.
_HOST_WORK = (
    "_ss_rt.gradients.value_and_grad",
    "_ss_rt.optimizers.",
    "_ss_rt.logs.",
    "_ss_rt.checkpoints.",
    "_ss_rt.data.batches",
    "_ss_rt.padding.batch_loop",
    "_ss_rt.recording.",
    "_ss_rt.parallel",
)


#: The parameter types a compiled body may take: the rest hold state a trace can't.
_TRACEABLE = (TensorType, HostType, ModelType, ModeType, GradType, BatchType)


def body_name(gen: FunctionGenerator) -> str:
    return f"_ss_body_{gen.python}"


def wanted(gen: FunctionGenerator, body: SourceBuilder) -> bool:
    """Whether this function's body is compiled apart: the switch is on and it is tensor code."""
    context = gen.context
    if not context.torch_compile or context.standalone:
        return False
    for param in gen.signature.params:
        if param.mut or not isinstance(param.type, _TRACEABLE):
            return False
    text = body.text
    return not any(part in text for part in _HOST_WORK)


def split(
    gen: FunctionGenerator,
    plan: arguments.ArgumentPlan,
    body: SourceBuilder,
    origin: Origin,
    indent: int = 1,
) -> tuple[str, SourceBuilder]:
    """The statement that returns the call of the body, for the public function, and the
    body's definition, to go after the public function. `indent` is the body's depth in
    the public function (2 for the plain body of a function that takes masks)."""
    body = _dedented(body, indent - 1)
    prologue = _function_text(gen, indent)
    defined = _defined_names(prologue)
    used = _used_names(body.text)
    reads = arguments.used_reads(plan, body.text)
    recomputed = {line.split("=")[0].split(",")[0].strip() for line in reads}
    read_from = {name for index, name, _ in plan.tensors if _reads_from(plan, index, recomputed)}
    params = [
        name
        for name in _ordered(defined)
        if (name in used or name in read_from) and name not in recomputed
    ]
    name = body_name(gen)
    call = f"return {name}({', '.join(params)})"
    out = SourceBuilder()
    out.add(0, f"def {name}({', '.join(params)}):", origin)
    for line in reads:
        out.add(1, line, origin)
    out.lines.extend(body.lines)
    out.origins.extend(body.origins)
    where_line, _ = gen.context.location(gen.base, gen.decl.name_span)
    where = f"{gen.context.source.path}:{where_line} {gen.decl.name}"
    dynamic = _dynamic_axes(plan, params)
    out.add(0, f"{name} = _ss_rt.torch_compile.compiled({name}, {where!r}, {dynamic!r})", origin)
    return call, out


def _dedented(body: SourceBuilder, levels: int) -> SourceBuilder:
    """The body's lines moved `levels` blocks to the left."""
    if not levels:
        return body
    prefix = "    " * levels
    out = SourceBuilder()
    out.lines = [line.removeprefix(prefix) for line in body.lines]
    out.origins = list(body.origins)
    return out


def _function_text(gen: FunctionGenerator, indent: int) -> str:
    """The public function generated so far: its `def` line and its prologue (and the
    `if` that chooses the plain body, when the body is `indent` 2)."""
    header = f"def {gen.python}("
    lines = gen.out.lines
    start = max(i for i, line in enumerate(lines) if line.startswith(header))
    return "\n".join(lines[start:]) + "\n" + "    " * indent + "pass\n"


def _defined_names(text: str) -> dict[str, None]:
    """The parameters and the names the prologue assigns, in order."""
    function = py_ast.parse(text).body[0]
    assert isinstance(function, py_ast.FunctionDef)
    found: dict[str, None] = {}
    for argument in (*function.args.args, *function.args.kwonlyargs):
        found[argument.arg] = None
    for node in py_ast.walk(function):
        if isinstance(node, py_ast.Name) and isinstance(node.ctx, py_ast.Store):
            found[node.id] = None
    return found


def _used_names(text: str) -> set[str]:
    """Every name the body's statements read or write."""
    tree = py_ast.parse("def _ss_body():\n" + text)
    return {node.id for node in py_ast.walk(tree) if isinstance(node, py_ast.Name)}


def _ordered(defined: dict[str, None]) -> list[str]:
    """The names a body may take, but the prologue's shapes (`_ss_s0`), which it needn't."""
    return [name for name in defined if not re.fullmatch(r"_ss_s\d+", name)]


def _reads_from(plan: arguments.ArgumentPlan, index: int, recomputed: set[str]) -> bool:
    """Whether a size the body reads again is read from the tensor argument `index`."""
    return any(
        axis.param == index and axis.reads is not None and python_name(axis.reads) in recomputed
        for axis in plan.axes
    )


def _dynamic_axes(
    plan: arguments.ArgumentPlan, params: list[str]
) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Per tensor argument of the body: its position and the axes whose size varies."""
    found = []
    for index, name, _type in plan.tensors:
        if name not in params:
            continue
        axes = tuple(
            arguments._position(plan, axis)
            for axis in plan.axes
            if axis.param == index and _varies(plan, axis)
        )
        if axes:
            found.append((params.index(name), axes))
    return tuple(found)


def _varies(plan: arguments.ArgumentPlan, axis: arguments.AxisPlan) -> bool:
    """Whether the checker leaves an axis's size free to change from call to call."""
    if axis.reads is not None:
        return True
    try:
        return not size_expr(axis.size, plan.sizes).isdigit()
    except MissingSize:
        return True
