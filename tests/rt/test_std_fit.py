"""The standard library's `fit`: `shapescript.std` from Python, its instances compiled into
the calling module, and `std.fit` training as a hand-written loop does, on two models."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript.check.declarations import import_session
from shapescript.rt import hook
from shapescript.rt.randomness import Eval
from tests.codegen.compiled import build, load


@pytest.fixture(autouse=True)
def fresh_checks():
    import_session.clear_cache()
    yield
    import_session.clear_cache()


PROGRAM = """\
devices cpu

import shapescript.std.fit as std

dim D = 4
dim H = 5
dim C = 3

data Digit:
    x: [D]
    y: [] Index[C]

model Linear:
    param w: [D C] = normal(std=0.5)
    param b: [C] = zeros

model Wide:
    param w1: [D H] = normal(std=0.5)
    param w2: [H C] = normal(std=0.5)

fn forward(m: Linear, x: [b D]) -> [b C] = x @ m.w + m.b
fn forward(m: Wide, x: [b D]) -> [b C] = relu(x @ m.w1) @ m.w2

fn loss(m: Linear, batch: [b] Digit, mode: Mode) -> []:
    return cross_entropy(forward(m, batch.x), batch.y, over=C)

fn loss(m: Wide, batch: [b] Digit, mode: Mode) -> []:
    return cross_entropy(forward(m, batch.x), batch.y, over=C)

## The library's loop, written out for Linear.
logs Step:
    loss: [] mean
    grad_norm: [] max

fn my_step(mut m: Linear, mut opt: AdamW[Linear], batch: [b] Digit, mode: Mode) -> Step:
    l, g = value_and_grad(loss, m, batch, mode)
    update(mut m, mut opt, g |> clip_norm(1.0))
    return Step(loss=l, grad_norm=norm(g))

fn my_fit(
    mut m: Linear, train: Dataset[Digit], sink: LogSink, epochs: int, size: int, lr: float,
    mode: Mode,
):
    opt = adamw(m, lr=lr)
    for epoch in 0..epochs:
        for batch in train |> shuffle(seed=epoch) |> batches(size):
            sink.write(my_step(mut m, mut opt, batch, mode))
        sink.flush()

fn fit_linear(
    mut m: Linear, train: Dataset[Digit], sink: LogSink, epochs: int, size: int, lr: float,
    mode: Mode,
):
    std.fit(mut m, train, sink, epochs, size, lr, mode)

fn fit_wide(mut m: Wide, train: Dataset[Digit], sink: LogSink, epochs: int, mode: Mode):
    std.fit(mut m, train, sink, epochs, 4, 0.01, mode)

fn resume_linear(
    like: Linear, train: Dataset[Digit], sink: LogSink, epochs: int, size: int, mode: Mode,
) -> Linear:
    return std.resume(like, train, sink, epochs, size, mode)
