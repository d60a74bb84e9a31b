"""Functions of one number as small expression trees: values, slopes, ranges and formulas.

The language server draws activation curves without running Python, so the math of every
elementwise built-in and prelude function is written here in plain Python floats. A tree's
slope is a central difference; its range is the checker's interval arithmetic
(`shapescript.check.algebra.ranges`) over the input's whole domain.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from shapescript.check.algebra import ranges
from shapescript.check.algebra.ranges import INF, REAL, Interval
from shapescript.records import record


@record(frozen=True)
class Var:
    """The input: the function's one tensor parameter."""


@record(frozen=True)
class Num:
    value: float


@record(frozen=True)
class Neg:
    operand: object


@record(frozen=True)
class Not:
    operand: object


@record(frozen=True)
class Bin:
    op: str
    left: object
    right: object


@record(frozen=True)
class Apply:
    """A call of a known elementwise function."""

    name: str
    args: tuple


Tree = Var | Num | Neg | Not | Bin | Apply

_SQRT2 = math.sqrt(2.0)


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _softplus(x: float) -> float:
    return x if x > 20 else math.log1p(math.exp(x))


def _log_sigmoid(x: float) -> float:
    return min(x, 0.0) - math.log1p(math.exp(-abs(x)))


def _round(x: float) -> float:
    return float(round(x))


def _clamp(x: float, lo: float = -INF, hi: float = INF) -> float:
    return min(max(x, lo), hi)


#: name -> (the function of floats, the parameters after x with their defaults)
FUNCTIONS: dict[str, tuple[Callable[..., float], tuple[tuple[str, float | None], ...]]] = {
    "relu": (lambda x: max(x, 0.0), ()),
    "leaky_relu": (lambda x, s: x if x >= 0 else s * x, (("negative_slope", 0.01),)),
    "elu": (lambda x, a: x if x > 0 else a * math.expm1(x), (("alpha", 1.0),)),
    "gelu": (lambda x: 0.5 * x * (1.0 + math.erf(x / _SQRT2)), ()),
    "silu": (lambda x: x * _sigmoid(x), ()),
    "sigmoid": (_sigmoid, ()),
    "tanh": (math.tanh, ()),
    "softplus": (_softplus, ()),
    "log_sigmoid": (_log_sigmoid, ()),
    "exp": (math.exp, ()),
    "log": (math.log, ()),
    "log1p": (math.log1p, ()),
    "expm1": (math.expm1, ()),
    "sqrt": (math.sqrt, ()),
    "rsqrt": (lambda x: 1.0 / math.sqrt(x), ()),
    "sin": (math.sin, ()),
    "cos": (math.cos, ()),
    "erf": (math.erf, ()),
    "abs": (abs, ()),
    "square": (lambda x: x * x, ()),
    "floor": (lambda x: float(math.floor(x)), ()),
    "ceil": (lambda x: float(math.ceil(x)), ()),
    "round": (_round, ()),
    "pow": (lambda x, p: math.pow(x, p), (("p", None),)),
    "clamp": (_clamp, (("lo", -INF), ("hi", INF))),
    "maximum": (max, (("b", None),)),
    "minimum": (min, (("b", None),)),
    "add": (lambda a, b: a + b, (("b", None),)),
    "sub": (lambda a, b: a - b, (("b", None),)),
    "mul": (lambda a, b: a * b, (("b", None),)),
    "div": (lambda a, b: a / b, (("b", None),)),
    "where": (lambda c, a, b: a if c else b, (("a", None), ("b", None))),
}

#: The activations and prelude functions the reference gives a curve when hovered.
ACTIVATIONS = (
    "relu", "leaky_relu", "elu", "gelu", "silu", "sigmoid", "tanh", "softplus", "log_sigmoid",
    "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "erf", "abs", "square",
)  # fmt: skip

