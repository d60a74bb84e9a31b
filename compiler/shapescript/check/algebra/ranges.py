"""Value ranges: intervals with open or closed ends, rounded outward to f32.

The checker keeps one interval per numeric value and pushes it through arithmetic and
the functions whose math it knows, so that most range domains are inferred rather than
written: `sigmoid(x)` is Unit, `sigmoid(x) * 2 - 1` is Signed.
"""

from __future__ import annotations

import math
import struct

from shapescript.records import record

INF = math.inf
_F32 = struct.Struct("<f")
_F32_BITS = struct.Struct("<I")
#: The largest finite f32; numbers past it round outward to infinity.
F32_MAX = _F32.unpack(_F32_BITS.pack(0x7F7FFFFF))[0]
#: The smallest positive f32 (a subnormal).
_F32_TINY = _F32.unpack(_F32_BITS.pack(1))[0]


def _f32(value: float) -> float:
    """`value` rounded to the nearest f32 (it must be within ±F32_MAX)."""
    return _F32.unpack(_F32.pack(value))[0]


def _f32_next(single: float, upward: bool) -> float:
    """The f32 next to the f32 `single`, toward +inf or -inf."""
    if single == 0:
        return _F32_TINY if upward else -_F32_TINY
    bits = _F32_BITS.unpack(_F32.pack(single))[0]
    bits += 1 if (single > 0) == upward else -1
    return _F32.unpack(_F32_BITS.pack(bits))[0]


def _down(value: float) -> float:
    """The largest f32 at or below `value`."""
    if math.isinf(value) or value == 0 or value != value:
        return value
    if value > F32_MAX:
        return F32_MAX
    if value < -F32_MAX:
        return -INF
    single = _f32(value)
    return single if single <= value else _f32_next(single, upward=False)


def _up(value: float) -> float:
    if math.isinf(value) or value == 0 or value != value:
        return value
    if value > F32_MAX:
        return INF
    if value < -F32_MAX:
        return -F32_MAX
    single = _f32(value)
    return single if single >= value else _f32_next(single, upward=True)


@record(frozen=True)
class Interval:
    """[lo, hi] with each end open or closed; an infinite end is always open."""

    lo: float
    hi: float
    lo_closed: bool = True
    hi_closed: bool = True

    @staticmethod
    def make(lo: float, hi: float, lo_closed: bool = True, hi_closed: bool = True) -> Interval:
        return Interval(
            _down(lo), _up(hi), lo_closed and not math.isinf(lo), hi_closed and not math.isinf(hi)
        )

    @staticmethod
    def point(value: float) -> Interval:
        return Interval.make(value, value)

    def normalized(self) -> Interval:
        """The same interval with its infinite ends open, as they always are."""
        return Interval(
            self.lo,
            self.hi,
            self.lo_closed and not math.isinf(self.lo),
            self.hi_closed and not math.isinf(self.hi),
        )

    def contains(self, other: Interval) -> bool:
        """Whether every value of `other` is in this interval."""
        low_ok = other.lo > self.lo or (
            other.lo == self.lo and (self.lo_closed or not other.lo_closed)
        )
        high_ok = other.hi < self.hi or (
            other.hi == self.hi and (self.hi_closed or not other.hi_closed)
        )
        return low_ok and high_ok

    def holds(self, value: float) -> bool:
        above = value > self.lo or (value == self.lo and self.lo_closed)
        below = value < self.hi or (value == self.hi and self.hi_closed)
        return above and below

    def meets(self, other: Interval) -> bool:
        """Whether the two intervals share a value."""
        if self.hi < other.lo or other.hi < self.lo:
            return False
        if self.hi == other.lo:
            return self.hi_closed and other.lo_closed
        if other.hi == self.lo:
            return other.hi_closed and self.lo_closed
        return True

    def hull(self, other: Interval) -> Interval:
        lo, lo_closed = min((self.lo, not self.lo_closed), (other.lo, not other.lo_closed))
        hi, hi_open = max((self.hi, self.hi_closed), (other.hi, other.hi_closed))
        return Interval(lo, hi, not lo_closed, hi_open)

    def intersect(self, other: Interval) -> Interval:
        lo, lo_open = max((self.lo, not self.lo_closed), (other.lo, not other.lo_closed))
        hi, hi_closed = min((self.hi, self.hi_closed), (other.hi, other.hi_closed))
        return Interval(lo, hi, not lo_open, hi_closed)

    def __str__(self) -> str:
        left = "[" if self.lo_closed else "("
        right = "]" if self.hi_closed else ")"
        return f"{left}{_number(self.lo)}, {_number(self.hi)}{right}"


