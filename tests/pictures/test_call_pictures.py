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


@pytest.mark.parametrize(
    "needle",
    ["|> rearrange", "|> relu", "-> [n C]", "hidden"],
    ids=["moves", "curve", "fn", "name"],
)
def test_calls_without_a_picture(needle):
    assert _made(needle) is None
