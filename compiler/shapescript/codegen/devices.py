"""Code for several devices: each function that runs on the workers bound to a call on
every worker, each operation across the batch wrapped in its all-reduce (batch_norm's in
its own lowering), and with `split H` each operation of the checker's plan in its cut,
all-reduce or matching block (`rt.parallel.heads`).

It reads the checker's placement (`Checked.placement`) and nothing else.
"""

from __future__ import annotations

import re

from shapescript.codegen import padding
from shapescript.codegen.context import python_name
from shapescript.syntax import ast

_COMBINE = {"sum": "all_sum", "mean": "all_mean"}
_BATCH_NORM = "_ss_rt.randomness.batch_norm("
_MATMUL = "_ss_torch.matmul("
#: split H's collectives, which the module `rt.parallel.heads` lowers.
_HEADS = frozenset({"cut", "rows_right", "rows_left", "gathered"})


def _placement(checked):
    placement = getattr(checked, "placement", None)
    if placement is None or not placement.several:
        return None
    return placement


def wrap(generator, node: ast.Call | ast.Binary, text: str) -> str:
    """A call's, pipe stage's or `@`'s code, in its all-reduce when it is an operation
    across the batch."""
    placement = _placement(generator.context.checked)
    if placement is None or generator.python != python_name(generator.decl.name):
        return text
    found = placement.collective_at(generator.decl.name, node.span)
    if found is None or not (
        found.kind in _COMBINE or found.kind in _HEADS or found.kind == "stats"
    ):
        return text
    source = generator.context.checked.source
    position = source.position(generator.base + node.span.start)
    where = f"{source.path}:{position.line}:{position.column}"
    distributed = padding.distributed(text, found.kind, where)
    if distributed is not None:
        return distributed
    generator.context.imports.setdefault(
        "from shapescript.rt.parallel import collectives as _ss_collectives", None
    )
    if found.kind in _HEADS:
        generator.context.imports.setdefault(
            "from shapescript.rt.parallel import heads as _ss_heads", None
        )
    if found.kind == "gathered" and all(axis is None for axis in found.axes):
        return text  # computed whole from gathered operands, and whole
    if found.kind in ("cut", "gathered"):
        # Computed whole, with the dim's whole size, then cut to this device's part.
        name = python_name(placement.split_dim or "")
        whole = re.sub(rf"(?<![\w.'\"]){re.escape(name)}(?![\w'\"])", "_ss_heads.whole", text)
        return f"_ss_heads.cut({whole}, {found.axes!r})"
    if found.kind in ("rows_right", "rows_left"):
        if not text.startswith(_MATMUL):
            raise NotImplementedError(f"split {placement.split_dim}: a matmul as {text}")
        side = found.kind.removeprefix("rows_")
        return text.replace(_MATMUL, f"_ss_heads.matmul_rows({where!r}, {side!r}, ", 1)
    if found.kind == "stats":
        # batch_norm's statistics: the same call, to the lowering that all-reduces them.
        return text.replace(_BATCH_NORM, f"_ss_collectives.batch_norm({where!r}, ", 1)
    return f"_ss_collectives.{_COMBINE[found.kind]}({text}, {where!r})"


def gathered(generator, span, text: str) -> str:
    """An operand's code, gathered whole from every worker's heads when the plan needs it
    whole (span: the expression's, or a pipe stage's for its input)."""
    placement = _placement(generator.context.checked)
    if placement is None or not placement.gathers:
        return text
    axis = placement.gathers.get(generator.decl.name, {}).get(span)
    if axis is None or generator.python != python_name(generator.decl.name):
        return text
    generator.context.imports.setdefault(
        "from shapescript.rt.parallel import heads as _ss_heads", None
    )
    return f"_ss_heads.gather({text}, {axis})"


def argument_dims(checked) -> dict[str, int]:
    """The dims that arguments are checked against: with `split H`, all but H, whose size
    a split argument gives (on a worker, its share of H)."""
    dims = checked.dim_values
    placement = _placement(checked)
    if placement is None or placement.split_dim is None:
        return dims
    return {name: value for name, value in dims.items() if name != placement.split_dim}


def remote_lines(checked, devices: str | None) -> list[str]:
    """The lines that bind each function on the workers to a call on every worker."""
    placement = _placement(checked)
    if placement is None or devices is None:
        return []
    lines = ["from shapescript.rt.parallel import controller as _ss_parallel"]
    if placement.shard_params:
        lines.append("_ss_shard_params = True")
    if placement.split_dim is not None:
        split = (python_name(placement.split_dim), placement.split_fields)
        lines.append(f"_ss_split_heads = {split!r}")
    lines.append(f"_ss_program = _ss_parallel.Program(__file__, {devices!r}, globals())")
    for item in checked.items:
        decl = item.item
        if not isinstance(decl, ast.FnDecl) or placement.places.get(decl.name) != "workers":
            continue
        if decl.name in checked.overloads:
            continue
        split = placement.split_params.get(decl.name, {})
        muts = tuple(param.name for param in decl.params if param.mut)
        line = checked.source.position(item.base + decl.name_span.start)
        where = f"{checked.source.path}:{line.line}:{line.column}"
        name = python_name(decl.name)
        lines.append(
            f"{name} = _ss_program.remote({name}, {decl.name!r}, {split!r}, "
            f"{_result_axis(checked, decl, placement)!r}, {muts!r}, {where!r})"
        )
    return lines


def _result_axis(checked, decl: ast.FnDecl, placement) -> int | None:
    """The axis of the function's result that is split along the batch, if any."""
    from shapescript.check.algebra.types import TensorType

    if placement.split_dim is not None:
        return placement.split_results.get(decl.name)
    signature = checked.signatures.get(decl.name)
    result = getattr(signature, "return_type", None)
    split = placement.split_sizes.get(decl.name, frozenset())
    if isinstance(result, TensorType) and result.axes is not None:
        for index, axis in enumerate(result.axes):
            if axis.size.single_symbol() in split:
                return index
    return None
