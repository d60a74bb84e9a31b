"""Hover in a pattern: over an axis name, that axis, its size, and where it comes from;
over `->` (or the `|>` into a pattern operation), the operands and the result drawn with
where each axis goes (render/patterns.py).

In `x |> rearrange(b n (h d) -> b h n d)`, an input side's axes are the operand's axes
in order, so `n` there is the operand's second axis; an output side's are the result's.
A name inside a group, as `h` in `(h d)`, has the size the pattern gives it elsewhere,
or its dim's value.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from shapescript.check.algebra.patterns import PATTERN_OPERATIONS
from shapescript.check.algebra.sizes import Poly, format_size
from shapescript.check.algebra.types import Axis, SeveralType, TensorType, Type, format_type
from shapescript.check.declarations.symbols import ItemFacts
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import Span
from shapescript_lsp.features.context import enclosing
from shapescript_lsp.render.patterns import Entry, Part, PatternPicture, Side


class _Hit:
    """The name under the cursor: its side, its position there, and whether in a group."""

    __slots__ = ("node", "side", "position", "grouped")

    def __init__(self, node: ast.PatternName, side: int, position: int, grouped: bool) -> None:
        self.node = node
        self.side = side
        self.position = position
        self.grouped = grouped


def pattern_axis_hover(checked: Checked, item: ItemFacts, offset: int) -> tuple[str, Span] | None:
    """The hover's Markdown and the name's span, when the offset is on a pattern's axis name."""
    relative = offset - item.base
    patterns = enclosing(item.item, relative, (ast.Pattern,))
    if not patterns:
        return None
    pattern = patterns[-1]
    sides = [*pattern.inputs, pattern.output]
    hit = next((h for h in _names(sides) if h.node.span.start <= relative <= h.node.span.end), None)
    if hit is None:
        return None
    operands, names = _operands(checked, item, pattern, relative)
    result = checked.type_of(_absolute(_call_of(item, pattern, relative), item.base))
    if isinstance(result, SeveralType) and result.items:
        result = result.items[0]
    axis, origin = _axis_and_origin(hit, sides, operands, names, result, checked)
    if hit.grouped:
        group = sides[hit.side].axes[hit.position].span
        written = " ".join(
            checked.source.text[item.base + group.start : item.base + group.end].split()
        )
        origin = f"Part of the grouped axis `{written}`. {origin}".rstrip()
    name = hit.node.name
    header = f"axis {name}"
    if axis is None:
        calls = [
            call
            for call in enclosing(item.item, relative, (ast.Call,))
            if any(arg.value is pattern for arg in call.args)
        ]
        if calls and len(operands) == len(pattern.inputs):
            known = _sizes(checked, calls[-1], pattern, operands, result)
            if name in known:
                header += f" = {known[name]}"
    else:
        written = format_size(axis.size)
        if written != name:
            header += f" = {written}"
        value = _value(axis.size, checked)
        if value is not None and str(value) != written:
            header += f" = {value}"
    markdown = f"```shapescript\n{header}\n```"
    if origin:
        markdown += f"\n\n{origin}"
    return markdown, _absolute(hit.node.span, item.base)


def _names(sides: list[ast.PatternSide]) -> Iterator[_Hit]:
    for side_index, side in enumerate(sides):
        for position, axis in enumerate(side.axes):
            if isinstance(axis, ast.PatternName):
                yield _Hit(axis, side_index, position, False)
            elif isinstance(axis, ast.PatternGroup):
                for inner in _group_names(axis):
                    yield _Hit(inner, side_index, position, True)


def _group_names(group: ast.PatternGroup) -> Iterator[ast.PatternName]:
    for part in group.items:
        if isinstance(part, ast.PatternName):
            yield part
        elif isinstance(part, ast.PatternGroup):
            yield from _group_names(part)


def _call_of(item: ItemFacts, pattern: ast.Pattern, relative: int) -> Span:
    calls = enclosing(item.item, relative, (ast.Call,))
    for call in reversed(calls):
        if any(arg.value is pattern for arg in call.args):
            return call.span
    return pattern.span