#: The formula of each function of one number, `{x}` for its input and `{name}` for a number.
FORMULAS = {
    "relu": "max({x}, 0)",
    "leaky_relu": "{x} if {x} ≥ 0, else {negative_slope} · {x}",
    "elu": "{x} if {x} > 0, else {alpha} · (e^{x} − 1)",
    "gelu": "{x} · Φ({x})",
    "silu": "{x} · σ({x})",
    "sigmoid": "σ({x}) = 1 / (1 + e^−{x})",
    "tanh": "tanh {x}",
    "softplus": "ln(1 + e^{x})",
    "log_sigmoid": "ln σ({x}) = −ln(1 + e^−{x})",
    "exp": "e^{x}",
    "log": "ln {x}",
    "log1p": "ln(1 + {x})",
    "expm1": "e^{x} − 1",
    "sqrt": "√{x}",
    "rsqrt": "1 / √{x}",
    "sin": "sin {x}",
    "cos": "cos {x}",
    "erf": "erf {x}",
    "abs": "|{x}|",
    "square": "{x}²",
    "floor": "⌊{x}⌋",
    "ceil": "⌈{x}⌉",
    "round": "round({x})",
}

_COMPARE = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def evaluate(tree: Tree, x: float) -> float:
    """The tree's value at x; NaN where it is undefined."""
    try:
        return float(_value(tree, x))
    except (ValueError, ZeroDivisionError, OverflowError):
        return math.nan


def _value(tree: Tree, x: float):
    if isinstance(tree, Var):
        return x
    if isinstance(tree, Num):
        return tree.value
    if isinstance(tree, Neg):
        return -_value(tree.operand, x)
    if isinstance(tree, Not):
        return not _value(tree.operand, x)
    if isinstance(tree, Bin):
        a, b = _value(tree.left, x), _value(tree.right, x)
        op = tree.op
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            if b == 0:
                return math.copysign(INF, a) if a else math.nan
            return a / b
        if op == "and":
            return bool(a) and bool(b)
        if op == "or":
            return bool(a) or bool(b)
        return _COMPARE[op](a, b)
    function = FUNCTIONS[tree.name][0]
    return function(*(_value(arg, x) for arg in tree.args))


def slope(tree: Tree, x: float, step: float = 1e-4) -> float:
    """The derivative at x, by a central difference."""
    return (evaluate(tree, x + step) - evaluate(tree, x - step)) / (2 * step)


# ------------------------------------------------------------------------ ranges

_INTERVALS: dict[str, Callable[..., Interval]] = {
    "relu": lambda a: ranges.relu(a),
    "abs": lambda a: ranges.abs_(a),
    "square": lambda a: ranges.square(a),
    "floor": lambda a: ranges.whole(a),
    "ceil": lambda a: ranges.whole(a),
    "round": lambda a: ranges.whole(a),
}
_PYTHON = {
    "exp": "torch.exp",
    "log": "torch.log",
    "log1p": "torch.log1p",
    "expm1": "torch.expm1",
    "sqrt": "torch.sqrt",
    "rsqrt": "torch.rsqrt",
    "sin": "torch.sin",
    "cos": "torch.cos",
    "tanh": "torch.tanh",
    "sigmoid": "torch.sigmoid",
    "erf": "torch.erf",
    "gelu": "torch.nn.functional.gelu",
    "silu": "torch.nn.functional.silu",
    "softplus": "torch.nn.functional.softplus",
    "log_sigmoid": "torch.nn.functional.logsigmoid",
}


def interval(tree: Tree, x: Interval) -> Interval:
    """The range of the tree's values for inputs in x (the whole line when unknown)."""
    try:
        return _interval(tree, x)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError, KeyError):
        return REAL


