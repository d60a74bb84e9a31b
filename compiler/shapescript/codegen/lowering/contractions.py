"""Two-operand einsums that are (batched) matrix products, compiled to `@` on views.

An einsum's axes fall into four groups: batch axes (in both operands and the result),
contracted axes (in both operands, not the result), and each operand's free axes (in
that operand and the result). When every axis is in one of them, the einsum is a
matmul: each operand is permuted to `batch.. free contracted` and `batch.. contracted
free`, a group of several axes is flattened into one, and the product is unflattened and
permuted to the result's order. Permutes, `.mT`, `unsqueeze`, `squeeze` and `unflatten`
are views; a group is flattened only where its axes are side by side and in order in the
operand, where `flatten` is a view of a contiguous operand too. An einsum of two
operands that sums nothing is a product of broadcast views. Anything else (an axis
summed in one operand only, a repeated axis, one or three operands) stays an einsum.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from shapescript.codegen.sizes import pattern_name_size
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator

EINSUM_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: What the line of a lowered einsum says: a matmul, or a product with nothing summed.
LABEL = "einsum as matmul"
PRODUCT_LABEL = "einsum as product"

#: The size expression of an operand's axis (operand index, axis position), or None.
SizeOf = Callable[[int, int], "str | None"]


def contraction(gen: FunctionGenerator, pattern: ast.Pattern, operands: list[str]) -> str:
    """An einsum as torch code: `@` on views where it is a matmul, else torch.einsum."""
    sides = [_names(gen, side) for side in pattern.inputs]
    output = _names(gen, pattern.output)
    entries = [side.axes for side in pattern.inputs]

    def size_of(operand: int, position: int) -> str | None:
        entry = entries[operand][position]
        assert isinstance(entry, ast.PatternName)
        return pattern_name_size(gen, entry)

    lowered = matmul_form(sides, output, operands, size_of)
    if lowered is not None and gen.lowers(LABEL):
        return lowered
    lowered = product_form(sides, output, operands)
    if lowered is not None and gen.lowers(PRODUCT_LABEL):
        return lowered
    return einsum_call(sides, output, operands)


def einsum_call(sides: Sequence[Sequence[str]], output: Sequence[str], operands: list[str]) -> str:
    """torch.einsum of the operands, its axes named by letters in order of appearance."""
    letters: dict[str, str] = {}
    for name in [*(name for side in sides for name in side), *output]:
        letters.setdefault(name, EINSUM_LETTERS[len(letters)])
    inputs = ",".join("".join(letters[name] for name in side) for side in sides)
    equation = f"{inputs}->{''.join(letters[name] for name in output)}"
    return f"_ss_torch.einsum({equation!r}, {', '.join(operands)})"


def _names(gen: FunctionGenerator, side: ast.PatternSide) -> list[str]:
    names = []
    for entry in side.axes:
        if not isinstance(entry, ast.PatternName):
            raise gen.unsupported("an einsum pattern with groups or numbers", entry.span)
        names.append(entry.name)
    return names


def matmul_form(
    sides: Sequence[Sequence[str]],
    output: Sequence[str],
    operands: Sequence[str],
    size_of: SizeOf,
) -> str | None:
    """The einsum `sides -> output` of `operands` as a matmul of views, or None when it
    isn't one (or a group to unflatten has more than one size unknown here)."""
    if len(sides) != 2:
        return None
    first, second = list(sides[0]), list(sides[1])
    names = [*first, *second, *output]
    if any(len(set(axes)) != len(axes) for axes in (first, second, output)):
        return None
    if set(output) - set(first) - set(second) or not set(names) <= set(output) | (
        set(first) & set(second)
    ):
        # An axis only the result has, or one summed in a single operand.
        return None
    batch = [name for name in output if name in first and name in second]
    if not any(name not in output for name in first if name in second):
        return None
    left, right = 0, 1
    free_first = [name for name in first if name not in second]
    free_second = [name for name in second if name not in first]
    if not batch and len(free_first) <= 1 < len(free_second):
        # The operand with many free axes goes left, where they stay leading axes.
        left, right = 1, 0
    return _product(sides, output, operands, size_of, left, right, batch)


