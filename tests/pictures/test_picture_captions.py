"""What a function picture's captions say of the run: the weights left out and the mode.
The worker's answer is made up here, so no torch is needed."""

from __future__ import annotations

from shapescript.analysis import check
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.function_pictures import picture_grids
from shapescript_lsp.pictures.examples import example

MODEL = """\
dim D = 768
dim C = 10

model Mlp:
    param w: [D C] = normal(std=0.02)

fn forward(m: Mlp, x: [n D]) -> [n C] = x @ m.w

fn dropped(m: Mlp, x: [n D], mode: Mode) -> [n C] = forward(m, x) |> dropout(0.5, mode)

fn plain(x: [n D], mode: Mode) -> [n D] = x |> dropout(0.5, mode)
"""


def _result_caption(function: str) -> str:
    checked = check(SourceFile.from_text("captions.ss", MODEL))
    assert not checked.errors
    built = example(checked, function)
    assert built is not None
    answer = {"tensor": [[0.5] * 4 for _ in range(3)], "dtype": "float32"}
    return picture_grids(built, answer)[-1].caption


def test_a_picture_run_with_a_mode_says_it_is_in_eval_mode():
    assert _result_caption("dropped") == "dropped(…): [n C]   (weights: m, in Eval mode)"
    assert _result_caption("plain") == "plain(…): [n D]   (in Eval mode)"


def test_a_picture_without_a_mode_says_nothing_of_one():
    assert _result_caption("forward") == "forward(…): [n C]   (weights: m)"