"""


# ---------------------------------------------------------------------- from Python


def test_path_names_the_standard_librarys_file() -> None:
    found = Path(shapescript.std.path("fit"))
    assert found.name == "fit.ss" and found.parent.name == "std"
    assert "fn fit(mut m: M, train: Dataset[E]" in found.read_text(encoding="utf-8")
    with pytest.raises(FileNotFoundError, match="no file `nothing`"):
        shapescript.std.path("nothing")


def test_python_imports_the_fit_module_without_install() -> None:
    installed = hook.installed_finder() is not None
    hook.uninstall()
    sys.modules.pop("shapescript.std.fit", None)
    try:
        module = importlib.import_module("shapescript.std.fit")
    finally:
        if installed:
            hook.ensure_installed()
    assert module.__file__ == shapescript.std.path("fit")
    assert issubclass(module.StepLogs, shapescript.rt.logs.Logs)
    # No ShapeScript code of its own calls fit, so it has no instance to call.
    with pytest.raises(TypeError, match="no ShapeScript code calls"):
        module.fit()


# ---------------------------------------------------------------------- generated code


def test_each_instance_is_a_function_of_the_calling_module() -> None:
    generated = build(PROGRAM, "trainer.ss")
    assert generated.unsupported == []
    text = generated.source
    for name in ("fit", "run", "train_step"):
        for model in ("Linear", "Wide"):
            assert f"\ndef _ss_{name}__{model}__Digit(" in text
    assert "\ndef _ss_resume__Linear__Digit(" in text
    # The library's own names are the library module's; the model's loss is this one's.
    assert "return _ss_mod_std.StepLogs(loss=l, grad_norm=_ss_rt.gradients.norm(g))" in text
    assert "value_and_grad(_ss_loss__Linear, m, batch" in text
    assert "_ss_rt.checkpoints.load('ckpt.pt', Linear, " in text
    # Its checks name the library's lines.
    std_file = shapescript.std.path("fit")
    line = std_file_line("fn train_step(")
    assert f"'{std_file}:{line}:" in text


def std_file_line(start: str) -> int:
    lines = Path(shapescript.std.path("fit")).read_text(encoding="utf-8").splitlines()
    return next(number for number, text in enumerate(lines, 1) if text.startswith(start))


# ---------------------------------------------------------------------- training

needs_loader = pytest.mark.skipif(
    importlib.util.find_spec("shapescript.rt.data") is None,
    reason="the data loader's runtime (rt/data.py) isn't on this branch",
)


class Collect:
    """A sink that keeps each record's loss, and counts flushes."""

    def __init__(self) -> None:
        self.losses: list[float] = []
        self.flushes = 0

    def write(self, record) -> None:
        self.losses.append(record["loss"])

    def flush(self) -> None:
        self.flushes += 1


def _examples(count: int = 12) -> list[dict]:
    generator = torch.Generator().manual_seed(3)
    xs = torch.randn(count, 4, generator=generator)
    ys = torch.randint(0, 3, (count,), generator=generator)
    return [{"x": x, "y": y} for x, y in zip(xs, ys, strict=True)]


@pytest.fixture
def trainer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The compiled program, run in a folder of its own (fit saves ckpt.pt there), with its
    batches loaded in this process."""
    from shapescript.rt import data

    monkeypatch.chdir(tmp_path)
    workers = data.loader_workers()
    data.loader_workers(0)
    yield load(PROGRAM, "trainer.ss")
    data.loader_workers(workers)


@needs_loader
def test_std_fit_gives_the_hand_written_loops_losses(trainer) -> None:
    train = _examples()
    ours, theirs = trainer.Linear.init(seed=0), trainer.Linear.init(seed=0)
    by_hand, library = Collect(), Collect()
    trainer.my_fit(ours, train, by_hand, 3, 4, 0.05, Eval)
    trainer.fit_linear(theirs, train, library, 3, 4, 0.05, Eval)
    assert len(library.losses) == 9 and library.flushes == 3
    assert library.losses == by_hand.losses
    assert torch.equal(ours.w, theirs.w) and torch.equal(ours.b, theirs.b)
    assert Path("ckpt.pt").exists()


@needs_loader
def test_std_fit_trains_a_second_model_with_its_own_loss(trainer) -> None:
    train = _examples()
    model = trainer.Wide.init(seed=1)
    before = model.w1.detach().clone()
    sink = Collect()
    trainer.fit_wide(model, train, sink, 4, Eval)
    assert len(sink.losses) == 12
    assert sum(sink.losses[-3:]) < sum(sink.losses[:3])
    assert not torch.equal(model.w1, before)


@needs_loader
def test_resume_carries_on_as_a_run_that_didnt_stop(trainer) -> None:
    train = _examples()
    straight = trainer.Linear.init(seed=0)
    whole = Collect()
    trainer.fit_linear(straight, train, whole, 4, 4, 0.05, Eval)
    stopped = trainer.Linear.init(seed=0)
    trainer.fit_linear(stopped, train, Collect(), 2, 4, 0.05, Eval)
    rest = Collect()
    resumed = trainer.resume_linear(stopped, train, rest, 4, 4, Eval)
    assert rest.losses == whole.losses[6:]
    assert torch.equal(resumed.w, straight.w)