def _operands(
    checked: Checked, item: ItemFacts, pattern: ast.Pattern, relative: int
) -> tuple[list[Type | None], list[str]]:
    """The types of the operands the pattern's input sides describe, and their source text."""
    text = checked.source.text
    calls = [
        call
        for call in enclosing(item.item, relative, (ast.Call,))
        if any(arg.value is pattern for arg in call.args)
    ]
    if not calls:
        return [], []
    call = calls[-1]
    before = [arg for arg in call.args if arg.value is not pattern and arg.name is None]
    before = [arg for arg in before if arg.span.end <= pattern.span.start]
    spans = [arg.value.span for arg in before]
    if not spans:
        for pipe in enclosing(item.item, relative, (ast.Pipe,)):
            for index, stage in enumerate(pipe.stages):
                if stage is call:
                    spans = [pipe.input.span if index == 0 else pipe.stages[index - 1].span]
    types_ = [checked.type_of(_absolute(span, item.base)) for span in spans]
    names = [" ".join(text[item.base + s.start : item.base + s.end].split()) for s in spans]
    return types_, names


def _axis_and_origin(
    hit: _Hit,
    sides: list[ast.PatternSide],
    operands: list[Type | None],
    names: list[str],
    result: Type | None,
    checked: Checked,
) -> tuple[Axis | None, str]:
    name = hit.node.name
    output = len(sides) - 1
    inputs = [(index, h) for index, h in enumerate(_names(sides)) if not h.grouped]
    if not hit.grouped:
        if hit.side < output:
            axis = _axis_of(_at(operands, hit.side), sides[hit.side], hit.position)
            if axis is not None:
                operand = _at(names, hit.side) or "the operand"
                shown = format_type(_at(operands, hit.side))
                return axis, f"Axis {hit.position + 1} of `{_short(operand)}`: `{shown}`."
        else:
            axis = _axis_of(result, sides[output], hit.position)
            source = next(
                (h for h in _names(sides) if h.node.name == name and h.side < output), None
            )
            if source is not None:
                operand = _short(_at(names, source.side) or "the operand")
                if source.grouped:
                    return axis, f"Split from axis {source.position + 1} of `{operand}`."
                return axis, f"Axis {source.position + 1} of `{operand}`, moved here."
            if axis is not None:
                return axis, "A new axis of the result."
    if name in checked.dim_values:
        return Axis(Poly.symbol(name), name), f"`{name}` is a dim."
    for _, other in inputs:
        if other.node.name != name:
            continue
        typed = _at(operands, other.side) if other.side < output else result
        axis = _axis_of(typed, sides[other.side], other.position)
        if axis is not None:
            side = "result" if other.side == output else f"`{_short(_at(names, other.side) or '')}`"
            return axis, f"Its size comes from axis {other.position + 1} of the {side}."
    return None, ""


def _axis_of(type_: Type | None, side: ast.PatternSide, position: int) -> Axis | None:
    """The type's axis at the side's position, when the side spells out every axis."""
    if not isinstance(type_, TensorType) or type_.axes is None:
        return None
    if len(type_.axes) != len(side.axes) or any(axis.rest for axis in type_.axes):
        return None
    return type_.axes[position]


def _value(size: Poly, checked: Checked) -> int | None:
    values = {name: Poly.const(value) for name, value in checked.dim_values.items()}
    return size.substitute(values).value if size.symbols() <= set(values) else None


def _at(values: list, index: int):
    return values[index] if 0 <= index < len(values) else None


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:39] + "…"


def _absolute(span: Span, base: int) -> Span:
    return Span(span.start + base, span.end + base)


# ---------------------------------------------------------------------- before → after


def arrow_pattern(item: ItemFacts, offset: int) -> tuple[ast.Pattern, ast.Call] | None:
    """The pattern whose `->` is at the offset, and the call it is an argument of."""
    relative = offset - item.base
    for pattern in reversed(enclosing(item.item, relative, (ast.Pattern,))):
        arrow = pattern.arrow_span
        if arrow.start <= relative <= arrow.end:
            calls = [
                call
                for call in enclosing(item.item, relative, (ast.Call,))
                if any(arg.value is pattern for arg in call.args)
            ]
            return (pattern, calls[-1]) if calls else None
    return None


def stage_pattern(stage: object) -> tuple[ast.Pattern, ast.Call] | None:
    """The pattern of a pipe stage into a pattern operation, and the stage's call."""
    if not isinstance(stage, ast.Call) or not isinstance(stage.callee, ast.Name):
        return None
    if stage.callee.name not in PATTERN_OPERATIONS:
        return None
    for arg in stage.args:
        if isinstance(arg.value, ast.Pattern):
            return arg.value, stage
    return None


