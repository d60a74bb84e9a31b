"""The README example's epoch with a last batch of 36: padded, it gives the unpadded losses."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import shapescript
from shapescript.check.checker import check_text
from shapescript.codegen import generate
from shapescript.rt import padding
from tests.python.datasets import ListDigits, ListSink

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_mlp.ss"


@pytest.fixture(scope="module")
def example():
    return shapescript.compile(EXAMPLE.read_text(encoding="utf-8"), str(EXAMPLE))


def epoch(example, fixed: bool, monkeypatch, tmp_path) -> tuple[list[float], object]:
    monkeypatch.chdir(tmp_path)
    was = padding.fixed_shapes(fixed)
    try:
        m = example.Mlp.init(seed=0)
        sink = ListSink()
        example.fit(m, ListDigits(100), sink, 1, shapescript.Eval)
    finally:
        padding.fixed_shapes(was)
    return [row["loss"] for row in sink.rows], m


def test_a_padded_epoch_gives_the_unpadded_losses_with_eval(example, monkeypatch, tmp_path):
    padded, m_padded = epoch(example, True, monkeypatch, tmp_path)
    plain, m_plain = epoch(example, False, monkeypatch, tmp_path)
    assert len(padded) == len(plain) == 2
    for mine, reference in zip(padded, plain, strict=True):
        assert abs(mine - reference) <= 1e-6
    for name in ("w1", "b1", "w2"):
        assert torch.allclose(getattr(m_padded, name), getattr(m_plain, name), atol=1e-6)


def test_the_padded_epoch_has_one_batch_shape(example, monkeypatch, tmp_path):
    padding._seen.clear()
    epoch(example, True, monkeypatch, tmp_path)
    (shapes,) = padding.shapes_seen().values()
    assert shapes == [((64, 784), (64,))]


def test_with_fixed_shapes_off_the_last_batch_keeps_its_size(example, monkeypatch, tmp_path):
    padding._seen.clear()
    epoch(example, False, monkeypatch, tmp_path)
    (shapes,) = padding.shapes_seen().values()
    assert shapes == [((36, 784), (36,)), ((64, 784), (64,))]


def test_the_generated_loop_is_padded_and_the_loss_masked() -> None:
    checked = check_text(EXAMPLE.read_text(encoding="utf-8"), str(EXAMPLE))
    generated = generate(checked).source
    assert "_ss_rt.padding.batch_loop(" in generated
    assert "_ss_rt.padding.cross_entropy(" in generated
    assert "_ss_pad={'b': _ss_pads.get('?b')}" in generated
