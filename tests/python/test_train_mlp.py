"""The README's training example, called from Python, against the same loop by hand.

The example's `fit` trains with AdamW at 3e-4, clipping the gradient's norm to 1 and
writing a record per step; these tests run it on a small synthetic dataset: 640 examples
in batches of 64 make 10 steps an epoch, so 10 epochs are 100 steps.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import shapescript
from shapescript.rt import data as rt_data
from tests.python.datasets import ListDigits, ListSink

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_mlp.ss"
EPOCHS = 10


@pytest.fixture(scope="module")
def example():
    """The README example, compiled once for the module."""
    return shapescript.compile(EXAMPLE.read_text(encoding="utf-8"), str(EXAMPLE))


def hand_written(example, data: ListDigits, epochs: int) -> tuple[list[float], dict]:
    """The same training in plain PyTorch, over the same shuffled batches."""
    start = example.Mlp.init(seed=0)
    params = {
        name: start.state_dict()[name].clone().requires_grad_() for name in ("w1", "b1", "w2")
    }
    mean = start.mean.clone()
    opt = torch.optim.AdamW(params.values(), lr=3e-4)
    losses = []
    for epoch in range(epochs):
        for batch in rt_data.batches(rt_data.shuffle(data, epoch), 64, example.Digit, "hand"):
            opt.zero_grad()
            hidden = torch.nn.functional.gelu((batch.img - mean) @ params["w1"] + params["b1"])
            loss = torch.nn.functional.cross_entropy(hidden @ params["w2"], batch.label)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(list(params.values()), 1.0)
            opt.step()
            losses.append(loss.item())
    return losses, {name: value.detach() for name, value in params.items()}


def test_fit_matches_a_hand_written_pytorch_loop_step_by_step(example, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = ListDigits(640)
    sink = ListSink()
    m = example.Mlp.init(seed=0)
    example.fit(m, data, sink, EPOCHS, shapescript.Eval)
    theirs, weights = hand_written(example, data, EPOCHS)
    ours = [row["loss"] for row in sink.rows]
    assert len(ours) == len(theirs) == 100
    for step, (mine, reference) in enumerate(zip(ours, theirs, strict=True)):
        assert abs(mine - reference) <= 1e-5, f"step {step}: {mine} vs {reference}"
    for name, value in weights.items():
        assert torch.allclose(getattr(m, name).detach(), value, atol=1e-5), name
    assert sink.flushes == EPOCHS


@pytest.mark.parametrize(
    "mode", [shapescript.Eval, shapescript.Train(seed=7)], ids=["eval", "train"]
)
def test_stopping_and_resuming_gives_the_uninterrupted_run_bit_for_bit(
    example, tmp_path, monkeypatch, mode
):
    monkeypatch.chdir(tmp_path)
    data = ListDigits(640)
    whole = ListSink()
    m = example.Mlp.init(seed=0)
    example.fit(m, data, whole, EPOCHS, mode)

    first = ListSink()
    stopped = example.Mlp.init(seed=0)
    example.fit(stopped, data, first, 5, mode)
    rest = ListSink()
    resumed = example.resume(data, rest, EPOCHS, mode)

    assert [row["loss"] for row in first.rows] == [row["loss"] for row in whole.rows[:50]]
    assert [row["loss"] for row in rest.rows] == [row["loss"] for row in whole.rows[50:]]
    for name, value in m.state_dict().items():
        assert torch.equal(resumed.state_dict()[name], value), name


def test_dropout_is_on_in_train_mode(example, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = ListDigits(128)
    runs = []
    for mode in (shapescript.Eval, shapescript.Train(seed=1), shapescript.Train(seed=2)):
        sink = ListSink()
        example.fit(example.Mlp.init(seed=0), data, sink, 1, mode)
        runs.append([row["loss"] for row in sink.rows])
    assert runs[0] != runs[1] != runs[2]


STD_CALLER = """\
import train_mlp
import shapescript.std.fit as std

fn train(
    mut m: train_mlp.Mlp, data: Dataset[train_mlp.Digit], sink: LogSink, epochs: int, mode: Mode
):
    std.fit(mut m, data, sink, epochs, 64, 3e-4, mode)
"""


def test_the_standard_librarys_fit_gives_the_readme_fits_losses_with_dropout_off(
    example, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train_mlp.ss").write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    caller = tmp_path / "caller.ss"
    caller.write_text(STD_CALLER, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = shapescript.compile(STD_CALLER, str(caller))
    data = ListDigits(320)
    theirs, ours = ListSink(), ListSink()
    example.fit(example.Mlp.init(seed=0), data, theirs, 3, shapescript.Eval)
    m = module.train_mlp.Mlp.init(seed=0)
    module.train(m, data, ours, 3, shapescript.Eval)
    assert [row["loss"] for row in ours.rows] == [row["loss"] for row in theirs.rows]
    assert len(ours.rows) == 15
