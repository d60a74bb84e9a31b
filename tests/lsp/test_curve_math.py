"""The server's pure-Python math for curves against torch, for every activation it draws."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from shapescript.check.algebra.ranges import REAL, Interval
from shapescript.check.declarations.builtin_table import BUILTINS
from shapescript_lsp.features.curve_math import (
    ACTIVATIONS,
    FUNCTIONS,
    Apply,
    Bin,
    Num,
    Var,
    builtin_formula,
    evaluate,
    formula,
    interval,
    slope,
)

TORCH = {
    "relu": torch.relu,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
    "elu": lambda x: F.elu(x, 1.5),
    "gelu": F.gelu,
    "silu": F.silu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "softplus": F.softplus,
    "log_sigmoid": F.logsigmoid,
    "exp": torch.exp,
    "log": torch.log,
    "log1p": torch.log1p,
    "expm1": torch.expm1,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "sin": torch.sin,
    "cos": torch.cos,
    "erf": torch.erf,
    "abs": torch.abs,
    "square": torch.square,
}
NUMBERS = {"leaky_relu": (0.2,), "elu": (1.5,)}
# Away from kinks (0) and from the edges of log, sqrt and rsqrt, where slopes differ.
POINTS = [-3.7, -1.3, -0.45, 0.3, 0.9, 2.2, 3.9]


def test_every_activation_and_elementwise_builtin_has_math():
    assert set(TORCH) == set(ACTIVATIONS)
    elementwise = {name for name, entry in BUILTINS.items() if entry.kind == "elementwise"}
    assert elementwise - {"masked_fill", "zeros_like"} <= set(FUNCTIONS)


@pytest.mark.parametrize("name", sorted(TORCH))
def test_values_and_slopes_match_torch(name):
    numbers = tuple(Num(value) for value in NUMBERS.get(name, ()))
    tree = Apply(name, (Var(), *numbers))
    x = torch.tensor(POINTS, dtype=torch.float64, requires_grad=True)
    y = TORCH[name](x)
    y.sum().backward()
    for index, point in enumerate(POINTS):
        expected = y[index].item()
        if math.isnan(expected):
            assert math.isnan(evaluate(tree, point))
            continue
        assert evaluate(tree, point) == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert slope(tree, point) == pytest.approx(x.grad[index].item(), rel=1e-5, abs=1e-7)


def test_a_users_body_evaluates_and_writes_its_formula():
    tree = Bin("*", Var(), Apply("sigmoid", (Bin("*", Num(1.702), Var()),)))
    x = torch.tensor([-2.0, 0.5, 3.0], dtype=torch.float64)
    expected = x * torch.sigmoid(1.702 * x)
    for point, value in zip(x.tolist(), expected.tolist(), strict=True):
        assert evaluate(tree, point) == pytest.approx(value)
    assert formula(tree) == "x · σ(1.702 · x)"


def test_ranges_come_from_the_interval_arithmetic():
    assert str(interval(Apply("relu", (Var(),)), REAL)) == "[0, inf)"
    assert str(interval(Apply("sigmoid", (Var(),)), REAL)) == "[0, 1]"
    assert str(interval(Apply("elu", (Var(), Num(2.0))), REAL)) == "[-2, inf)"
    unit = Interval(0.0, 1.0)
    assert str(interval(Bin("*", Num(2.0), Var()), unit)) == "[0, 2]"


def test_builtin_formulas_take_the_calls_numbers():
    assert builtin_formula("leaky_relu", {"negative_slope": 0.2}) == "x if x ≥ 0, else 0.2 · x"
    assert builtin_formula("relu", {}) == "max(x, 0)"
