"""The exact reference run: float errors bounded against it, and the operation blamed."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.commands.entry import main
from shapescript.verify import VerifyError, verify

ROOT = Path(__file__).resolve().parents[2]

SOFTMAX = """dim C = 10

fn probs(x: [b C]) -> [b C] = softmax(x, over=C)
"""

REDUCTIONS = """dim C = 10

fn naive(x: [b C]) -> [b] = log(sum(exp(x), over=C))

fn stable(x: [b C]) -> [b] = logsumexp(x, over=C)

fn variance(x: [b C]) -> [b] = mean(x * x, over=C) - square(mean(x, over=C))

fn normed(x: [b C], w: [C], shift: [C]) -> [b C] = layer_norm(x, over=C, weight=w, bias=shift)

fn loss(logits: [b C], labels: [b] Index[C]) -> [] = cross_entropy(logits, labels, over=C)

fn running(x: [b C]) -> [b C] = cumsum(x, over=C)
"""


def _file(tmp_path: Path, text: str, name: str = "prog.ss") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_softmax_f32_error_is_within_one_in_a_million(tmp_path):
    report = verify(_file(tmp_path, SOFTMAX), "probs", dtypes=("f32",))
    assert {row.inputs for row in report.rows} == {"typical", "large", "offset"}
    assert report.largest_relative("f32") <= 1e-6


def test_half_precisions_are_measured_and_much_worse_than_f32(tmp_path):
    report = verify(_file(tmp_path, SOFTMAX), "probs", inputs=("typical",))
    assert {row.dtype for row in report.rows} == {"f32", "bf16", "f16"}
    assert report.largest_relative("bf16") > 100 * report.largest_relative("f32")


def test_a_naive_logsumexp_is_flagged_at_its_exp(tmp_path):
    report = verify(_file(tmp_path, REDUCTIONS), "naive", dtypes=("f32",))
    assert report.largest_relative("f32", "typical") <= 1e-6
    assert report.largest_relative("f32", "large") == float("inf")
    assert report.blame is not None
    assert (report.blame.operation, report.blame.line) == ("exp", 3)
    assert report.blame.worst.not_finite > 0
    assert "`exp` at line 3" in report.markdown()


def test_logsumexp_stays_accurate_where_the_naive_form_overflows(tmp_path):
    report = verify(_file(tmp_path, REDUCTIONS), "stable", dtypes=("f32",))
    assert report.largest_relative("f32") <= 1e-6


def test_variance_as_a_difference_of_means_is_blamed_on_the_subtraction(tmp_path):
    report = verify(_file(tmp_path, REDUCTIONS), "variance", dtypes=("f32",))
    assert report.largest_relative("f32", "offset") > 1e-3
    assert report.blame is not None
    assert (report.blame.operation, report.blame.line, report.blame.inputs) == ("-", 7, "offset")


def test_layer_norm_and_cross_entropy_f32_errors_are_bounded(tmp_path):
    path = _file(tmp_path, REDUCTIONS)
    normed = verify(path, "normed", dtypes=("f32",), inputs=("typical",))
    assert normed.largest_relative("f32") <= 1e-5
    loss = verify(path, "loss", dtypes=("f32",))
    assert loss.largest_relative("f32") <= 1e-6


def test_an_operation_it_cannot_run_exactly_is_named_with_its_line(tmp_path):
    with pytest.raises(VerifyError, match=r"line 13: `cumprod` isn't supported"):
        verify(_file(tmp_path, REDUCTIONS.replace("cumsum", "cumprod")), "running")


ATTENTION = """dim Dh = 4

fn attend(q: [b n Dh], k: [b n Dh], v: [b n Dh]) -> [b n Dh]:
    return scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
"""


def test_scaled_dot_product_attention_agrees_with_the_exact_run(tmp_path):
    report = verify(_file(tmp_path, ATTENTION), "attend", dtypes=("f32",), inputs=("typical",))
    assert report.largest_relative("f32") <= 1e-5


@pytest.mark.slow
def test_attention_f32_error_is_bounded():
    report = verify(ROOT / "examples/attention.ss", "forward", dtypes=("f32",), inputs=("typical",))
    assert report.rows and report.largest_relative("f32") <= 1e-4


@pytest.mark.slow
def test_a_gpt_block_and_its_loss_f32_errors_are_bounded():
    path = ROOT / "examples/gpt.ss"
    block = verify(path, "block", dtypes=("f32",), inputs=("typical",))
    assert block.largest_relative("f32") <= 1e-5
    loss = verify(path, "loss", dtypes=("f32",), inputs=("typical",))
    assert loss.largest_relative("f32") <= 1e-6


def test_the_command_exits_1_when_the_tolerance_is_exceeded(tmp_path, capsys):
    path = str(_file(tmp_path, REDUCTIONS))
    assert main(["verify", path, "--fn", "naive", "--dtypes", "f32", "--tolerance", "1e-5"]) == 1
    assert "exceeds the tolerance" in capsys.readouterr().out
    status = main(["verify", path, "--fn", "stable", "--dtypes", "f32", "--tolerance", "1e-5"])
    assert status == 0
    assert "| result | f32 | typical |" in capsys.readouterr().out


def test_the_command_takes_dims_and_refuses_bad_ones(tmp_path, capsys):
    path = str(_file(tmp_path, SOFTMAX))
    args = ["verify", path, "--fn", "probs", "--dtypes", "f32", "--inputs", "typical"]
    assert main([*args, "--dims", "C=3"]) == 0
    assert "dims C=3" in capsys.readouterr().out
    assert main([*args, "--dims", "C"]) == 2
    assert "NAME=SIZE" in capsys.readouterr().err


@pytest.mark.slow
def test_models_holding_models_and_stacks_of_blocks_run_exactly():
    path = ROOT / "examples/gpt2_hf.ss"
    loss = verify(path, "loss", dtypes=("f32",), inputs=("typical",))
    assert loss.largest_relative("f32") <= 1e-6