def _interval(tree: Tree, x: Interval) -> Interval:
    if isinstance(tree, Var):
        return x
    if isinstance(tree, Num):
        return Interval.point(tree.value)
    if isinstance(tree, Neg):
        return ranges.neg(_interval(tree.operand, x))
    if isinstance(tree, Bin):
        if tree.op == "*":
            gated = _self_gated(tree, x)
            if gated is not None:
                return gated
        a, b = _interval(tree.left, x), _interval(tree.right, x)
        operations = {"+": ranges.add, "-": ranges.sub, "*": ranges.mul, "/": ranges.div}
        return operations[tree.op](a, b)
    if isinstance(tree, Apply):
        return _apply_interval(tree, x)
    raise TypeError


#: Functions written out that fall to one minimum and rise again, which interval
#: arithmetic can't see (`x · σ(x)` is a product of (−∞, ∞) and [0, 1]): by the function
#: applied to the gate's argument, where the minimum is and its value, rounded down.
_DIPS: dict[str, tuple[Callable[[float], float], float, float]] = {
    # swish / SiLU, x · σ(x): lowest at x ≈ −1.27846.
    "sigmoid": (lambda v: v * _sigmoid(v), -1.2784645491923023, -0.27846455),
    # mish, x · tanh(softplus(x)): lowest at x ≈ −1.19243.
    "softplus": (lambda v: v * math.tanh(_softplus(v)), -1.1924311818572093, -0.30884342),
}


def _dipping(a: Interval, function: Callable[[float], float], at: float, lowest: float) -> Interval:
    """The range over `a` of a function that falls from 0 (at −∞) to `lowest` at `at`, then
    rises to ∞."""

    def value(v: float) -> float:
        return (0.0 if v < 0 else INF) if math.isinf(v) else function(v)

    lo_end, hi_end = value(a.lo), value(a.hi)
    lo_closed = a.lo_closed and not math.isinf(a.lo)
    hi_closed = a.hi_closed and not math.isinf(a.hi)
    if a.hi <= at:
        return Interval.make(hi_end, lo_end, hi_closed, lo_closed)
    if a.lo >= at:
        return Interval.make(lo_end, hi_end, lo_closed, hi_closed)
    if lo_end >= hi_end:
        return Interval.make(lowest, lo_end, True, lo_closed)
    return Interval.make(lowest, hi_end, True, hi_closed)


def _self_gated(tree: Bin, x: Interval) -> Interval | None:
    """The range of `v · σ(k · v)` (swish; k > 0) or `v · tanh(softplus(v))` (mish), either
    way round, from the function's true minimum; None for any other product."""
    for value, gate in ((tree.left, tree.right), (tree.right, tree.left)):
        if not isinstance(gate, Apply) or len(gate.args) != 1:
            continue
        argument = gate.args[0]
        if gate.name == "sigmoid":
            scale = _scale_of(argument, value)
            if scale is None or scale <= 0:
                continue
            inner = ranges.mul(_interval(value, x), Interval.point(scale))
            return ranges.div(_dipping(inner, *_DIPS["sigmoid"]), Interval.point(scale))
        if (
            gate.name == "tanh"
            and isinstance(argument, Apply)
            and argument.name == "softplus"
            and argument.args == (value,)
        ):
            return _dipping(_interval(value, x), *_DIPS["softplus"])
    return None


def _scale_of(tree: object, value: object) -> float | None:
    """k when `tree` is `value`, `k · value` or `value · k` with k a number; else None."""
    if tree == value:
        return 1.0
    if isinstance(tree, Bin) and tree.op == "*":
        if tree.right == value and isinstance(tree.left, Num):
            return tree.left.value
        if tree.left == value and isinstance(tree.right, Num):
            return tree.right.value
    return None


