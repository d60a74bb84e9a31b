"""Numbers as the pictures write them: with the digits the values need.

One number alone takes three significant digits (`significant`); the numbers of one grid
share a power of ten, written once beside its range, and then as many decimals as its
largest value needs for three significant digits (`grid_labels`). A minus sign is `−`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from shapescript.records import record

MINUS = "−"
#: Digits a number keeps.
DIGITS = 3
#: The largest magnitude below which values are written without a power of ten, and the
#: smallest: 0.1 to 999 read well as they are.
PLAIN_BELOW, PLAIN_FROM = 1000.0, 0.1
#: Whole numbers are written whole up to this size.
WHOLE_BELOW = 100_000
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _minus(text: str) -> str:
    return text.replace("-", MINUS)


def _not_finite(value: float) -> str | None:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else f"{MINUS}∞"
    return None


def _exponent(value: float, digits: int = DIGITS) -> int:
    """The power of ten of a nonzero number's leading digit, once rounded to `digits`."""
    return int(f"{value:.{digits - 1}e}".split("e")[1])


def power_text(exponent: int) -> str:
    """×10 to a power, in superscript digits: ×10⁻³."""
    return "×10" + str(exponent).translate(_SUPERSCRIPT)


def significant(value: float, digits: int = DIGITS) -> str:
    """One number to `digits` significant digits, without trailing zeros: 0.00412, 3.87,
    12300; beyond 10⁻³ … 10⁶ as 4.1×10⁻⁷."""
    special = _not_finite(value)
    if special is not None:
        return special
    if value == 0:
        return "0"
    exponent = _exponent(value, digits)
    value = float(f"{value:.{digits - 1}e}")
    if -3 <= exponent < 6:
        decimals = max(0, digits - 1 - exponent)
        text = f"{value:.{decimals}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return _minus(text)
    mantissa = f"{value:.{digits - 1}e}".split("e")[0]
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return _minus(mantissa) + power_text(exponent)


@record(frozen=True)
class GridLabels:
    """How the numbers of one grid are written: each divided by 10^`exponent` (said once,
    by `factor`), with `decimals` decimals."""

    exponent: int = 0
    decimals: int = 0

    @property
    def factor(self) -> str:
        """The power of ten every number of the grid is in, or "" when there is none."""
        return power_text(self.exponent) if self.exponent else ""

    def cell(self, value: float) -> str:
        """A value as a cell writes it, in the grid's power of ten."""
        special = _not_finite(value)
        if special is not None:
            return special
        text = f"{value / 10.0**self.exponent:.{self.decimals}f}"
        if text.lstrip("-").strip("0.") == "":
            # Rounded away to nothing: no sign on a zero.
            text = text.lstrip("-")
        return _minus(text)

    def range(self, low: float, high: float) -> str:
        """`low … high`, and the power of ten they share when there is one."""
        shown = f"{self.cell(low)} … {self.cell(high)}"
        return f"{shown}, all {self.factor}" if self.factor else shown


def grid_labels(values: Iterable[float], digits: int = DIGITS) -> GridLabels:
    """The labels of a grid holding `values`: its largest magnitude gets `digits`
    significant digits; tiny or huge grids share a power of ten, a multiple of 3."""
    finite = [value for value in values if math.isfinite(value)]
    largest = max((abs(value) for value in finite), default=0.0)
    if largest == 0 or (largest < WHOLE_BELOW and all(value == int(value) for value in finite)):
        return GridLabels()
    leading = _exponent(largest, digits)
    exponent = 0
    if not PLAIN_FROM <= largest < PLAIN_BELOW or leading >= 3:
        exponent = 3 * math.floor(leading / 3)
    return GridLabels(exponent, max(0, digits - 1 - (leading - exponent)))
