"""Padding in generated code: masks passed along, masked operations, padded batch loops.

A function that uses the mask of a padded axis takes `_ss_pad` (a dict of masks by its
own axis names; Python callers leave it out) and keeps its masks in `_ss_pads`; an
operation across a padded axis calls its masked version in `_ss_rt.padding` with the
mask, which is None, and the operation the plain one, where nothing was padded.

Such a function has two bodies, chosen once at entry (`if not _ss_pad:`): the plain
body, for a call given no masks, and the padded one. The generator's `unpadded` holds
the axes that no mask reaches in the body being generated: in the plain body, every
axis whose mask would come from `_ss_pad`. The helpers here consult it, so in the plain
body `masked_symbol`, `reduction`, `cross_entropy` and `contracted` give the plain
operation, `masked_operands` leaves those axes out, `selection` masks nothing by them,
and `passed` passes no mask on, so that a callee takes its plain body too. A lowering to
a faster torch function applies where these say no mask applies (`masked_symbol` None,
no `masked_operands`). Masks made in the body itself (a padded loop over batches, a kept
selection) apply in both bodies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.types import TensorType
from shapescript.check.analyses.padding import PaddingFacts
from shapescript.codegen import data
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator


def facts(gen: FunctionGenerator) -> PaddingFacts | None:
    """The file's padding facts, for a function of this file (not another's instance)."""
    if gen.context.foreign is not None or gen.context.standalone:
        return None
    found = gen.context.checked.padding
    return found if isinstance(found, PaddingFacts) else None


def _absolute(gen: FunctionGenerator, span: Span) -> Span:
    return Span(gen.base + span.start, gen.base + span.end)


def takes_pads(gen: FunctionGenerator) -> bool:
    """Whether the function takes masks from its callers."""
    found = facts(gen)
    return found is not None and bool(found.needs.get(gen.decl.name))


def taken(gen: FunctionGenerator) -> frozenset[str]:
    """The axes whose masks the function takes from its callers (none in the plain body)."""
    found = facts(gen)
    return found.needs.get(gen.decl.name, frozenset()) if found is not None else frozenset()


def keeps_pads(gen: FunctionGenerator) -> bool:
    """Whether the body being generated reads `_ss_pads`: it is the padded body of a
    function that takes masks, or it makes masks of its own."""
    found = facts(gen)
    if found is None:
        return False
    if takes_pads(gen) and not gen.unpadded:
        return True
    return makes_pads(gen)


def makes_pads(gen: FunctionGenerator) -> bool:
    """Whether the function's body writes masks of its own into `_ss_pads`: it pads a
    loop over batches or keeps a selection at its target's size."""
    found = facts(gen)
    if found is None:
        return False
    known = gen.context.pads_made.get(id(gen.decl))
    if known is not None and known[0] is gen.decl:
        return known[1]
    item = Span(gen.base + gen.decl.span.start, gen.base + gen.decl.span.end)
    makes = any(
        item.start <= span.start and span.end <= item.end
        for span in (*found.loop_symbols, *found.selected)
    )
    gen.context.pads_made[id(gen.decl)] = (gen.decl, makes)
    return makes


def selection(gen: FunctionGenerator, node: ast.Index, target: str, mask_value: str) -> str | None:
    """A boolean selection kept at its target's size (its mask kept in `_ss_pads`), or
    one of a padded axis, whose padded positions it leaves out; None for a plain one."""
    found = facts(gen)
    if found is None or not keeps_pads(gen):
        return None
    span = _absolute(gen, node.span)
    kept = found.selected.get(span)
    outer = found.masked.get(span)
    if outer in gen.unpadded:
        outer = None
    if kept is None and outer is None:
        return None
    outer_mask = mask(outer) if outer is not None else "None"
    return f"_ss_rt.padding.select(_ss_pads, {kept!r}, {target}, {mask_value}, {outer_mask})"


def masked_symbol(gen: FunctionGenerator, node) -> str | None:
    """The pad symbol an operation is across, when it has a masked version to use."""
    found = facts(gen)
    if found is None or not keeps_pads(gen):
        return None
    symbol = found.masked.get(_absolute(gen, node.span))
    return None if symbol in gen.unpadded else symbol


def mask(symbol: str) -> str:
    return f"_ss_pads.get({symbol!r})"


def reduction(gen: FunctionGenerator, name: str, node, value: str, dim: int | None, operand):
    """A reduction across a padded axis, or None when it isn't one."""
    symbol = masked_symbol(gen, node)
    if symbol is None:
        return None
    if dim is None:
        position = _position(gen.type(operand), symbol)
        if position is None:
            return None
        return f"_ss_rt.padding.over_all({name!r}, {value}, {position}, {mask(symbol)})"
    return f"_ss_rt.padding.{name}({value}, {dim}, {mask(symbol)})"


def cross_entropy(gen: FunctionGenerator, node, logits: str, labels, classes: int, label_value):
    """cross_entropy with a padded axis among its other axes: a masked mean."""
    symbol = masked_symbol(gen, node)
    if symbol is None:
        return None
    label_type = gen.type(gen.operand_node(labels))
    axes = label_type.axes if isinstance(label_type, TensorType) else None
    places = tuple(
        (position, symbol)
        for position, axis in enumerate(axes or ())
        if axis.size.single_symbol() == symbol
    )
    if not places:
        return None
    return f"_ss_rt.padding.cross_entropy({logits}, {label_value}, {classes}, _ss_pads, {places!r})"


