"""`assert`: decided by the size solver for every value; proved ones vanish, refuted ones
are E3501 with a counterexample (at the call that breaks them, too), and the rest are
checked at run time; an assert's relation is a fact for the slices after it."""

from __future__ import annotations

import pytest
import torch

from shapescript.check.algebra.assertions import PROVED, REFUTED, RUNTIME
from shapescript.check.checker import check_source, check_text
from shapescript.codegen import generate
from shapescript.rt.compiling import compile as compile_ss
from shapescript.rt.errors import ShapeError
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile

HEAD = """\
dim T = 8
dim D = 4

fn head(pos: [T D], x: [n D]) -> [n D]:
    assert n <= T
    return pos[0:n] + x
"""


def _errors(text: str) -> list[tuple[str, str]]:
    checked = check_text(text)
    return [(d.code, d.message) for d in checked.diagnostics if d.code.startswith("E")]


def _verdicts(text: str) -> list[tuple[str, str]]:
    """Each assert's verdict, in the order of the file."""
    checked = check_text(text)
    found = []
    for facts in checked.items:
        for table in facts.fact_tables():
            for _, verdict in sorted(table.asserts.items(), key=lambda pair: pair[0].start):
                found.append((verdict.kind, verdict.detail))
    return found


def test_a_relation_that_holds_for_every_size_is_proved() -> None:
    text = """\
dim T = 8
assert T >= 4 and T * 2 == 16

fn f(x: [n T]) -> [n T]:
    assert n + 1 > n and 2 * n >= n + 1
    return x
"""
    assert _errors(text) == []
    assert [kind for kind, _ in _verdicts(text)] == [PROVED, PROVED]


def test_a_relation_that_fails_for_every_size_is_refuted_with_a_counterexample() -> None:
    text = """\
fn f(x: [n]) -> [n]:
    assert n + 1 <= n
    return x
"""
    assert _errors(text) == [
        ("E3501", "this assert fails for every size: for n = 1, `n + 1 <= n` is `2 <= 1`")
    ]
    assert _verdicts(text) == [(REFUTED, "for n = 1, `n + 1 <= n` is `2 <= 1`")]


def test_a_top_level_assert_over_dims_is_refuted_with_their_values() -> None:
    text = "dim T = 32\nassert T + 1 <= T\n"
    assert _errors(text) == [
        ("E3501", "this assert fails: with T = 32, `T + 1 <= T` is `33 <= 32`")
    ]


def test_a_top_level_assert_must_compare_dims() -> None:
    (error,) = _errors("dim T = 32\nassert x < T\n")
    assert error[0] == "E3502"


def test_a_relation_between_a_generic_size_and_a_dim_is_left_to_run_time() -> None:
    assert _errors(HEAD) == []
    assert _verdicts(HEAD) == [(RUNTIME, "`n <= T` depends on the values")]


def test_the_call_that_breaks_an_assert_is_refuted_with_its_sizes() -> None:
    text = (
        HEAD
        + """
fn generate(pos: [T D], z: [(T + 1) D]) -> [(T + 1) D]:
    return head(pos, z)

fn fits(pos: [T D], z: [(T - 1) D]) -> [(T - 1) D]:
    return head(pos, z)
"""
    )
    checked = check_text(text)
    (error,) = [d for d in checked.diagnostics if d.code.startswith("E")]
    assert error.code == "E3501"
    assert error.message == (
        "`assert n <= T` in `head` fails for n = 9 when called from `generate` at line 9, "
        "where n = T + 1"
    )
    assert "the assert is at line 5, in `head`" in error.notes


def test_an_assert_makes_a_later_slice_fit_exactly() -> None:
    without = HEAD.replace("    assert n <= T\n", "")
    assert [code for code, _ in _errors(without)] == ["E0401"]
    assert _errors(HEAD) == []


def test_an_assert_inside_a_block_is_a_fact_only_in_that_block() -> None:
    text = """\
dim T = 8
dim D = 4

fn head(pos: [T D], x: [n D], flag: bool) -> [n D]:
    if flag:
        assert n <= T
    return pos[0:n] + x
"""
    assert [code for code, _ in _errors(text)] == ["E0401"]


