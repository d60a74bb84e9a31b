"""`shard params`: each worker keeps a piece of every param and its optimizer state, and the
program still computes what one device computes; the controller sees whole tensors."""

from __future__ import annotations

import math
import tempfile

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import shapescript
from shapescript.analysis import check
from shapescript.check.analyses.comms import Table
from shapescript.check.checker import check_parsed
from shapescript.codegen import generate
from shapescript.rt import data as rt_data
from shapescript.rt.models import Field, Model, set_field
from shapescript.syntax.parser import parse
from shapescript.syntax.source import SourceFile
from tests.parallel.programs import alive, compiled, readme_on
from tests.python.datasets import ListDigits, ListSink

SHARDED = "cpu[0 1 2]\n    shard params"

#: The README's loop again with batches of 16, which 3 doesn't divide (the README's is 30).
SMALL = """
fn run_small(mut m: Mlp, mut opt: AdamW[Mlp], train: Dataset[Digit], sink: LogSink,
             epochs: int, mode: Mode):
    for epoch in 0..epochs:
        for batch in train |> shuffle(seed=epoch) |> batches(16):
            sink.write(train_step(mut m, mut opt, batch, mode))

fn fit_small(mut m: Mlp, train: Dataset[Digit], sink: LogSink, epochs: int, mode: Mode):
    opt = adamw(m, lr=3e-4)
    run_small(mut m, mut opt, train, sink, epochs, mode)
"""


def _checked(text: str):
    checked = check_parsed(parse(SourceFile.from_text("t.ss", text)))
    assert checked.errors == []
    return checked


def test_the_generated_module_says_its_params_are_sharded() -> None:
    source = generate(check(SourceFile.from_text("t.ss", readme_on(SHARDED)))).source
    assert "_ss_shard_params = True\n_ss_program = " in source
    plain = generate(check(SourceFile.from_text("t.ss", readme_on("cpu[0 1 2]")))).source
    assert "_ss_shard_params" not in plain


def test_hovers_show_each_device_s_piece_and_the_gathers() -> None:
    checked = _checked(readme_on(SHARDED))
    table = Table(checked)
    model = table.value_text("forward", checked.signatures["forward"].params[0].type)
    # w1 784·256 → 66,902 values a piece, b1 256 → 86, w2 2,560 → 854: 67,842 × 4 bytes.
    assert model == (
        "Sharded: each device holds a third of every param of `Mlp`, "
        "271,368 bytes (265 KiB) of its params."
    )
    text = table.line_text("forward", _line(checked, "return (x - m.mean) @ m.w1"))
    assert text is not None
    assert "- all-gather of `m.w1`, padded to a multiple of 3: 200,706 × f32" in text
    step = table.line_text("train_step", _line(checked, "l, g = value_and_grad"))
    assert step is not None
    assert "all-reduce of the gradients" not in step  # reduce-scattered where they're read
    assert "inside `loss`:" in step
    norms = table.line_text("train_step", _line(checked, "update(mut m"))
    assert norms is not None
    assert "all-reduce of `clip_norm`'s sum of squares: 1 × f32 = 4 bytes" in norms


def _line(checked, needle: str) -> int:
    return checked.source.text[: checked.source.text.index(needle)].count("\n") + 1


class _Tiny(Model):
    _ss_fields = (
        Field("w", "param", (2, 4), "f32", ("zeros", {})),
        Field("k", "buffer", (3,), "f32", ("zeros", {})),
    )


