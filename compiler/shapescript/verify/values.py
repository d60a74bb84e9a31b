"""Values of the reference run and how one op's error is measured."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Elements smaller than this fraction of an output's largest magnitude are judged by
#: their absolute error only: a relative error of a value near 0 says nothing.
RELATIVE_FLOOR = 1e-3


class Unsupported(Exception):
    """An operation the reference run can't compute exactly, with its line."""

    def __init__(self, what: str, line: int) -> None:
        super().__init__(f"line {line}: {what} isn't supported by the exact reference run")
        self.what = what
        self.line = line


class AssertFailed(Exception):
    """An `assert` of the function that the drawn inputs break: nothing to compare."""

    def __init__(self, text: str, line: int) -> None:
        super().__init__(
            f"line {line}: `assert {text}` fails for the drawn inputs: give sizes for which "
            "it holds (--dims)"
        )
        self.line = line


@dataclass
class ModelValue:
    """A model's params (and nested models) by name."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass
class ModeValue:
    """`Eval()` (seed None) or `Train(seed=s)` written in the body."""

    seed: int | None = None


@dataclass
class Worst:
    """The largest relative and absolute error of one array against the exact one."""

    relative: float = 0.0
    relative_at: tuple[int, ...] = ()
    absolute: float = 0.0
    absolute_at: tuple[int, ...] = ()
    #: Elements that are finite exactly but not in the float result (overflow, NaN).
    not_finite: int = 0


def as_floats(value: Any) -> np.ndarray:
    """An array (of mpf, floats, ints or bools) as float64, infinities kept."""
    data = np.asarray(value)
    if data.dtype == object:
        return np.array([float(item) for item in data.reshape(-1)], dtype=np.float64).reshape(
            data.shape
        )
    return data.astype(np.float64)


def compare(approximate: Any, exact: Any) -> Worst:
    """How far `approximate` is from `exact`, elementwise."""
    want = as_floats(exact)
    got = as_floats(approximate).reshape(want.shape)
    worst = Worst()
    finite = np.isfinite(want)
    broken = finite & ~np.isfinite(got)
    worst.not_finite = int(broken.sum())
    if broken.any():
        first = tuple(int(i) for i in np.argwhere(broken)[0])
        worst.relative = worst.absolute = float("inf")
        worst.relative_at = worst.absolute_at = first
        return worst
    same = (got == want) | (~finite & (got == want))
    difference = np.where(same | ~finite, 0.0, np.abs(got - want))
    if difference.size == 0:
        return worst
    index = np.unravel_index(int(np.argmax(difference)), difference.shape)
    worst.absolute, worst.absolute_at = float(difference[index]), tuple(int(i) for i in index)
    magnitude = np.where(finite, np.abs(want), 0.0)
    largest = float(magnitude.max()) if magnitude.size else 0.0
    counted = magnitude >= RELATIVE_FLOOR * largest
    counted &= magnitude > 0
    relative = np.where(counted, difference / np.where(counted, magnitude, 1.0), 0.0)
    index = np.unravel_index(int(np.argmax(relative)), relative.shape)
    worst.relative, worst.relative_at = float(relative[index]), tuple(int(i) for i in index)
    return worst
