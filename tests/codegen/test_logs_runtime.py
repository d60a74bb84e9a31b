"""Compiled programs that write logs records to a sink, print, and save and load checkpoints:
run against the runtime, with a sink that collects what it is given."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import shapescript
from shapescript.rt.logs import LogRecord
from tests.codegen.compiled import load

PROGRAM = """\
dim D = 4
dim C = 3

## What each step reports.
logs StepLogs:
    loss: [] mean
    grad_norm: [] NonNeg max
    step: int last

model Mlp:
    param w: [D C] = normal(std=0.5)
    param b: [C] = zeros

fn loss(m: Mlp, x: [b D], y: [b] Index[C]) -> [] = cross_entropy(x @ m.w + m.b, y, over=C) |> mean

fn step(mut m: Mlp, mut opt: AdamW[Mlp], x: [b D], y: [b] Index[C], k: int) -> StepLogs:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g |> clip_norm(1.0))
    return StepLogs(loss=l, grad_norm=norm(g), step=k)

fn run(mut m: Mlp, mut opt: AdamW[Mlp], x: [b D], y: [b] Index[C], sink: LogSink,
       first: int, steps: int):
    for k in first..steps:
        sink.write(step(mut m, mut opt, x, y, k))
    sink.flush()
    save("ckpt.pt", m, opt, steps)

fn fit(mut m: Mlp, x: [b D], y: [b] Index[C], sink: LogSink, steps: int):
    opt = adamw(m, lr=warmup(2, cosine(0.1, 10)))
    run(mut m, mut opt, x, y, sink, 0, steps)

fn resume(x: [b D], y: [b] Index[C], sink: LogSink, steps: int) -> Mlp:
    m, opt, done = load("ckpt.pt", Mlp, AdamW[Mlp], int)
    run(mut m, mut opt, x, y, sink, done, steps)
    return m

fn record(l: [], k: int) -> StepLogs = StepLogs(loss=l, grad_norm=abs(l), step=k)

fn loss_of(r: StepLogs) -> [] = r.loss

fn show(r: StepLogs, l: [], k: int):
    print("record", r, l, k, r.step)

fn flush_only(sink: LogSink):
    sink.flush()

