"""Models that hold models on several devices: three workers, with and without `shard
params`, train as one device does, and a nested field assigned on the workers is kept."""

from __future__ import annotations

import pytest
import torch

from shapescript.rt import data as rt_data
from tests.parallel.programs import alive, compiled
from tests.python.datasets import ListDigits, ListSink

PROGRAM = """\
devices {devices}

dim D = 784
dim Hd = 12
dim C = 10

data Digit:
    img: [D]
    label: [] Index[C]

logs StepLogs:
    loss: [] mean
    grad_norm: [] max

model Layer:
    param w: [Hd Hd] = normal(std=0.3)
    param b: [Hd] = zeros

model Head:
    param w: [Hd C] = uniform(-0.1, 0.1)

model Net:
    param w_in: [D Hd] = normal(std=0.02)
    h: [2] Layer
    head: Head
    buffer mean: [D] = zeros

fn forward(m: Net, x: [b D]) -> [b C] Logit over C:
    y = gelu((x - m.mean) @ m.w_in)
    for layer in m.h:
        y = gelu(y @ layer.w + layer.b)
    return y @ m.head.w

fn loss(m: Net, batch: [b] Digit) -> [] NonNeg:
    return cross_entropy(forward(m, batch.img), batch.label, over=C)

fn train_step(mut m: Net, mut opt: AdamW[Net], batch: [b] Digit) -> StepLogs:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g |> clip_norm(1.0))
    return StepLogs(loss=l, grad_norm=norm(g))

fn fit(mut m: Net, train: Dataset[Digit], sink: LogSink, epochs: int):
    opt = adamw(m, lr=1e-3)
    for epoch in 0..epochs:
        for batch in train |> shuffle(seed=epoch) |> batches(30):
            sink.write(train_step(mut m, mut opt, batch))

fn scale_second(mut m: Net, s: float):
    m.h[1].w = m.h[1].w * s
    m.head.w = m.head.w * s

fn first_grad(m: Net, batch: [b] Digit) -> Grad[Layer]:
    l, g = value_and_grad(loss, m, batch)
    return g.h[0]

fn held_field_grad(m: Net, batch: [b] Digit) -> [Hd Hd]:
    l, g = value_and_grad(loss, m, batch)
    return g.h[1].w

fn own_field_grad(m: Net, batch: [b] Digit) -> [D Hd]:
    l, g = value_and_grad(loss, m, batch)
    return g.w_in

fn grad_norm(m: Net, batch: [b] Digit) -> []:
    l, g = value_and_grad(loss, m, batch)
    return norm(g.h[1]) + norm(g.head)
"""


@pytest.fixture(autouse=True)
def one_thread(monkeypatch, tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    loaders = rt_data.loader_workers()
    rt_data.loader_workers(0)
    monkeypatch.chdir(tmp_path)
    yield
    rt_data.loader_workers(loaders)
    torch.set_num_threads(threads)


def _run(module) -> tuple[list[float], dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """2 epochs of 50 examples in batches of 30 (one batch 3 divides, one it doesn't), a
    nested assignment on the workers, then a held model's gradient and norms of others."""
    sink = ListSink()
    m = module.Net.init(seed=0)
    data = ListDigits(50)
    module.fit(m, data, sink, 2)
    module.scale_second(m, 0.5)
    batch = {
        "img": torch.stack([data[i]["img"] for i in range(9)]),
        "label": torch.stack([data[i]["label"] for i in range(9)]),
    }
    grad = module.first_grad(m, batch)
    found = {name: value.detach().clone() for name, value in grad.items()}
    found["norm"] = module.grad_norm(m, batch).detach().clone()
    # One field of a gradient, whole (with `shard params`, not this worker's piece).
    found["h.1.w"] = module.held_field_grad(m, batch).detach().clone()
    found["w_in"] = module.own_field_grad(m, batch).detach().clone()
    weights = {name: value.detach().clone() for name, value in m.state_dict().items()}
    return [row["loss"] for row in sink.rows], weights, found


def _same_as_one_device(tmp_path, devices_text: str) -> None:
    one = compiled(PROGRAM.format(devices="cpu"), tmp_path / "one.ss")
    losses, weights, grad = _run(one)
    three = compiled(PROGRAM.format(devices=devices_text), tmp_path / "three.ss")
    try:
        their_losses, their_weights, their_grad = _run(three)
        pids = three._ss_program.pids()
        assert len(pids) == 3
    finally:
        three._ss_program.stop()
    assert len(their_losses) == len(losses) == 2 * 2
    for step, (mine, theirs) in enumerate(zip(losses, their_losses, strict=True)):
        assert abs(mine - theirs) <= 1e-5, f"step {step}: {mine} vs {theirs}"
    assert list(their_weights) == list(weights)
    assert "h.1.w" in weights and "head.w" in weights
    for name, value in weights.items():
        assert their_weights[name].shape == value.shape, name
        assert torch.allclose(their_weights[name], value, atol=1e-5, rtol=0), name
    assert list(their_grad) == list(grad) == ["w", "b", "norm", "h.1.w", "w_in"]
    for name, value in grad.items():
        assert their_grad[name].shape == value.shape, name
        assert torch.allclose(their_grad[name], value, atol=1e-6, rtol=0), name
    assert not any(alive(pid) for pid in pids)


@pytest.mark.slow
def test_three_workers_train_a_nested_model_as_one_device_does(tmp_path) -> None:
    _same_as_one_device(tmp_path, "cpu[0 1 2]")


@pytest.mark.slow
def test_shard_params_shards_the_held_models_params_too(tmp_path) -> None:
    _same_as_one_device(tmp_path, "cpu[0 1 2]\n    shard params")


def _line(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_hovers_count_the_held_models_params_bytes() -> None:
    from shapescript.check.analyses.comms import Table
    from shapescript.check.checker import check_parsed
    from shapescript.syntax.parser import parse
    from shapescript.syntax.source import SourceFile

    def table(devices: str):
        text = PROGRAM.format(devices=devices)
        checked = check_parsed(parse(SourceFile.from_text("t.ss", text)))
        assert checked.errors == []
        return text, checked, Table(checked)

    # w_in 9,408 values, h.0 and h.1 144 + 12 each, head.w 120; the buffer mean 784.
    text, checked, sharded = table("cpu[0 1 2]\n    shard params")
    model = checked.signatures["forward"].params[0].type
    pieces = 3136 + 2 * (48 + 4) + 40
    assert f"{pieces * 4:,} bytes" in sharded.value_text("forward", model)
    text, checked, plain = table("cpu[0 1 2]")
    assert f"{(9408 + 2 * 156 + 120 + 784) * 4:,} bytes" in plain.value_text("forward", model)
    step = plain.line_text("train_step", _line(text, "l, g = value_and_grad"))
    assert step is not None
    assert f"{9408 + 2 * 156 + 120:,} × f32" in step
