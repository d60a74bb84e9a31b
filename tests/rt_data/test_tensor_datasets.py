"""A TensorDataset is checked once, whole, converted, and gathered on the device."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch.utils.data import TensorDataset

import shapescript
from shapescript.rt import tensor_datasets
from shapescript.rt.data import Record, RecordField, batches, shuffle
from tests.rt_data.records import Digit, Digits

WHERE = "mnist.ss:20:5"


def counted() -> tuple[type[Record], list[int]]:
    """A record like Digit whose label domain counts how often it is checked."""
    calls: list[int] = []

    def bad(values: torch.Tensor) -> torch.Tensor:
        calls.append(len(values))
        return (values < 0) | (values >= 10)

    class Counted(Record):
        _ss_name = "Digit"
        _ss_fields = (
            Digit._ss_fields[0],
            RecordField("label", (), "i64", "mnist.ss:9:5", "[] Index[C]", bad, "indices in 0..10"),
        )

    return Counted, calls


def tensor_digits(count: int) -> TensorDataset:
    digits = Digits(count)
    return TensorDataset(digits.images.double(), digits.labels.int())


def test_batches_are_gathered_from_the_converted_tensors() -> None:
    dataset = tensor_digits(50)
    order = shuffle(dataset, 2).order
    loaded = list(batches(shuffle(dataset, 2), 16, Digit, WHERE))
    assert [len(batch) for batch in loaded] == [16, 16, 16, 2]
    images = torch.cat([batch.img for batch in loaded])
    assert images.dtype == torch.float32 and loaded[0].label.dtype == torch.int64
    assert torch.equal(images, dataset.tensors[0][order].float())
    # The same batches as the dataset loaded item by item.
    items = [dataset[index] for index in range(50)]
    by_item = list(batches(shuffle(items, 2), 16, Digit, WHERE))
    for fast, slow in zip(loaded, by_item, strict=True):
        assert torch.equal(fast.img, slow.img) and torch.equal(fast.label, slow.label)


def test_it_is_checked_once_and_again_after_an_in_place_change() -> None:
    record, calls = counted()
    dataset = tensor_digits(40)
    for _ in range(3):
        assert len(list(batches(shuffle(dataset, 0), 16, record, WHERE))) == 3
    assert calls == [40]
    dataset.tensors[1][25] = 12
    with pytest.raises(shapescript.DomainError) as caught:
        list(batches(dataset, 16, record, WHERE))
    assert str(caught.value).startswith("mnist.ss:9:5: field `label` of item 25 breaks")
    dataset.tensors[1][25] = 2
    assert len(list(batches(dataset, 16, record, WHERE))) == 3


def test_replacing_a_tensor_checks_it_again() -> None:
    dataset = tensor_digits(10)
    list(batches(dataset, 4, Digit, WHERE))
    dataset.tensors = (dataset.tensors[0][:, :-1], dataset.tensors[1])
    with pytest.raises(shapescript.ShapeError) as caught:
        list(batches(dataset, 4, Digit, WHERE))
    assert str(caught.value) == (
        "mnist.ss:8:5: field `img` of item 0 should be [D] = (784,), got shape (783,)"
    )


def test_a_bad_item_is_named_as_the_loader_would_in_the_loops_order() -> None:
    dataset = tensor_digits(30)
    dataset.tensors[1][[4, 21]] = -1
    order = shuffle(dataset, 5).order.tolist()
    first = min(4, 21, key=order.index)
    with pytest.raises(shapescript.DomainError, match=f"`label` of item {first} breaks"):
        list(batches(shuffle(dataset, 5), 8, Digit, WHERE))


def test_only_datasets_that_load_items_as_tensordataset_does() -> None:
    class Plain(TensorDataset):
        pass

    class Augmented(TensorDataset):
        def __getitem__(self, index: int) -> Any:
            image, label = super().__getitem__(index)
            return image + 1, label

    class Whole(TensorDataset):
        def __getitems__(self, indices: list[int]) -> list[Any]:
            return [self[index] for index in indices]

    tensors = tensor_digits(5).tensors
    assert tensor_datasets.is_plain(TensorDataset(*tensors))
    assert tensor_datasets.is_plain(Plain(*tensors))
    assert not tensor_datasets.is_plain(Augmented(*tensors))
    assert not tensor_datasets.is_plain(Whole(*tensors))
    (batch,) = batches(Augmented(*tensors), 8, Digit, WHERE)
    assert torch.equal(batch.img, tensors[0].float() + 1)


def test_another_number_of_tensors_is_loaded_item_by_item() -> None:
    dataset = TensorDataset(torch.zeros(3, 784))
    with pytest.raises(shapescript.ShapeError, match="item 0 is a tuple of 1 values"):
        list(batches(dataset, 2, Digit, WHERE))


def test_fields_of_any_dtype_are_gathered() -> None:
    class Mixed(Record):
        _ss_name = "Mixed"
        _ss_fields = (
            RecordField("half", (2,), "bf16", "m.ss:2:5", "[2] bf16"),
            RecordField("flag", (), "bool", "m.ss:3:5", "[] bool"),
            RecordField("small", (3,), "u8", "m.ss:4:5", "[3] u8"),
        )

    half = torch.randn(9, 2).to(torch.bfloat16)
    flags = torch.arange(9) % 3 == 0
    small = torch.randint(0, 255, (9, 3), dtype=torch.uint8)
    dataset = TensorDataset(half, flags, small.t().contiguous().t())
    order = shuffle(dataset, 1).order
    loaded = list(batches(shuffle(dataset, 1), 4, Mixed, WHERE))
    assert torch.equal(torch.cat([batch.half for batch in loaded]), half[order])
    assert torch.equal(torch.cat([batch.flag for batch in loaded]), flags[order])
    assert torch.equal(torch.cat([batch.small for batch in loaded]), small[order])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_on_a_gpu_batches_are_gathered_there() -> None:
    from shapescript.rt import devices

    devices._reset_for_tests()
    shapescript.devices("cuda[0]")
    dataset = tensor_digits(40)
    loaded = list(batches(shuffle(dataset, 1), 16, Digit, WHERE))
    assert all(batch.img.device.type == "cuda" for batch in loaded)
    prepared = tensor_datasets.prepare(dataset, Digit._ss_fields, devices.device(), True)
    assert prepared.on_device and prepared.fields["img"].device.type == "cuda"
    items = [dataset[index] for index in range(40)]
    by_item = list(batches(shuffle(items, 1), 16, Digit, WHERE))
    assert all(batch.label.device.type == "cuda" for batch in by_item)
    for fast, slow in zip(loaded, by_item, strict=True):
        assert torch.equal(fast.img, slow.img)