fn model_only() -> Mlp = load("ckpt.pt", Mlp)
"""


class ListSink:
    """A sink that keeps what it is given, and counts its flushes."""

    def __init__(self) -> None:
        self.records: list[LogRecord] = []
        self.flushes = 0

    def write(self, record: LogRecord) -> None:
        self.records.append(record)

    def flush(self) -> None:
        self.flushes += 1


class WriteOnly:
    def __init__(self) -> None:
        self.records: list[dict] = []

    def write(self, record: dict) -> None:
        self.records.append(record)


def _data() -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(8, 4, generator=generator)
    y = torch.randint(0, 3, (8,), generator=generator)
    return x, y


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The programs save to `ckpt.pt` in the working directory: a fresh one per test."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_records_written_to_a_sink_are_python_numbers(in_tmp: Path) -> None:
    module = load(PROGRAM, "logs_run.ss")
    model = module.Mlp.init(seed=0)
    sink = ListSink()
    x, y = _data()
    module.fit(model, x, y, sink, 3)
    assert sink.flushes == 1
    assert [list(record) for record in sink.records] == [["loss", "grad_norm", "step"]] * 3
    first = sink.records[0]
    assert isinstance(first, LogRecord)
    assert first.name == "StepLogs"
    assert first.combine == {"loss": "mean", "grad_norm": "max", "step": "last"}
    assert [record["step"] for record in sink.records] == [0, 1, 2]
    assert all(type(record["loss"]) is float for record in sink.records)
    assert all(type(record["step"]) is int for record in sink.records)
    assert sink.records[0]["loss"] > 0 and sink.records[0]["grad_norm"] > 0


def test_a_record_keeps_its_values_and_reads_its_metrics() -> None:
    module = load(PROGRAM, "logs_run.ss")
    loss = torch.tensor(-0.5)
    made = module.record(loss, 4)
    assert isinstance(made, shapescript.rt.logs.Logs) and type(made).__name__ == "StepLogs"
    assert made.loss is loss and made.step == 4
    assert module.loss_of(made) is loss
    assert module.StepLogs.__doc__ == "What each step reports."


def test_a_sink_without_flush_is_written_and_flushed(in_tmp: Path) -> None:
    module = load(PROGRAM, "logs_run.ss")
    sink = WriteOnly()
    module.fit(module.Mlp.init(seed=0), *_data(), sink, 2)
    assert len(sink.records) == 2
    module.flush_only(sink)


def test_print_shows_records_and_tensors_as_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    module = load(PROGRAM, "logs_run.ss")
    made = module.record(torch.tensor(0.25), 3)
    module.show(made, torch.tensor(1.5), 7)
    out = capsys.readouterr().out
    assert out == "record {'loss': 0.25, 'grad_norm': 0.25, 'step': 3} 1.5 7 3\n"


def test_a_sink_argument_without_write_is_a_shape_error() -> None:
    module = load(PROGRAM, "logs_run.ss")
    with pytest.raises(shapescript.ShapeError, match="LogSink") as raised:
        module.flush_only(object())
    assert raised.value.parameter == "sink" and raised.value.function == "flush_only"
    assert str(raised.value).startswith("logs_run.ss:")
    unchecked = load(PROGRAM, "logs_never.ss", checks="never")
    unchecked.flush_only(object())


def test_a_record_argument_of_another_type_is_a_shape_error() -> None:
    module = load(PROGRAM, "logs_run.ss")
    with pytest.raises(shapescript.ShapeError, match="StepLogs") as raised:
        module.loss_of({"loss": torch.tensor(1.0)})
    assert raised.value.parameter == "r" and raised.value.function == "loss_of"
    unchecked = load(PROGRAM, "logs_never.ss", checks="never")
    with pytest.raises(AttributeError):
        unchecked.loss_of({"loss": torch.tensor(1.0)})


def test_saving_loading_and_carrying_on_gives_the_run_that_didnt_stop(in_tmp: Path) -> None:
    module = load(PROGRAM, "logs_run.ss")
    x, y = _data()
    whole = module.Mlp.init(seed=0)
    whole_sink = ListSink()
    module.fit(whole, x, y, whole_sink, 6)

    first = module.Mlp.init(seed=0)
    first_sink, rest_sink = ListSink(), ListSink()
    module.fit(first, x, y, first_sink, 3)
    assert (in_tmp / "ckpt.pt").exists()
    resumed = module.resume(x, y, rest_sink, 6)

    assert type(resumed) is module.Mlp and resumed is not first
    for name, tensor in whole.state_dict().items():
        assert torch.equal(resumed.state_dict()[name], tensor), name
    assert first_sink.records + rest_sink.records == whole_sink.records


def test_load_gives_a_model_optimizer_state_and_an_int(in_tmp: Path) -> None:
    module = load(PROGRAM, "logs_run.ss")
    model = module.Mlp.init(seed=0)
    module.fit(model, *_data(), ListSink(), 2)
    loaded, state, done = shapescript.load(
        "ckpt.pt", module.Mlp, shapescript.AdamW[module.Mlp], int
    )
    assert done == 2
    for name, tensor in model.state_dict().items():
        assert torch.equal(loaded.state_dict()[name], tensor), name
    assert isinstance(state, shapescript.rt.optimizers.Optimizer)


def test_a_checkpoint_of_other_values_is_an_error_at_the_load(in_tmp: Path) -> None:
    module = load(PROGRAM, "logs_run.ss")
    module.fit(module.Mlp.init(seed=0), *_data(), ListSink(), 1)
    line = PROGRAM.splitlines().index('fn model_only() -> Mlp = load("ckpt.pt", Mlp)') + 1
    with pytest.raises(shapescript.ShapeError, match="holds 3 values") as raised:
        module.model_only()
    assert str(raised.value).startswith(f"logs_run.ss:{line}:26:")
