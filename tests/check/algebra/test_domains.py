"""Checker II through the query API: inferred ranges and domains."""

from __future__ import annotations

from shapescript.check.algebra.ranges import INF, Interval
from shapescript.check.algebra.types import format_type, interval_of
from shapescript.check.checker import check_text


def type_at(text: str, needle: str):
    checked = check_text(text)
    assert checked.diagnostics == [], [d.message for d in checked.diagnostics]
    return checked.type_at(text.index(needle))


def test_a_counter_that_only_grows_is_in_zero_to_infinity() -> None:
    text = """\
fn count(steps: int, x: [n]) -> [n]:
    total = 0
    for i in 0..steps:
        total = total + 1
    after = total
    return x
"""
    assert interval_of(type_at(text, "after =")) == Interval(0.0, INF, True, False)


def test_doubling_unit_values_in_a_loop_leaves_nonneg() -> None:
    text = """\
fn grow(steps: int, x: [n]) -> [n]:
    y = sigmoid(x)
    for i in 0..steps:
        y = y * 2.0
    z = y
    return x
"""
    assert format_type(type_at(text, "z =")) == "[n] NonNeg"


def test_signed_of_a_sigmoid_and_an_elementwise_call() -> None:
    text = """\
fn signed(x: Real) -> Real = sigmoid(x) * 2 - 1

fn use(x: [b]) -> [b]:
    s = signed(x)
    t = sigmoid(x) * 2 - 1
    return x
"""
    assert format_type(type_at(text, "s =")) == "[b] Signed"
    assert format_type(type_at(text, "t =")) == "[b] Signed"


def test_semantic_domains_through_operations() -> None:
    text = """\
fn f(z: [b C], m: [b C] Mask) -> [b C]:
    p = softmax(z, over=C)
    q = log_softmax(z, over=C)
    shifted = z * 2.0
    kept = where(m, z, 0.0)
    pooled = mean(p, over=b)
    return z
"""
    assert format_type(type_at(text, "p =")) == "[b C] Prob over C"
    assert format_type(type_at(text, "q =")) == "[b C] LogProb over C"
    assert format_type(type_at(text, "pooled =")) == "[C] Prob over C"


def test_hull_after_an_if() -> None:
    text = """\
fn f(x: [n], flag: bool) -> [n]:
    y = sigmoid(x)
    if flag:
        y = relu(x) * 0.0 + 2.0
    z = y
    return x
"""
    assert format_type(type_at(text, "z =")) == "[n] [0, 2]"