def _apply_interval(tree: Apply, x: Interval) -> Interval:
    args = [
        _interval(arg, x) if not isinstance(arg, Bin) or arg.op in "+-*/" else REAL
        for arg in tree.args
    ]
    name = tree.name
    if name in _PYTHON:
        return ranges.KNOWN_FUNCTIONS[_PYTHON[name]](args[0])
    if name in _INTERVALS:
        return _INTERVALS[name](args[0])
    if name == "clamp":
        lo = _number(tree.args[1]) if len(tree.args) > 1 else None
        hi = _number(tree.args[2]) if len(tree.args) > 2 else None
        return ranges.clamp(args[0], lo, hi)
    if name == "leaky_relu":
        s = _number(tree.args[1])
        return ranges.monotone(args[0], lambda v: v if v >= 0 else s * v) if s >= 0 else REAL
    if name == "elu":
        alpha = _number(tree.args[1])
        low = ranges.monotone(args[0], lambda v: v if v > 0 else alpha * math.expm1(v), -alpha)
        return low if alpha >= 0 else REAL
    if name in ("maximum", "minimum", "where"):
        a, b = args[-2], args[-1]
        if name == "where":
            return a.hull(b)
        lo = max(a.lo, b.lo) if name == "maximum" else min(a.lo, b.lo)
        hi = max(a.hi, b.hi) if name == "maximum" else min(a.hi, b.hi)
        return Interval.make(lo, hi, not math.isinf(lo), not math.isinf(hi))
    operations = {"add": ranges.add, "sub": ranges.sub, "mul": ranges.mul, "div": ranges.div}
    if name in operations:
        return operations[name](args[0], args[1])
    return REAL


def _number(tree: object) -> float:
    if isinstance(tree, Num):
        return tree.value
    if isinstance(tree, Neg) and isinstance(tree.operand, Num):
        return -tree.operand.value
    raise TypeError


# ------------------------------------------------------------------------ formulas

_PRECEDENCE = {"or": 1, "and": 2, "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3}
_PRECEDENCE.update({"+": 4, "-": 4, "*": 5, "/": 5})
_SHOWN = {"*": "·", "-": "−", "<=": "≤", ">=": "≥", "!=": "≠", "==": "="}


def number_text(value: float) -> str:
    """A number as a formula shows it: 0.2, 1.702, 3, ∞."""
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if value == int(value) and abs(value) < 1e9:
        return str(int(value))
    return f"{value:.6g}"


def formula(tree: Tree, name: str = "x") -> str:
    """The tree as a one-line formula in x."""
    return _formula(tree, name, 0)


def _formula(tree: Tree, name: str, outer: int) -> str:
    if isinstance(tree, Var):
        return name
    if isinstance(tree, Num):
        text = number_text(tree.value)
        return f"({text})" if tree.value < 0 and outer > 0 else text
    if isinstance(tree, Neg):
        return "−" + _formula(tree.operand, name, 6)
    if isinstance(tree, Not):
        return "!" + _formula(tree.operand, name, 6)
    if isinstance(tree, Bin):
        level = _PRECEDENCE[tree.op]
        left = _formula(tree.left, name, level)
        right = _formula(tree.right, name, level + 1)
        text = f"{left} {_SHOWN.get(tree.op, tree.op)} {right}"
        return f"({text})" if level < outer else text
    if tree.name in FORMULAS and len(tree.args) == 1 and tree.name not in ("sigmoid",):
        if isinstance(tree.args[0], Var | Num):
            written = FORMULAS[tree.name].split(" = ")[-1]
            return written.replace("{x}", _formula(tree.args[0], name, 6))
        return f"{tree.name}({_formula(tree.args[0], name, 0)})"
    if tree.name == "sigmoid":
        return f"σ({_formula(tree.args[0], name, 0)})"
    args = ", ".join(_formula(arg, name, 0) for arg in tree.args)
    return f"{tree.name}({args})"


def builtin_formula(function: str, numbers: dict[str, float]) -> str:
    """A built-in's formula in x with the call's numbers."""
    text = FORMULAS[function].replace("{x}", "x").replace("e^x", "eˣ").replace("e^−x", "e⁻ˣ")
    for key, value in numbers.items():
        text = text.replace("{" + key + "}", number_text(value))
    return text
