"""Broadcasting by name (the order rule) and matrix multiplication, on axes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.solver import sizes_equal
from shapescript.check.algebra.types import Axis, axis_text, format_shape
from shapescript.records import record


@record
class ShapeError(Exception):
    """Axes that don't line up: the code, a message and notes saying which axis and why."""

    code: str
    message: str
    notes: list[str]


def _is_one(size: Poly, dims: Mapping[str, Poly]) -> bool:
    return size.substitute(dims).value == 1


def _names_within(a: tuple[Axis, ...], b: tuple[Axis, ...]) -> bool:
    """Every axis of `a` has a name, and each name occurs in `b` at least as often."""
    if any(axis.name is None for axis in a):
        return False
    need = Counter(axis.name for axis in a)
    have = Counter(axis.name for axis in b if axis.name is not None)
    return all(have[name] >= count for name, count in need.items())


def _by_name(
    small: tuple[Axis, ...], big: tuple[Axis, ...], dims: Mapping[str, Poly]
) -> tuple[Axis, ...]:
    """Line `small`'s axes up with `big`'s by name; the result has `big`'s axes."""
    seen: Counter[str] = Counter()
    positions: dict[tuple[str, int], int] = {}
    for index, axis in enumerate(big):
        if axis.name is not None:
            positions[(axis.name, seen[axis.name])] = index
            seen[axis.name] += 1
    seen.clear()
    for axis in small:
        occurrence = seen[axis.name]
        seen[axis.name] += 1
        other = big[positions[(axis.name, occurrence)]]
        if not sizes_equal(axis.size, other.size, dims):
            raise ShapeError(
                "E0401",
                f"the sizes of axis `{axis.name}` don't match",
                [f"axis `{axis.name}`: {axis.size} is not known to equal {other.size}"],
            )
    return big


def broadcast(
    left: tuple[Axis, ...], right: tuple[Axis, ...], dims: Mapping[str, Poly]
) -> tuple[Axis, ...]:
    """The result axes of an elementwise operation on the two operands (order rule)."""
    if not left:
        return right
    if not right:
        return left
    if _names_within(left, right):
        if _names_within(right, left):
            return _by_name(right, left, dims)
        return _by_name(left, right, dims)
    if _names_within(right, left):
        return _by_name(right, left, dims)
    return from_the_right(left, right, dims)


def positions_in(operand: tuple[Axis, ...], result: tuple[Axis, ...]) -> tuple[int, ...] | None:
    """Where each axis of an operand of an elementwise operation goes in its result.

    None when the operand lines up from the right as it is (torch's own broadcasting); a
    tuple of result positions when the order rule lined it up by name elsewhere.
    """
    count = len(operand)
    if count == 0:
        return None
    if count == len(result):
        # The same names in the same order (the common case): each axis stays in place.
        for mine, theirs in zip(operand, result, strict=True):
            if mine.name is None or mine.name != theirs.name:
                break
        else:
            return None
    if not _names_within(operand, result):
        return None
    seen: Counter[str] = Counter()
    places: dict[tuple[str, int], int] = {}
    for index, axis in enumerate(result):
        if axis.name is not None:
            places[(axis.name, seen[axis.name])] = index
            seen[axis.name] += 1
    seen.clear()
    positions = []
    for axis in operand:
        positions.append(places[(axis.name, seen[axis.name])])
        seen[axis.name] += 1
    start = len(result) - count
    if positions == list(range(start, len(result))):
        return None
    return tuple(positions)


def from_the_right(
    left: tuple[Axis, ...], right: tuple[Axis, ...], dims: Mapping[str, Poly]
) -> tuple[Axis, ...]:
    result: list[Axis] = []
    longer = left if len(left) >= len(right) else right
    for offset in range(1, min(len(left), len(right)) + 1):
        a = left[-offset]
        b = right[-offset]
        if a.name is not None and b.name is not None and a.name != b.name:
            raise ShapeError(
                "E0404",
                f"axes `{a.name}` and `{b.name}` meet when lined up from the right",
                [
                    f"{format_shape(left)} and {format_shape(right)} don't have all of each "
                    "other's names, so they line up from the right",
                ],
            )
        if sizes_equal(a.size, b.size, dims):
            result.append(a if a.name is not None else b)
        elif _is_one(a.size, dims):
            result.append(b)
        elif _is_one(b.size, dims):
            result.append(a)
        else:
            raise ShapeError(
                "E0401",
                "the operands' sizes don't match",
                [
                    f"axis {axis_text(a)} of {format_shape(left)}: {a.size} is not known to "
                    f"equal {b.size} (axis {axis_text(b)} of {format_shape(right)})"
                ],
            )
    result.reverse()
    extra = longer[: len(longer) - min(len(left), len(right))]
    return tuple(extra) + tuple(result)


def matmul(
    left: tuple[Axis, ...], right: tuple[Axis, ...], dims: Mapping[str, Poly]
) -> tuple[Axis, ...]:
    """torch.matmul's result axes, with contracted sizes and batch axes checked."""
    if not left or not right:
        raise ShapeError(
            "E0403",
            "`@` needs tensors with at least one axis",
            [f"got {format_shape(left)} and {format_shape(right)}"],
        )
    contracted_left = left[-1]
    contracted_right = right[-2] if len(right) >= 2 else right[0]
    if not sizes_equal(contracted_left.size, contracted_right.size, dims):
        raise ShapeError(
            "E0401",
            "the contracted axes of `@` have different sizes",
            [
                f"the last axis of {format_shape(left)} ({contracted_left.size}) is not known "
                f"to equal the {'second-to-last' if len(right) >= 2 else 'only'} axis of "
                f"{format_shape(right)} ({contracted_right.size})"
            ],
        )
    if len(right) == 1:
        return left[:-1]
    if len(left) == 1:
        return right[:-2] + right[-1:]
    batch = broadcast(left[:-2], right[:-2], dims)
    return batch + (left[-2], right[-1])
