"""Workers loading their own part of each batch: a loop over a dataset in the controller
sends each worker its examples' indices, never the batch, and gives one device's results."""

from __future__ import annotations

import functools

import pytest
import torch
from torch.utils.data import TensorDataset

import shapescript
from shapescript.rt import data as rt_data
from shapescript.rt import devices
from shapescript.rt.parallel import batches as remote_batches
from shapescript.rt.parallel import wire
from tests.parallel.programs import README, alive, compiled, readme_on
from tests.python.datasets import ListDigits, ListSink

LOOP = (
    (
        "\nfn epochs_of(mut m: Mlp, mut opt: AdamW[Mlp], train: Dataset[Digit], sink: LogSink, "
        "n: int, epochs: int):"
    )
    + """
    for epoch in 0..epochs:
        for batch in train |> shuffle(seed=epoch) |> batches(n):
            sink.write(train_step(mut m, mut opt, batch, Eval))
"""
)


class BadLabels(ListDigits):
    """ListDigits whose item 5 has a label outside [0, 10)."""

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        item = dict(super().__getitem__(index))
        if index == 5:
            item["label"] = torch.tensor(12)
        return item


def _tensors(count: int) -> TensorDataset:
    generator = torch.Generator().manual_seed(1)
    return TensorDataset(
        torch.rand(count, 784, generator=generator),
        torch.randint(0, 10, (count,), generator=generator),
    )


@pytest.fixture(scope="module")
def one_and_three(tmp_path_factory):
    """The same program on one device and on cpu[0 1 2], the workers shared by the tests;
    the second is compiled with `devices=` for a file without a devices line."""
    folder = tmp_path_factory.mktemp("worker-batches")
    threads, loaders = torch.get_num_threads(), rt_data.loader_workers()
    torch.set_num_threads(1)
    rt_data.loader_workers(0)
    one = compiled(readme_on("cpu", extra=LOOP), folder / "one.ss")
    devices._reset_for_tests()
    path = folder / "three.ss"
    path.write_text(README.read_text(encoding="utf-8") + LOOP, encoding="utf-8")
    three = shapescript.compile(path.read_text(encoding="utf-8"), str(path), devices="cpu[0 1 2]")
    yield one, three
    pids = three._ss_program.pids()
    three._ss_program.stop()
    rt_data.loader_workers(loaders)
    torch.set_num_threads(threads)
    assert not any(alive(pid) for pid in pids)


def _train(module, dataset, n: int, epochs: int = 3):
    sink = ListSink()
    m = module.Mlp.init(seed=0)
    opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
    module.epochs_of(m, opt, dataset, sink, n, epochs)
    return [row["loss"] for row in sink.rows], {k: v.clone() for k, v in m.state_dict().items()}


def _same(one, three) -> None:
    (losses, weights), (their_losses, their_weights) = one, three
    assert len(losses) == len(their_losses)
    for step, (mine, theirs) in enumerate(zip(losses, their_losses, strict=True)):
        assert abs(mine - theirs) <= 1e-5, f"step {step}: {mine} vs {theirs}"
    for name, value in weights.items():
        assert torch.allclose(their_weights[name], value, atol=1e-5, rtol=0), name


@pytest.mark.slow
@pytest.mark.parametrize("n", [30, 16], ids=["divides-by-3", "does-not-divide"])
@pytest.mark.parametrize("kind", ["list", "tensors"])
def test_workers_loading_their_parts_train_as_one_device(one_and_three, kind, n, monkeypatch):
    one, three = one_and_three
    dataset = ListDigits(50) if kind == "list" else _tensors(50)
    sent = []
    post = type(three._ss_program)._post_all

    def spy(program, messages):
        sent.extend(messages)
        return post(program, messages)

    monkeypatch.setattr(type(three._ss_program), "_post_all", spy)
    _same(_train(one, dataset, n), _train(three, dataset, n))
    calls = [m for m in sent if m[0] == "call"]
    assert calls and all(isinstance(m[3]["batch"], wire.Part) for m in calls)
    # The dataset went to each worker once, however many epochs and batches.
    assert sum(1 for m in sent if m[0] == "dataset") == 3


@pytest.mark.slow
def test_an_item_one_worker_cannot_load_raises_before_any_worker_steps(one_and_three):
    _, three = one_and_three
    m = three.Mlp.init(seed=0)
    opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
    # The fixture may be new to this test (xdist can run another module's tests in between).
    three._ss_program.start()
    pids = three._ss_program.pids()
    assert len(pids) == 3
    with pytest.raises(shapescript.DomainError) as caught:
        three.epochs_of(m, opt, BadLabels(12), ListSink(), 12, 1)
    assert "item 5" in str(caught.value)
    # Every worker agreed not to step: they are still there, and the model is as it was.
    assert three._ss_program.pids() == pids
    assert torch.equal(m.w1, three.Mlp.init(seed=0).w1)


def test_a_batch_the_workers_load_is_loaded_in_the_controller_when_read() -> None:
    dataset = ListDigits(10)
    indices = torch.tensor([3, 1, 4]).numpy()
    batch = remote_batches.RemoteBatch(dataset, indices, _digit_record(), "t.ss:1:1")
    assert len(batch) == 3
    assert "img" not in batch.__dict__
    assert torch.equal(batch.img, torch.stack([dataset[i]["img"] for i in (3, 1, 4)]))


@functools.cache
def _digit_record():
    text = readme_on("cpu")
    devices._reset_for_tests()
    module = shapescript.compile(text, "digits.ss")
    return module.Digit


class _Unpicklable(ListDigits):
    """ListDigits holding a lambda, which can't be pickled."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.transform = lambda item: item


def test_a_loop_over_a_dataset_gives_each_batch_as_its_indices() -> None:
    found = remote_batches.remote_loop(ListDigits(10), None, 4, _digit_record(), "t.ss:1:1")
    assert found is not None
    assert [b.__dict__["_ss_source"][1].tolist() for b in found] == [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [8, 9],
    ]


def test_a_dataset_the_workers_cannot_be_sent_is_loaded_in_the_controller() -> None:
    with pytest.warns(RuntimeWarning, match="loaded in the controller.*can't be pickled"):
        found = remote_batches.remote_loop(_Unpicklable(10), None, 4, _digit_record(), "t.ss:1:1")
    assert found is None


@pytest.mark.slow
def test_a_batch_from_python_passed_again_is_not_sent_again(one_and_three, monkeypatch):
    one, three = one_and_three
    sent = []
    post = type(three._ss_program)._post_all

    def spy(program, messages):
        sent.extend(m for m in messages if m[0] == "call")
        return post(program, messages)

    monkeypatch.setattr(type(three._ss_program), "_post_all", spy)
    batch = {"img": torch.rand(8, 784), "label": torch.arange(8) % 10}
    models = [(module.Mlp.init(seed=0), module) for module in (one, three)]
    optimizers = [shapescript.rt.optimizers.adamw(m, lr=3e-4) for m, _ in models]
    kinds = []
    for step in range(3):
        if step == 2:
            batch["img"].mul_(0.5)  # changed in place: sent again
        losses = [
            float(module.train_step(m, opt, batch, shapescript.Eval).loss)
            for (m, module), opt in zip(models, optimizers, strict=True)
        ]
        assert abs(losses[0] - losses[1]) <= 1e-5, f"step {step}: {losses}"
        kinds.append(type(sent[-1][3]["batch"]).__name__)
    assert kinds == ["Kept", "Again", "Kept"]
