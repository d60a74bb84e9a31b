"""Completion inside the pattern of `rearrange`, `reduce`, `repeat`, `split` and `einsum`.

A pattern holds axis names only, so the list offers names and nothing else (no domains,
functions or keywords): on an input side, the axes of the operand that side describes,
then the names the pattern has already written and the file's dims; after `->`, the
names written on the input sides that the output doesn't have yet, then the rest. A name
already written on the side being typed is left out, since a side names an axis once.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from shapescript.check.algebra.types import TensorType, Type, format_type
from shapescript.check.program import Checked
from shapescript_lsp.features.signature_help import CallSite

#: The built-ins whose pattern argument is written as it is.
PATTERN_CALLS = frozenset({"rearrange", "reduce", "repeat", "einsum", "split"})
_NAME = re.compile(r"(?<![\w?])[^\W\d]\w*")
_PLAIN_NAME = re.compile(r"[^\W\d]\w*")


@dataclass(frozen=True, slots=True)
class PatternName:
    """A name offered in a pattern: its label, what it is, and its place in the list."""

    label: str
    detail: str
    rank: int
    order: int


def written_pattern(site: CallSite, text: str, end: int) -> tuple[list[str], str] | None:
    """When `end` is inside the call's pattern: the operands written in the call (einsum's,
    before its colon; none for the others) and the pattern's text up to `end`; else None."""
    if site.callee not in PATTERN_CALLS or site.current_keyword is not None:
        return None
    inside = text[site.open_paren + 1 : end]
    depth = 0
    commas: list[int] = []
    for index, char in enumerate(inside):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif depth == 0 and char == ":" and site.callee == "einsum":
            bounds = [-1, *commas, index]
            operands = [inside[a + 1 : b].strip() for a, b in itertools.pairwise(bounds)]
            return operands, inside[index + 1 :]
        elif depth == 0 and char == ",":
            commas.append(index)
    if site.callee == "einsum" or len(commas) != (0 if site.piped else 1):
        return None
    return [], inside[commas[-1] + 1 :] if commas else inside


def pattern_names(
    checked: Checked | None,
    site: CallSite,
    operands: list[str],
    pattern: str,
    operand_type: Callable[[], Type | None],
) -> list[PatternName]:
    """The names to offer at the end of `pattern` (the prefix being typed left out);
    `operand_type` gives the type of the call's one operand (or the piped one)."""
    arrow = pattern.rfind("->")
    inputs = pattern if arrow < 0 else pattern[:arrow]
    sides = inputs.split(",")
    output = None if arrow < 0 else pattern[arrow + 2 :]
    input_names = _unique(name for side in sides for name in _NAME.findall(side))
    found: dict[str, PatternName] = {}

    def offer(name: str, detail: str, rank: int) -> None:
        if name not in found:
            found[name] = PatternName(name, detail, rank, len(found))

    if output is not None:
        taken = set(_NAME.findall(output))
        for name in input_names:
            if name not in taken:
                offer(name, "named on the input side", 0)
        _dims(checked, offer, taken)
        return list(found.values())
    current = set(_NAME.findall(sides[-1]))
    operand = _operand_of_side(checked, site, operands, len(sides) - 1, operand_type)
    if isinstance(operand, TensorType) and operand.axes is not None:
        for axis in operand.axes:
            if axis.name and axis.name not in current:
                offer(axis.name, f"axis of {format_type(operand)}", 0)
    for name in input_names:
        if name not in current:
            offer(name, "written in the pattern", 1)
    _dims(checked, offer, current)
    return list(found.values())


def _dims(checked: Checked | None, offer, taken: set[str]) -> None:
    if checked is None:
        return
    for name, value in checked.dim_values.items():
        if name not in taken:
            offer(name, f"dim {name} = {value}", 2)


def _operand_of_side(
    checked: Checked | None,
    site: CallSite,
    parts: list[str],
    side: int,
    operand_type: Callable[[], Type | None],
) -> Type | None:
    """The type of the operand an input side describes: einsum's `side`-th operand (the
    piped value first when piped), the one operand of the other calls."""
    if site.callee != "einsum" or checked is None:
        return operand_type()
    if site.piped:
        if side == 0:
            return operand_type()
        side -= 1
    if side >= len(parts):
        return None
    part = parts[side]
    if _PLAIN_NAME.fullmatch(part):
        found = checked.names_in_scope(site.open_paren).get(part)
        return found[1] if found is not None else None
    return None


def _unique(names) -> list[str]:
    return list(dict.fromkeys(names))