def pattern_picture(
    checked: Checked,
    item: ItemFacts,
    pattern: ast.Pattern,
    call: ast.Call,
    stage_input: Span | None = None,
) -> tuple[PatternPicture, list[Type | None], Type | None] | None:
    """What the pattern does to its operands' axes, drawn from their types; with the
    operands' types and the (first) result's, for the hover's types line."""
    text = checked.source.text
    if stage_input is not None:
        spans = [stage_input]
    else:
        spans = [
            arg.value.span
            for arg in call.args
            if arg.name is None and arg.value is not pattern and arg.span.end <= pattern.span.start
        ]
        if not spans:
            found = _pipe_input(item, call)
            spans = [found] if found is not None else []
    operands = [checked.type_of(_absolute(span, item.base)) for span in spans]
    titles = [
        _short(" ".join(text[item.base + s.start : item.base + s.end].split())) for s in spans
    ]
    result = checked.type_of(_absolute(call.span, item.base))
    several = isinstance(result, SeveralType) and len(result.items) > 1
    first = result.items[0] if isinstance(result, SeveralType) and result.items else result
    if len(operands) != len(pattern.inputs):
        return None
    sizes = _sizes(checked, call, pattern, operands, first)
    inputs = tuple(
        Side(titles[index] or "x", _entries(side, sizes, checked, item))
        for index, side in enumerate(pattern.inputs)
    )
    title = f"each of {len(result.items)} results" if several else "result"  # type: ignore[union-attr]
    output = Side(title, _entries(pattern.output, sizes, checked, item))
    return PatternPicture(inputs, output), operands, first


def _pipe_input(item: ItemFacts, call: ast.Call) -> Span | None:
    for pipe in enclosing(item.item, call.span.start, (ast.Pipe,)):
        for index, stage in enumerate(pipe.stages):
            if stage is call:
                return pipe.input.span if index == 0 else pipe.stages[index - 1].span
    return None


def _number(size: Poly, checked: Checked) -> int | None:
    values = {name: Poly.const(value) for name, value in checked.dim_values.items()}
    return size.substitute(values).value if size.symbols() <= set(values) else None


def _parts(axis: ast.PatternAxis) -> list[tuple[str | None, int | None]]:
    """An entry's parts, outer first: (name, None) or (None, number)."""
    if isinstance(axis, ast.PatternName):
        return [(axis.name, None)]
    if isinstance(axis, ast.PatternInt):
        return [(None, axis.value)]
    if isinstance(axis, ast.PatternGroupedSize):
        return [(axis.name, None), (None, axis.count)]
    parts: list[tuple[str | None, int | None]] = []
    for inner in axis.items:
        parts.extend(_parts(inner))
    return parts


def _sizes(
    checked: Checked,
    call: ast.Call,
    pattern: ast.Pattern,
    operands: list[Type | None],
    result: Type | None,
) -> dict[str, int]:
    """The size of each name of the pattern that is known in numbers: dims, keyword sizes,
    the operands' and the result's axes, and one unknown part of a group solved from the rest."""
    sizes = dict(checked.dim_values)
    for arg in call.args:
        if arg.name is None or isinstance(arg.value, ast.Pattern):
            continue
        if isinstance(arg.value, ast.IntLit):
            sizes[arg.name] = arg.value.value
        elif isinstance(arg.value, ast.Name) and arg.value.name in checked.dim_values:
            sizes[arg.name] = checked.dim_values[arg.value.name]
    pairs = list(zip(pattern.inputs, operands, strict=False)) + [(pattern.output, result)]
    for _ in range(3):
        for side, type_ in pairs:
            if not isinstance(type_, TensorType) or type_.axes is None:
                continue
            if len(type_.axes) != len(side.axes):
                continue
            for entry, axis in zip(side.axes, type_.axes, strict=True):
                total = _number(axis.size, checked)
                if total is None:
                    continue
                parts = _parts(entry)
                unknown = [name for name, number in parts if number is None and name not in sizes]
                if len(unknown) != 1:
                    continue
                rest = math.prod(
                    number if number is not None else sizes[name]  # type: ignore[index]
                    for name, number in parts
                    if name != unknown[0]
                )
                if rest and total % rest == 0:
                    sizes[unknown[0]] = total // rest
    return sizes


def _entries(
    side: ast.PatternSide, sizes: dict[str, int], checked: Checked, item: ItemFacts
) -> tuple[Entry, ...]:
    text = checked.source.text
    entries = []
    for axis in side.axes:
        written = " ".join(text[item.base + axis.span.start : item.base + axis.span.end].split())
        parts = tuple(
            Part(name, sizes.get(name) if name is not None else number, number)
            for name, number in _parts(axis)
        )
        entries.append(Entry(written, parts))
    return tuple(entries)
