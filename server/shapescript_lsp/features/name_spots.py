"""Where a file writes each name, with the declaration the checker says it means there.

The checker's facts hold a reference for every name it resolves in an expression, and
for the first place a function writes each axis name. Axis names written again later in
a signature, in a type or in a pattern (`b n (H Dh) -> b H n Dh`), the axis of an
`over=` that names it to a library function (`layer_norm(x, over=D)`) and dims in `dim`
values are not references in the facts; they are found in the syntax tree and kept only
where the checker's scope binds the name (the axis entries of the function's facts, the
module's symbols).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.declarations.symbols import ItemFacts, Symbol
from shapescript.check.program import Checked
from shapescript.records import record, replace
from shapescript.syntax import ast
from shapescript.syntax.source import Span


@record(frozen=True)
class Spot:
    """A name written at `span` (absolute) that means `symbol`."""

    span: Span
    symbol: Symbol


def _written(text: str, span: Span, name: str) -> bool:
    return text[span.start : span.end] == name


def written_names(node) -> Iterator[tuple[str, Span]]:
    """The size and pattern names inside a node, with the span of the name alone."""
    for found in walk(node):
        if isinstance(found, (ast.SizeName, ast.PatternName)):
            yield found.name, found.span
        elif isinstance(found, (ast.GroupedSizeAxis, ast.PatternGroupedSize)):
            yield found.name, Span(found.span.end - len(found.name), found.span.end)


def over_names(node) -> Iterator[tuple[str, Span]]:
    """The names given as `over=` arguments inside a node."""
    for found in walk(node):
        if found.__class__ is ast.Arg and found.name == "over":
            value = found.value
            if value.__class__ is ast.Name:
                yield value.name, value.span


def _axis_entries(item: ItemFacts) -> dict[str, list]:
    entries: dict[str, list] = {}
    for facts in item.fact_tables():
        for entry in facts.entries:
            if entry.symbol.kind == "axis":
                entries.setdefault(entry.name, []).append(entry)
    return entries


def _absolute(symbol: Symbol, base: int) -> Symbol:
    return replace(symbol, span=Span(symbol.span.start + base, symbol.span.end + base))


def reference_spots(checked: Checked, item: ItemFacts) -> Iterator[Spot]:
    """The item's references from the facts whose text is the name they resolve to."""
    text = checked.source.text
    for facts in item.fact_tables():
        for reference in facts.references:
            symbol = checked._resolve(reference, item.base)
            if symbol is None:
                continue
            span = Span(reference.span.start + item.base, reference.span.end + item.base)
            if _written(text, span, symbol.name):
                yield Spot(span, symbol)
            elif text[span.start : span.end].endswith("." + symbol.name):
                # Another file's name, written `attention.D`: the spot is the `D`.
                yield Spot(Span(span.end - len(symbol.name), span.end), symbol)


def tree_spots(checked: Checked, item: ItemFacts) -> Iterator[Spot]:
    """Axis and dim names the facts don't hold as references: in signatures, types,
    patterns, `dim` values and shape aliases."""
    text = checked.source.text
    node = item.item
    if isinstance(node, (ast.DimDecl, ast.AliasDecl)):
        body = node.value if isinstance(node, ast.DimDecl) else node.shape
        for name, span in written_names(body):
            symbol = checked.module_symbols.get(name)
            absolute = Span(span.start + item.base, span.end + item.base)
            if symbol is not None and symbol.kind == "dim" and _written(text, absolute, name):
                yield Spot(absolute, symbol)
        return
    if not isinstance(node, (ast.FnDecl, ast.ExternFnDecl)):
        return
    axes = _axis_entries(item)
    for name, span in itertools.chain(written_names(node), over_names(node)):
        absolute = Span(span.start + item.base, span.end + item.base)
        if not _written(text, absolute, name):
            continue
        bound = [
            entry
            for entry in axes.get(name, ())
            if entry.visible_from <= span.start
            and entry.scope.start <= span.start
            and span.end <= entry.scope.end
        ]
        if bound:
            yield Spot(absolute, _absolute(bound[-1].symbol, item.base))
            continue
        symbol = checked.module_symbols.get(name)
        if symbol is not None and symbol.kind in ("dim", "alias"):
            yield Spot(absolute, symbol)


def body_start_of(item: ItemFacts) -> int | None:
    """Where a function's body starts (absolute; an extern fn has none, so its end), or
    None for an item that isn't a function. Axes bound before it are generic."""
    node = item.item
    if isinstance(node, ast.ExternFnDecl):
        return item.span.end
    if not isinstance(node, ast.FnDecl):
        return None
    if node.expr_body is not None:
        return item.base + node.expr_body.span.start
    if node.body:
        return item.base + node.body[0].span.start
    return item.span.end


def spots(checked: Checked, item: ItemFacts) -> list[Spot]:
    """Every name the item writes with what it means, one per span, facts first."""
    found: dict[Span, Spot] = {}
    for spot in reference_spots(checked, item):
        found.setdefault(spot.span, spot)
    for spot in tree_spots(checked, item):
        found.setdefault(spot.span, spot)
    return list(found.values())


def all_spots(checked: Checked) -> list[Spot]:
    """Every name the file writes with what it means, in order."""
    found: list[Spot] = []
    for item in checked.items:
        found.extend(spots(checked, item))
    found.sort(key=lambda spot: spot.span.start)
    return found


def spot_at(checked: Checked, offset: int) -> Spot | None:
    """The name at the offset and what it means, or None."""
    for item in checked.items_at(offset):
        for spot in spots(checked, item):
            if spot.span.start <= offset <= spot.span.end:
                return spot
    for symbol in checked.module_symbols.values():
        if symbol.span.start <= offset <= symbol.span.end:
            return Spot(symbol.span, symbol)
    return None
