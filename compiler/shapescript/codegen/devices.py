"""Code for several devices: each function that runs on the workers bound to a call on
every worker, and each operation across the batch wrapped in its all-reduce.

It reads the checker's placement (`Checked.placement`) and nothing else.
"""

from __future__ import annotations

from shapescript.codegen import padding
from shapescript.codegen.context import python_name
from shapescript.syntax import ast

_COMBINE = {"sum": "all_sum", "mean": "all_mean"}


def _placement(checked):
    placement = getattr(checked, "placement", None)
    if placement is None or not placement.several or placement.split_dim is not None:
        return None
    return placement


def wrap(generator, node: ast.Call | ast.Binary, text: str) -> str:
    """A call's, pipe stage's or `@`'s code, in its all-reduce when it is an operation
    across the batch."""
    placement = _placement(generator.context.checked)
    if placement is None or generator.python != python_name(generator.decl.name):
        return text
    found = placement.collective_at(generator.decl.name, node.span)
    if found is None or found.kind not in _COMBINE:
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
    return f"_ss_collectives.{_COMBINE[found.kind]}({text}, {where!r})"


def remote_lines(checked, devices: str | None) -> list[str]:
    """The lines that bind each function on the workers to a call on every worker."""
    placement = _placement(checked)
    if placement is None or devices is None:
        return []
    lines = [
        "from shapescript.rt.parallel import controller as _ss_parallel",
        f"_ss_program = _ss_parallel.Program(__file__, {devices!r}, globals())",
    ]
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
    from shapescript.check.types import TensorType

    signature = checked.signatures.get(decl.name)
    result = getattr(signature, "return_type", None)
    split = placement.split_sizes.get(decl.name, frozenset())
    if isinstance(result, TensorType) and result.axes is not None:
        for index, axis in enumerate(result.axes):
            if axis.size.single_symbol() in split:
                return index
    return None