def contracted(gen: FunctionGenerator, node, left: str) -> str:
    """The left operand of a matmul whose contracted axis is padded, its padded
    positions zeroed."""
    symbol = masked_symbol(gen, node)
    if symbol is None:
        return left
    return f"_ss_rt.padding.zeroed({left}, -1, {mask(symbol)})"


def masked_operands(gen: FunctionGenerator, node) -> list[tuple[int, int, str]]:
    """For a pattern operation or `batch_norm` across a padded axis: each operand (by
    its place among the operands) and axis to mask, with the mask's expression."""
    found = facts(gen)
    if found is None or not keeps_pads(gen):
        return []
    places = found.operands.get(_absolute(gen, node.span), [])
    return [
        (index, dim, mask(symbol)) for index, dim, symbol in places if symbol not in gen.unpadded
    ]


def passed(gen: FunctionGenerator, node) -> str | None:
    """The `_ss_pad=` argument of a call that passes masks on, or None."""
    found = facts(gen)
    if found is None or not keeps_pads(gen):
        return None
    passes = found.passes.get(_absolute(gen, node.span)) or {}
    masked = sorted((inner, outer) for inner, outer in passes.items() if outer not in gen.unpadded)
    if not masked:
        return None
    items = ", ".join(f"{inner!r}: {mask(outer)}" for inner, outer in masked)
    return f"_ss_pad={{{items}}}"


def loop_padding(gen: FunctionGenerator, stmt: ast.For) -> tuple[bool, str | None, Span | None]:
    """Whether a loop over batches is padded, its pad symbol when the body uses its mask,
    and the span of its `batches(n)` call."""
    found = facts(gen)
    if found is None:
        return False, None, None
    for expr in _batches_calls(stmt.iterable):
        span = _absolute(gen, expr.span)
        if span in found.loops and found.loops[span] is None:
            return True, found.loop_symbols.get(span), expr.span
    return False, None, None


def batch_symbol(gen: FunctionGenerator, stmt: ast.For) -> str | None:
    """The size symbol of a loop's batch axis (`?b`)."""
    type_ = gen.view.type(stmt.var.span)
    axes = getattr(type_, "axes", None)
    return axes[0].size.single_symbol() if axes else None


def _batches_calls(node) -> list[ast.Call]:
    found = []
    if isinstance(node, ast.Pipe):
        found += [stage for stage in node.stages if isinstance(stage, ast.Call)]
    elif isinstance(node, ast.Call):
        found.append(node)
    return [
        call
        for call in found
        if isinstance(call.callee, ast.Name) and call.callee.name == "batches"
    ]


def metadata(gen: FunctionGenerator) -> str | None:
    """`f._ss_padding` for `shapescript.padded`: where each paddable axis is in the
    parameters and results, and why each other one can't be padded."""
    found = facts(gen)
    if found is None or gen.decl.name not in found.axes:
        return None
    axes = found.axes[gen.decl.name]
    if not axes:
        return None
    places: dict[str, list[tuple[int, int]]] = {}
    blocked = {symbol: b.text for symbol, b in axes.items() if b is not None}
    for index, param in enumerate(gen.signature.params):
        type_ = param.type
        if not isinstance(type_, TensorType) or type_.axes is None:
            continue
        for position, axis in enumerate(type_.axes):
            symbol = axis.size.single_symbol()
            if symbol in axes and symbol not in blocked:
                places.setdefault(symbol, []).append((index, position))
    if not places and not blocked:
        return None
    returns = []
    result = gen.signature.return_type
    results = getattr(result, "items", None) or (result,)
    for index, type_ in enumerate(results):
        if isinstance(type_, TensorType) and type_.axes is not None:
            for position, axis in enumerate(type_.axes):
                symbol = axis.size.single_symbol()
                if symbol in places:
                    returns.append((index, position, symbol))
    takes = bool(found.needs.get(gen.decl.name))
    info = {"axes": places, "returns": returns, "blocked": blocked, "takes": takes}
    return f"{gen.python}._ss_padding = {info!r}"


def recorded(gen: FunctionGenerator) -> str | None:
    """A recordable step's wrapping: recorded per signature on CUDA, as it is elsewhere."""
    found = facts(gen)
    name = gen.decl.name
    if found is None or name not in found.steps or found.steps[name] is not None:
        return None
    where = data.where(gen.context, gen.base, gen.decl.name_span)
    return f"{gen.python} = _ss_rt.recording.recorded({gen.python}, {name!r}, {where!r})"


def _position(type_, symbol: str) -> int | None:
    if not isinstance(type_, TensorType) or type_.axes is None:
        return None
    for position, axis in enumerate(type_.axes):
        if axis.size.single_symbol() == symbol:
            return position
    return None


#: Masked means across a padded batch, and their lowerings on several devices, which add
#: up each device's masked sum and real count (a masked sum is all-reduced as it is).
_DISTRIBUTED = {
    "_ss_rt.padding.mean(": "_ss_rt.padding.all_mean(",
    "_ss_rt.padding.over_all(": "_ss_rt.padding.all_over_all(",
    "_ss_rt.padding.cross_entropy(": "_ss_rt.padding.all_cross_entropy(",
}


def distributed(text: str, kind: str, where: str) -> str | None:
    """A masked mean across the batch on several devices, as its own lowering; None for
    anything else, which is all-reduced as it is."""
    if kind != "mean" or not text.endswith(")"):
        return None
    for masked, lowered in _DISTRIBUTED.items():
        if text.startswith(masked):
            return f"{lowered}{text[len(masked) : -1]}, where={where!r})"
    return None
