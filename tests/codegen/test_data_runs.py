"""Compiled programs over small in-memory datasets: the example's `loss` and `accuracy` on a
dict batch, loops over `batches` with and without `shuffle`, the loop's batch size as a
value, dropout's paths in a loop over batches, and the errors that name the `.ss` field."""

from __future__ import annotations

import types
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from shapescript.rt import data as rt_data
from shapescript.rt.compiling import remember_lines
from shapescript.rt.errors import DomainError, ShapeError
from shapescript.rt.randomness import Eval, Train
from tests.codegen.compiled import build, load

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

PROGRAM = """\
dim D = 4
dim C = 3

data Digit:
    img: [D]
    label: [] Index[C]

model Net:
    param w: [D C] = normal(std=0.5)

fn forward(m: Net, x: [b D], mode: Mode) -> [b C] = x @ m.w |> dropout(0.5, mode)

fn loss(m: Net, batch: [b] Digit, mode: Mode) -> [] NonNeg:
    return cross_entropy(forward(m, batch.img, mode), batch.label, over=C)

fn count(train: Dataset[Digit]) -> int:
    n = 0
    for batch in train |> batches(4):
        n = n + b
    return n

fn weighted(train: Dataset[Digit], seed: int) -> []:
    s = 0.0 to f32
    k = 0
    for batch in train |> shuffle(seed=seed) |> batches(3):
        k = k + 1
        s = s + sum(batch.img) * (k to f32)
    return s

fn total_loss(m: Net, train: Dataset[Digit], epochs: int, mode: Mode) -> []:
    s = sum(zeros_like(m.w))
    for epoch in 0..epochs:
        for batch in train |> batches(2):
            s = s + loss(m, batch, mode)
    return s

fn pair(x: [b t] Digit, y: [b D]) -> [b t D] = x.img + y
"""


def _dataset(count: int = 10, seed: int = 0) -> torch.utils.data.TensorDataset:
    generator = torch.Generator().manual_seed(seed)
    images = torch.randn(count, 4, generator=generator)
    labels = torch.randint(0, 3, (count,), generator=generator)
    return torch.utils.data.TensorDataset(images, labels)


class ListDataset(torch.utils.data.Dataset):
    """A map-style dataset of dict items, loaded item by item."""

    def __init__(self, items: list[dict]) -> None:
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> dict:
        return self.items[index]


def _example(name: str) -> types.ModuleType:
    """An example compiled and run, with whatever it has that can't compile yet left as
    names that raise when used."""
    path = EXAMPLES / name
    text = path.read_text()
    generated = build(text, str(path))
    remember_lines(str(path), text)
    module = types.ModuleType(name.removesuffix(".ss"))
    module.__file__ = str(path)
    exec(compile(generated.tree, str(path), "exec"), module.__dict__)
    return module


@pytest.fixture(autouse=True)
def _in_process():
    """Batches loaded in this process: these tests are about the compiled code, not workers."""
    before = rt_data.loader_workers()
    rt_data.loader_workers(0)
    yield
    rt_data.loader_workers(before)


def test_the_examples_loss_and_accuracy_on_a_dict_batch() -> None:
    module = _example("train_mlp.ss")
    m = module.Mlp.init(seed=0)
    images = torch.randn(5, 784)
    labels = torch.tensor([0, 3, 9, 2, 2])
    batch = {"img": images, "label": labels}
    logits = F.gelu((images - m.mean) @ m.w1 + m.b1) @ m.w2
    torch.testing.assert_close(module.loss(m, batch, Eval), F.cross_entropy(logits, labels))
    hits = (logits.argmax(-1) == labels).float().mean()
    torch.testing.assert_close(module.accuracy(m, batch), hits)