def product_form(
    sides: Sequence[Sequence[str]], output: Sequence[str], operands: Sequence[str]
) -> str | None:
    """An einsum of two operands that sums nothing (an outer product, say) as `*` of
    their views, each permuted to the result's order with an axis of 1 for each of the
    other's; None for any other einsum."""
    if len(sides) != 2 or any(len(set(axes)) != len(axes) for axes in (*sides, output)):
        return None
    if set(output) != set(sides[0]) | set(sides[1]):
        return None
    factors = []
    for axes, operand in zip(sides, operands, strict=True):
        order = [name for name in output if name in axes]
        value = _arranged(operand, list(axes), order)
        first = output.index(order[0]) if order else len(output)
        places = [":" if name in axes else "None" for name in output[first:]]
        if "None" in places:
            value = f"{value}[{', '.join(places)}]"
        factors.append(value)
    return f"({factors[0]} * {factors[1]})"


def _product(
    sides: Sequence[Sequence[str]],
    output: Sequence[str],
    operands: Sequence[str],
    size_of: SizeOf,
    left: int,
    right: int,
    batch: list[str],
) -> str | None:
    left_axes, right_axes = list(sides[left]), list(sides[right])
    contracted = [name for name in left_axes if name in right_axes and name not in output]
    left_free = [name for name in left_axes if name not in right_axes]
    right_free = [name for name in right_axes if name not in left_axes]
    # Without batch axes, the right operand is a matrix, and torch broadcasts it over the
    # left's leading free axes; with them, the left's free axes are one group.
    leading = [] if batch else left_free[:-1]
    rows = left_free if batch else left_free[-1:]
    if not all(
        _in_order(axes, group)
        for axes, group in (
            (left_axes, contracted),
            (right_axes, contracted),
            (left_axes, rows),
            (right_axes, right_free),
        )
    ):
        return None
    row_sizes = _group_sizes(left, left_axes, rows, size_of)
    column_sizes = _group_sizes(right, right_axes, right_free, size_of)
    if row_sizes is None or column_sizes is None:
        return None
    matrix = _arranged(operands[left], left_axes, [*batch, *leading, *rows, *contracted])
    matrix += _flattened(len(contracted), 0) + _flattened(len(rows), 1)
    if not rows:
        matrix += ".unsqueeze(-2)"
    other = _arranged(operands[right], right_axes, [*batch, *contracted, *right_free])
    other += _flattened(len(right_free), 0) if right_free else ".unsqueeze(-1)"
    other += _flattened(len(contracted), 1)
    product = f"({matrix} @ {other})"
    product += _restored(rows, row_sizes, -2) + _restored(right_free, column_sizes, -1)
    return _arranged(product, [*batch, *leading, *rows, *right_free], list(output))


def _in_order(axes: list[str], group: list[str]) -> bool:
    """Whether a group of several axes is side by side in `axes`, in the group's order."""
    if len(group) <= 1:
        return True
    start = axes.index(group[0])
    return axes[start : start + len(group)] == group


def _group_sizes(
    operand: int, axes: list[str], group: list[str], size_of: SizeOf
) -> list[str] | None:
    """The sizes to unflatten a group of several axes by, one of them -1 at most."""
    if len(group) <= 1:
        return []
    sizes = [size_of(operand, axes.index(name)) for name in group]
    if sizes.count(None) > 1:
        return None
    return [size if size is not None else "-1" for size in sizes]


def _arranged(value: str, axes: list[str], order: list[str]) -> str:
    """`value` with its axes (named by `axes`) permuted into `order`, as a view."""
    permutation = [axes.index(name) for name in order]
    count = len(permutation)
    if permutation == list(range(count)):
        return value
    if permutation == [*range(count - 2), count - 1, count - 2]:
        return f"{value}.mT"
    return f"{value}.permute({', '.join(map(str, permutation))})"


def _flattened(count: int, after: int) -> str:
    """Flatten the group of `count` axes that ends `after` axes before the last."""
    if count <= 1:
        return ""
    end = -1 - after
    return f".flatten({end - count + 1}, {end})"


def _restored(group: list[str], sizes: list[str], dim: int) -> str:
    """Undo what was done to a free group at position `dim` of the product."""
    if not group:
        return f".squeeze({dim})"
    if len(group) == 1:
        return ""
    return f".unflatten({dim}, ({', '.join(sizes)}))"