def test_an_assert_needs_a_bool() -> None:
    text = "fn f(x: [n]) -> [n]:\n    assert x\n    return x\n"
    assert [code for code, _ in _errors(text)] == ["E0802"]


def test_assert_stays_a_name_where_it_does_not_start_an_assert() -> None:
    called = """\
fn assert(v: int) -> int = v

fn f(x: [n]) -> int:
    return assert(n)
"""
    assert _errors(called) == []
    bound = """\
fn f(x: [n]) -> int:
    assert = 3
    return assert + 1
"""
    assert _errors(bound) == []


def _compiled(text: str, checks: str = "always"):
    return compile_ss("devices cpu\n" + text, "asserts.ss", checks=checks)


def test_a_proved_assert_compiles_to_nothing() -> None:
    text = "dim T = 8\n\nfn f(x: [n T]) -> [n T]:\n    assert T >= 4\n    return x\n"
    checked = check_text(text)
    source = generate(checked).source
    assert "assert_failed" not in source
    checked = check_text(HEAD)
    assert "assert_failed" in generate(checked).source


def test_an_undecided_assert_raises_shape_error_naming_its_line_only_when_it_fails() -> None:
    module = _compiled(HEAD)
    assert module.head(torch.zeros(8, 4), torch.ones(3, 4)).shape == (3, 4)
    with pytest.raises(ShapeError) as failed:
        module.head(torch.zeros(8, 4), torch.ones(9, 4))
    assert failed.value.line == 6
    assert "`assert n <= T` failed for n = 9, T = 8" in str(failed.value)


def test_checks_never_leaves_the_assert_out() -> None:
    module = _compiled(HEAD, checks="never")
    with pytest.raises(Exception) as failed:
        module.head(torch.zeros(8, 4), torch.ones(9, 4))
    assert not isinstance(failed.value, ShapeError)


def test_the_parser_makes_an_assert_statement_and_item() -> None:
    checked = check_text(
        "dim T = 8\nassert T > 1\nfn f(x: [n]) -> [n]:\n    assert n > 0\n    return x\n"
    )
    items = checked.module.items
    assert isinstance(items[1], ast.Assert)
    assert isinstance(items[2].body[0], ast.Assert)


def test_editing_a_callee_s_assert_checks_its_callers_again() -> None:
    text = """\
dim T = 8
dim D = 4

fn head(x: [n D]) -> [n D]:
    assert n <= T
    return x

fn generate(z: [(T + 1) D]) -> [(T + 1) D]:
    return head(z)
"""
    loose = text.replace("assert n <= T", "assert n <= T + 1")
    before = check_source(SourceFile.from_text("main.ss", loose))
    assert [d.code for d in before.diagnostics] == []
    after = check_source(SourceFile.from_text("main.ss", text), before)
    assert [d.code for d in after.diagnostics] == ["E3501"]


def test_an_assert_over_host_values_is_checked_at_run_time() -> None:
    text = HEAD.replace("x: [n D])", "x: [n D], k: int)").replace(
        "assert n <= T", "assert n <= T and k < n"
    )
    assert _verdicts(text) == [(RUNTIME, "`n <= T`, `k < n` depend on the values")]
    module = _compiled(text)
    assert module.head(torch.zeros(8, 4), torch.ones(3, 4), 2).shape == (3, 4)
    with pytest.raises(ShapeError, match="failed for n = 3, T = 8, k = 5"):
        module.head(torch.zeros(8, 4), torch.ones(3, 4), 5)


def test_a_call_that_breaks_an_assert_for_every_size_of_the_caller_says_so() -> None:
    text = """\
dim T = 8
dim D = 4

fn head(x: [n D]) -> [n D]:
    assert n <= T
    return x

fn g(z: [(m + T) D]) -> [(m + T) D]:
    return z |> head

fn h(z: [m D]) -> [m D]:
    assert m <= T
    return head(z)
"""
    assert _errors(text) == [
        (
            "E3501",
            "`assert n <= T` in `head` fails for n = 9 (with m = 1; it fails for every m) "
            "when called from `g` at line 9, where n = T + m",
        )
    ]