def test_a_batch_argument_of_the_wrong_shape_names_the_parameter() -> None:
    module = load(PROGRAM, "digits.ss")
    m = module.Net.init(seed=0)
    with pytest.raises(ShapeError) as raised:
        module.loss(m, {"img": torch.randn(5, 3), "label": torch.zeros(5, dtype=torch.long)}, Eval)
    assert (raised.value.path, raised.value.line, raised.value.parameter) == (
        "digits.ss",
        13,
        "batch",
    )
    assert "img" in str(raised.value)


def test_a_loop_over_batches_sees_every_example_and_b_is_the_batch_size() -> None:
    module = load(PROGRAM, "digits.ss")
    assert module.count(_dataset(10)) == 10
    assert module.count(_dataset(3)) == 3
    items = [{"img": torch.randn(4), "label": 1} for _ in range(7)]
    assert module.count(ListDataset(items)) == 7


def test_shuffle_reads_the_dataset_in_the_seeded_order() -> None:
    module = load(PROGRAM, "digits.ss")
    dataset = _dataset(10)
    shuffled = rt_data.shuffle(dataset, 5)
    expected = torch.zeros(())
    for k, start in enumerate(range(0, 10, 3), start=1):
        rows = torch.stack([shuffled[i][0] for i in range(start, min(start + 3, 10))])
        expected = expected + rows.sum() * k
    torch.testing.assert_close(module.weighted(dataset, 5), expected)
    assert torch.equal(module.weighted(dataset, 5), module.weighted(dataset, 5))
    assert not torch.equal(module.weighted(dataset, 5), module.weighted(dataset, 6))


def test_dropout_in_a_loop_over_batches_draws_by_epoch_and_iteration() -> None:
    module = load(PROGRAM, "digits.ss")
    m = module.Net.init(seed=1)
    dataset = _dataset(6)
    mode = Train(seed=7)
    expected = torch.zeros(())
    for epoch in range(2):
        for index, start in enumerate(range(0, 6, 2)):
            batch = {"img": dataset.tensors[0][start : start + 2]}
            batch["label"] = dataset.tensors[1][start : start + 2]
            expected = expected + module.loss(m, batch, mode.child(f"loss@{epoch}.{index}#0"))
    torch.testing.assert_close(module.total_loss(m, dataset, 2, mode), expected)
    assert not torch.equal(
        module.total_loss(m, dataset, 1, mode), module.total_loss(m, dataset, 1, Train(seed=8))
    )


def test_a_bad_item_names_the_field_where_the_record_declares_it() -> None:
    module = load(PROGRAM, "digits.ss")
    items = [{"img": torch.randn(4), "label": 1} for _ in range(5)]
    items[3] = {"img": torch.randn(5), "label": 1}
    with pytest.raises(ShapeError) as raised:
        module.count(ListDataset(items))
    message = str(raised.value)
    assert "digits.ss:5:5" in message and "`img`" in message and "item 3" in message


def test_a_label_outside_its_domain_is_a_domain_error() -> None:
    module = load(PROGRAM, "digits.ss", value_checks="always")
    items = [{"img": torch.randn(4), "label": 1} for _ in range(5)]
    items[2] = {"img": torch.randn(4), "label": 7}
    with pytest.raises(DomainError) as raised:
        module.count(ListDataset(items))
    assert "`label`" in str(raised.value) and "item 2" in str(raised.value)


def test_a_dataset_parameter_checks_its_argument() -> None:
    module = load(PROGRAM, "digits.ss")
    with pytest.raises(ShapeError) as raised:
        module.count(42)
    assert raised.value.parameter == "train" and raised.value.function == "count"


def test_batch_axes_shared_with_a_tensor_are_checked() -> None:
    module = load(PROGRAM, "digits.ss")
    x = {"img": torch.randn(2, 3, 4), "label": torch.zeros(2, 3, dtype=torch.long)}
    out = module.pair(x, torch.ones(2, 4))
    torch.testing.assert_close(out, x["img"] + 1)
    with pytest.raises(ShapeError) as raised:
        module.pair(x, torch.ones(5, 4))
    assert raised.value.parameter == "x" and "batch axis 1" in str(raised.value)
