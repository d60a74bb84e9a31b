"""A call made into a function of its own for its picture: which calls, and what the
function takes. No torch here."""

from __future__ import annotations

import pytest

from shapescript.analysis import check
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.call_pictures import PICTURED, call_function

PROGRAM = """\
dim C = 10

fn f(z: [n C], s: [n m], keep: [n m] Mask) -> [n C] Prob over C:
    hidden = s |> masked_fill(!keep, -inf)
    q = einsum(z, z: n C, k C -> n k)
    moved = z |> rearrange(n c -> c n)
    positive = z |> relu
    return z |> softmax(over=C)
"""


def _made(needle: str):
    checked = check(SourceFile.from_text("calls.ss", PROGRAM))
    assert not checked.errors
    return call_function(checked, PROGRAM.index(needle))


def _header(made) -> str:
    return made[0].source.text.rsplit("\n\n", 1)[1].strip()


def test_a_stage_takes_its_input_and_the_callers_values_it_reads():
    made = _made("|> masked_fill")
    assert made is not None
    assert _header(made) == (
        f"fn {PICTURED}(stage_input: [n m], keep: [n m] Mask) -> [n m] = "
        "stage_input |> masked_fill(!keep, -inf)"
    )
    assert made[1] == "|> masked_fill(!keep, -inf)"


def test_a_stage_into_softmax_returns_the_stages_type():
    made = _made("|> softmax")
    assert made is not None
    assert _header(made).startswith(f"fn {PICTURED}(stage_input: [n C]) -> [n C] Prob over C")


def test_the_arrow_of_an_einsum_pattern_pictures_the_call_without_its_new_axis_names():
    made = _made("-> n k")
    assert made is not None
    assert _header(made) == f"fn {PICTURED}(z: [n C]) = einsum(z, z: n C, k C -> n k)"
    assert str(made[2]).count("Axis(") == 2


CONVERSIONS = """\
fn g(x: [n m] u8, keep: [n m] Mask) -> [n m]:
    u = x to Unit
    a = (x > 3) to Additive
    s = u |> to Signed
    h = u to f16
    return s + a
"""


def _converted(needle: str, after: int = 0):
    checked = check(SourceFile.from_text("conversions.ss", CONVERSIONS))
    assert not checked.errors
    return call_function(checked, CONVERSIONS.index(needle) + after)


@pytest.mark.parametrize("after", [0, 1], ids=["t", "o"])
def test_hovering_to_pictures_the_conversion_as_a_function_of_its_operand(after):
    made = _converted("to Unit", after)
    assert made is not None
    assert _header(made) == f"fn {PICTURED}(x: [n m] u8) -> [n m] Unit = x to Unit"
    assert made[1] == "x to Unit"


def test_an_operand_that_isnt_a_name_becomes_the_functions_input():
    made = _converted("to Additive")
    assert made is not None
    assert _header(made) == (
        f"fn {PICTURED}(stage_input: [n m] Mask) -> [n m] Additive = stage_input to Additive"
    )
    assert made[1] == "(x > 3) to Additive"


def test_the_to_of_a_to_stage_pictures_the_stage():
    made = _converted("to Signed")
    assert made is not None
    assert _header(made) == (
        f"fn {PICTURED}(stage_input: [n m] Unit) -> [n m] Signed = stage_input |> to Signed"
    )
    assert made[1] == "|> to Signed"


@pytest.mark.parametrize(
    "needle", ["to f16", "x to", "Unit\n"], ids=["dtype only", "operand", "target"]
)
def test_no_conversion_picture_off_the_to_or_for_a_dtype(needle):
    assert _converted(needle) is None


@pytest.mark.parametrize(
    "needle",
    ["|> rearrange", "|> relu", "-> [n C]", "hidden"],
    ids=["moves", "curve", "fn", "name"],
)
def test_calls_without_a_picture(needle):
    assert _made(needle) is None