def _pieces(rank: int, world: int, init_file: str) -> None:
    """On each of three processes: cutting, gathering, the reduce-scatter backward, norms,
    and optimizer state cut and gathered again."""
    from shapescript.rt.parallel import sharding

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=3)
    model = _Tiny.__new__(_Tiny)
    torch.nn.Module.__init__(model)
    model.register_parameter("w", torch.nn.Parameter(torch.arange(8.0).view(2, 4)))
    model.register_buffer("k", torch.ones(3))
    sharding.shard(model)
    piece = model._parameters["w"]
    # 8 values in pieces of 3, the last padded with a zero.
    expected = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 0.0]][rank]
    assert piece.tolist() == expected
    assert torch.equal(model.w, torch.arange(8.0).view(2, 4))
    assert torch.equal(model.k, torch.ones(3))
    # Every worker's gradient added up and cut: 1 + 2 + 3 at each real value, 0 in the pad.
    (grad,) = torch.autograd.grad((model.w * (rank + 1)).sum(), [piece])
    assert grad.tolist() == ([6.0, 6.0, 0.0] if rank == 2 else [6.0, 6.0, 6.0])
    assert math.isclose(float(sharding.norm([grad])), math.sqrt(8 * 36), rel_tol=1e-6)
    fields = sharding.whole_fields(model)
    assert torch.equal(fields["w"], torch.arange(8.0).view(2, 4))
    # `m.w = e` on a worker keeps its own piece of the whole value.
    set_field(model, "w", torch.arange(8.0).view(2, 4) * 10)
    assert piece.tolist() == [value * 10 for value in expected]
    set_field(model, "w", torch.arange(8.0).view(2, 4))
    whole = {"torch": {"state": {0: {"step": torch.tensor(2.0), "m": torch.full((2, 4), 5.0)}}}}
    mine = sharding.cut_state(model, whole)
    assert mine["torch"]["state"][0]["m"].shape == (3,)
    back = sharding.whole_state(type(model), mine)
    assert torch.equal(back["torch"]["state"][0]["m"], torch.full((2, 4), 5.0))
    assert float(back["torch"]["state"][0]["step"]) == 2.0
    dist.destroy_process_group()


@pytest.mark.slow
def test_pieces_gather_and_their_gradients_scatter_on_three_processes() -> None:
    with tempfile.TemporaryDirectory() as folder:
        mp.spawn(_pieces, args=(3, f"{folder}/rendezvous"), nprocs=3)


@pytest.fixture
def one_thread(monkeypatch, tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    loaders = rt_data.loader_workers()
    rt_data.loader_workers(0)
    monkeypatch.chdir(tmp_path)
    yield
    rt_data.loader_workers(loaders)
    torch.set_num_threads(threads)


def _train(module) -> list[tuple[list[float], dict[str, torch.Tensor]]]:
    """3 epochs in batches of 30 and, with another model, of 16; then the first carried on
    from its checkpoint for a 4th epoch (optimizer state sent whole and cut again)."""
    found = []
    for fit in (module.fit, module.fit_small):
        sink = ListSink()
        m = module.Mlp.init(seed=0)
        fit(m, ListDigits(60), sink, 3, shapescript.Eval)
        if fit is module.fit_small:
            found.append(([row["loss"] for row in sink.rows], _weights(m)))
            continue
        first = ([row["loss"] for row in sink.rows], _weights(m))
    sink = ListSink()
    resumed = module.resume(ListDigits(60), sink, 4, shapescript.Eval)
    return [first, *found, ([row["loss"] for row in sink.rows], _weights(resumed))]


def _weights(m) -> dict[str, torch.Tensor]:
    return {name: value.detach().clone() for name, value in m.state_dict().items()}


@pytest.mark.slow
def test_the_readme_with_shard_params_trains_as_one_device_does(tmp_path, one_thread) -> None:
    one = compiled(readme_on("cpu", 30, SMALL), tmp_path / "one.ss")
    expected = _train(one)
    three = compiled(readme_on(SHARDED, 30, SMALL), tmp_path / "three.ss")
    try:
        got = _train(three)
        pids = three._ss_program.pids()
        assert len(pids) == 3
        assert three._ss_program.sharded
    finally:
        three._ss_program.stop()
    assert [len(losses) for losses, _ in expected] == [6, 12, 2]
    for (losses, weights), (their_losses, their_weights) in zip(expected, got, strict=True):
        assert len(their_losses) == len(losses)
        for step, (mine, theirs) in enumerate(zip(losses, their_losses, strict=True)):
            assert abs(mine - theirs) <= 1e-5, f"step {step}: {mine} vs {theirs}"
        for name, value in weights.items():
            assert their_weights[name].shape == value.shape, name
            assert torch.allclose(their_weights[name], value, atol=1e-5, rtol=0), name
    assert not any(alive(pid) for pid in pids)
