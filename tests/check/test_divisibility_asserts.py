"""`assert a % b == 0`: divisibility decided by the size solver like the other relations:
proved from known sizes or earlier facts, refuted (E3501) with a counterexample, or checked
at run time with a clear ShapeError."""

from __future__ import annotations

import pytest
import torch

from shapescript.check.algebra.assertions import PROVED, REFUTED, RUNTIME
from shapescript.check.checker import check_text
from shapescript.codegen import generate
from shapescript.rt.compiling import compile as compile_ss
from shapescript.rt.errors import ShapeError

HEADS = """\
dim D = 12

fn heads(x: [n D], w: [h]) -> [n D]:
    assert D % h == 0
    return x
"""


def _errors(text: str) -> list[tuple[str, str]]:
    checked = check_text(text)
    return [(d.code, d.message) for d in checked.diagnostics if d.code.startswith("E")]


def _verdicts(text: str) -> list[tuple[str, str]]:
    checked = check_text(text)
    found = []
    for facts in checked.items:
        for table in facts.fact_tables():
            for _, verdict in sorted(table.asserts.items(), key=lambda pair: pair[0].start):
                found.append((verdict.kind, verdict.detail))
    return found


def test_divisibility_of_known_sizes_is_proved_at_the_top_level_and_in_a_body() -> None:
    text = """\
dim H = 4
dim D = H * 16
assert D % H == 0 and D % 8 == 0

fn f(x: [n D]) -> [n D]:
    assert D % H == 0 and (2 * n + 4) % 2 == 0 and (n * (n + 1)) % 2 == 0
    return x
"""
    assert _errors(text) == []
    assert [kind for kind, _ in _verdicts(text)] == [PROVED, PROVED]
    assert "assert_failed" not in generate(check_text(text)).source


def test_divisibility_that_follows_from_an_earlier_fact_is_proved() -> None:
    text = """\
dim D = 12

fn f(x: [n D], w: [h], v: [k]) -> [n D]:
    assert D == h * k
    assert D % h == 0
    assert (D + 3 * h) % h == 0
    return x
"""
    assert _errors(text) == []
    assert [kind for kind, _ in _verdicts(text)] == [RUNTIME, PROVED, PROVED]


def test_a_divisibility_fact_proves_a_later_one() -> None:
    text = """\
fn f(x: [n], w: [h]) -> [n]:
    assert n % h == 0
    assert (3 * n) % h == 0
    return x
"""
    assert [kind for kind, _ in _verdicts(text)] == [RUNTIME, PROVED]


def test_divisibility_that_fails_is_refuted_with_a_counterexample() -> None:
    top = "dim D = 12\ndim H = 5\nassert D % H == 0\n"
    assert _errors(top) == [
        ("E3501", "this assert fails: with D = 12, H = 5, `D % H == 0` is `12 % 5 == 0`")
    ]
    body = """\
fn f(x: [n]) -> [n]:
    assert (2 * n + 1) % 2 == 0
    return x
"""
    assert _errors(body) == [
        (
            "E3501",
            "this assert fails for every size: for n = 1, `(2*n + 1) % 2 == 0` is `3 % 2 == 0`",
        )
    ]
    assert _verdicts(body)[0][0] == REFUTED


def test_a_call_whose_sizes_break_divisibility_is_refuted() -> None:
    text = (
        HEADS
        + """
fn caller(x: [n D], w: [5]) -> [n D]:
    return heads(x, w)

fn fine(x: [n D], w: [4]) -> [n D]:
    return heads(x, w)
"""
    )
    checked = check_text(text)
    (error,) = [d for d in checked.diagnostics if d.code.startswith("E")]
    assert error.code == "E3501"
    assert error.message == (
        "`assert D % h == 0` in `heads` fails for h = 5 when called from `caller` at line 8"
    )


def test_divisibility_by_a_generic_size_is_checked_at_run_time() -> None:
    assert _errors(HEADS) == []
    assert _verdicts(HEADS) == [(RUNTIME, "`D % h == 0` depends on the values")]
    module = compile_ss("devices cpu\n" + HEADS, "heads.ss")
    assert module.heads(torch.ones(2, 12), torch.ones(4)).shape == (2, 12)
    with pytest.raises(ShapeError) as failed:
        module.heads(torch.ones(2, 12), torch.ones(5))
    assert failed.value.line == 5
    assert "`assert D % h == 0` failed for D = 12, h = 5" in str(failed.value)


def test_percent_outside_an_assert_is_an_error_that_says_where_it_belongs() -> None:
    (error,) = _errors("fn f(x: [n]) -> int:\n    return n % 2\n")
    assert "only in an assert" in error[1]


def test_the_formatter_spaces_percent_as_the_other_binary_operators() -> None:
    from shapescript.format import format_text

    text = "fn f(x: [n], w: [h]) -> [n]:\n    assert n%h == 0\n    return x\n"
    assert format_text(text) == text.replace("n%h", "n % h")


def test_an_assert_starting_with_parentheses_is_shown_as_written() -> None:
    text = """\
fn f(x: [n], w: [h]) -> [n]:
    assert (n + 1) % h == 0
    return x
"""
    assert _verdicts(text) == [(RUNTIME, "`(n + 1) % h == 0` depends on the values")]
    module = compile_ss("devices cpu\n" + text, "parens.ss")
    with pytest.raises(ShapeError, match=r"`assert \(n \+ 1\) % h == 0` failed for n = 2, h = 2"):
        module.f(torch.ones(2), torch.ones(2))
