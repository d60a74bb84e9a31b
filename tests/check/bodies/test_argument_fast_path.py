"""`_match_param` skips the batch and model-type checks for a tensor or host value given
for a tensor or host parameter: those checks find nothing to say about such a pair."""

from __future__ import annotations

import itertools

import pytest

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import (
    BOOL,
    FLOAT,
    INT,
    MASK,
    Axis,
    Domain,
    HostType,
    TensorType,
)
from shapescript.check.bodies import data_values, model_values
from shapescript.check.bodies.env import Arg
from shapescript.check.declarations.signatures import ParamSig
from shapescript.syntax.source import Span

VALUES = [
    INT,
    FLOAT,
    BOOL,
    HostType("int", Poly.symbol("n")),
    TensorType(None),
    TensorType(()),
    TensorType((Axis(Poly.symbol("n"), "n"),), MASK, "bool"),
    TensorType((Axis(Poly.const(3)),), Domain("Index", None, Poly.const(4)), "i64"),
]


@pytest.mark.parametrize(("expected", "actual"), itertools.product(VALUES, VALUES))
def test_the_skipped_checks_pass_tensors_and_host_values(expected, actual) -> None:
    assert model_values.fit_problem(expected, actual) is None
    param = ParamSig("x", expected, None, False)
    value = Arg(None, actual, Span(0, 0))
    assert data_values.argument(None, None, param, 0, value, {}, [], {}) is None