def _number(value: float) -> str:
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"


REAL = Interval(-INF, INF, False, False)
NAMED_RANGES = {
    "NonNeg": Interval(0.0, INF, True, False),
    "Pos": Interval(0.0, INF, False, False),
    "Unit": Interval(0.0, 1.0),
    "Signed": Interval(-1.0, 1.0),
}
PROB = NAMED_RANGES["Unit"]
LOG_PROB = Interval(-INF, 0.0, False, True)


def name_of(interval: Interval, user: dict[str, Interval] | None = None) -> str | None:
    for name, known in NAMED_RANGES.items():
        if known == interval:
            return name
    for name, known in (user or {}).items():
        if known == interval:
            return name
    return None


# ---------------------------------------------------------------------- arithmetic


def _corners(a: Interval, b: Interval, op) -> Interval:
    """The image of a binary operation monotone in each argument, from its four corners;
    an end is closed when a corner made of closed ends reaches it."""
    corners = []
    for x, x_closed in ((a.lo, a.lo_closed), (a.hi, a.hi_closed)):
        for y, y_closed in ((b.lo, b.lo_closed), (b.hi, b.hi_closed)):
            try:
                value = op(x, y)
            except (ZeroDivisionError, OverflowError):
                return REAL
            if math.isnan(value):
                return REAL
            corners.append((value, x_closed and y_closed))
    lo = min(value for value, _ in corners)
    hi = max(value for value, _ in corners)
    lo_closed = any(closed for value, closed in corners if value == lo)
    hi_closed = any(closed for value, closed in corners if value == hi)
    return Interval.make(lo, hi, lo_closed, hi_closed)


def add(a: Interval, b: Interval) -> Interval:
    return Interval.make(
        a.lo + b.lo if not (math.isinf(a.lo) and math.isinf(b.lo) and a.lo != b.lo) else -INF,
        a.hi + b.hi if not (math.isinf(a.hi) and math.isinf(b.hi) and a.hi != b.hi) else INF,
        a.lo_closed and b.lo_closed,
        a.hi_closed and b.hi_closed,
    )


def neg(a: Interval) -> Interval:
    return Interval(-a.hi, -a.lo, a.hi_closed, a.lo_closed)


def sub(a: Interval, b: Interval) -> Interval:
    return add(a, neg(b))


def mul(a: Interval, b: Interval) -> Interval:
    def product(x: float, y: float) -> float:
        if (x == 0 and math.isinf(y)) or (y == 0 and math.isinf(x)):
            return 0.0
        return x * y

    zero = Interval.point(0.0)
    if a == zero or b == zero:
        return zero
    return _corners(a, b, product)


def div(a: Interval, b: Interval) -> Interval:
    if b.holds(0.0) or (b.lo <= 0 <= b.hi):
        return REAL
    return mul(a, Interval(1 / b.hi if b.hi else INF, 1 / b.lo if b.lo else INF))


def abs_(a: Interval) -> Interval:
    if a.lo >= 0:
        return a
    if a.hi <= 0:
        return neg(a)
    return Interval(0.0, max(-a.lo, a.hi), True, a.hi_closed if a.hi >= -a.lo else a.lo_closed)


def relu(a: Interval) -> Interval:
    if a.lo >= 0:
        return a
    if a.hi <= 0:
        return Interval.point(0.0)
    return Interval(0.0, a.hi, True, a.hi_closed)


def clamp(a: Interval, lo: float | None, hi: float | None) -> Interval:
    result = a
    if lo is not None:
        result = Interval(max(result.lo, lo), max(result.hi, lo), True, result.hi_closed)
    if hi is not None:
        result = Interval(min(result.lo, hi), min(result.hi, hi), result.lo_closed, True)
    return result


def square(a: Interval) -> Interval:
    magnitude = abs_(a)
    return mul(magnitude, magnitude)


def monotone(a: Interval, function, lo_limit: float = -INF, hi_limit: float = INF) -> Interval:
    """The image of an increasing function, evaluated at the ends."""

    def at(value: float) -> float:
        try:
            return function(value)
        except (OverflowError, ValueError):
            return INF if value > 0 else -INF

    # f32 saturates: a finite limit at an infinite end is reached, so that end is closed.
    lo = at(a.lo) if not math.isinf(a.lo) else lo_limit
    hi = at(a.hi) if not math.isinf(a.hi) else hi_limit
    lo_closed = a.lo_closed or (math.isinf(a.lo) and not math.isinf(lo))
    hi_closed = a.hi_closed or (math.isinf(a.hi) and not math.isinf(hi))
    return Interval.make(lo, hi, lo_closed, hi_closed)


def _sigmoid(value: float) -> float:
    return 1 / (1 + math.exp(-value)) if value > -700 else 0.0


#: The math the checker knows, by Python name: the range of f(x) for x in a range.
KNOWN_FUNCTIONS = {
    "torch.exp": lambda a: monotone(a, math.exp, 0.0, INF).intersect(NAMED_RANGES["NonNeg"]),
    "torch.expm1": lambda a: monotone(a, math.expm1, -1.0, INF),
    "torch.log": lambda a: monotone(a, math.log) if a.lo > 0 else REAL,
    "torch.log1p": lambda a: monotone(a, math.log1p) if a.lo > -1 else REAL,
    "torch.sqrt": lambda a: monotone(a, math.sqrt, 0.0, INF) if a.lo >= 0 else REAL,
    "torch.rsqrt": lambda a: neg(monotone(a, lambda v: -1 / math.sqrt(v))) if a.lo > 0 else REAL,
    "torch.sin": lambda a: NAMED_RANGES["Signed"],
    "torch.cos": lambda a: NAMED_RANGES["Signed"],
    "torch.tanh": lambda a: monotone(a, math.tanh, -1.0, 1.0),
    "torch.sigmoid": lambda a: monotone(a, _sigmoid, 0.0, 1.0),
    "torch.erf": lambda a: monotone(a, math.erf, -1.0, 1.0),
    "torch.nn.functional.gelu": lambda a: Interval.make(-0.17, a.hi if a.hi > 0 else 0.0),
    "torch.nn.functional.silu": lambda a: Interval.make(-0.28, a.hi if a.hi > 0 else 0.0),
    "torch.nn.functional.softplus": lambda a: monotone(
        a, lambda v: math.log1p(math.exp(v)) if v < 30 else v, 0.0, INF
    ),
    "torch.nn.functional.logsigmoid": lambda a: monotone(
        a, lambda v: -math.log1p(math.exp(-v)) if v > -30 else v, -INF, 0.0
    ),
}

#: Where partial functions are undefined: the edge and whether the edge itself is allowed.
EDGES = {
    "torch.log": (0.0, False),
    "torch.log1p": (-1.0, False),
    "torch.rsqrt": (0.0, False),
    "torch.sqrt": (0.0, True),
}


def whole(a: Interval) -> Interval:
    """floor, ceil and round give whole ends."""
    return Interval.make(
        math.floor(a.lo) if not math.isinf(a.lo) else a.lo,
        math.ceil(a.hi) if not math.isinf(a.hi) else a.hi,
    )


def sign_only(a: Interval) -> Interval:
    """What sum, prod and cumulative sums keep: only the sign."""
    if a.lo >= 0:
        return NAMED_RANGES["NonNeg"]
    if a.hi <= 0:
        return Interval(-INF, 0.0, False, True)
    return REAL


def mean_of(a: Interval) -> Interval:
    """mean keeps ends of -1, 0 and 1 and widens the others slightly."""

    def widen(value: float, down: bool) -> float:
        if value in (-1.0, 0.0, 1.0) or math.isinf(value):
            return value
        return _down(value - abs(value) * 1e-6) if down else _up(value + abs(value) * 1e-6)

    return Interval(widen(a.lo, True), widen(a.hi, False), a.lo_closed, a.hi_closed)
