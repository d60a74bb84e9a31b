"""`as_batch`: the argument check of a `[b] Digit` parameter."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import shapescript
from shapescript.rt import data as data_module
from shapescript.rt import modes
from shapescript.rt.data import Batch, Record, as_batch
from tests.rt_data.records import Digit, Pair

WHERE = "mnist.ss:12:10"


def check(value: Any, record: type[Record] = Digit, **options: Any) -> Batch:
    return as_batch(value, record, WHERE, "batch", function="step", **options)


def digits(count: int = 4) -> dict[str, torch.Tensor]:
    return {"img": torch.zeros(count, 784), "label": torch.arange(count)}


def failure(value: Any, error: type[Exception] = shapescript.ShapeError, **options: Any) -> str:
    with pytest.raises(error) as caught:
        check(value, **options)
    prefix = "mnist.ss:12:10: in fn step, argument for parameter `batch`: "
    text = str(caught.value)
    assert text.startswith(prefix)
    return text.removeprefix(prefix)


def test_a_dict_of_the_fields_becomes_a_batch() -> None:
    fields = digits() | {"extra": 1}
    batch = check(fields)
    assert isinstance(batch, Batch) and batch.record is Digit and len(batch) == 4
    assert batch.img is fields["img"]
    assert check(batch) is batch


def test_each_field_is_checked_as_a_tensor_argument() -> None:
    assert failure({"img": torch.zeros(4, 784)}) == "the batch of Digit has no field `label`"
    assert failure(digits() | {"label": [1, 2]}) == (
        "field `label` should be a tensor [b], got list"
    )
    assert failure(digits() | {"img": torch.zeros(4, 783)}) == (
        "field `img` should be [b D] = (b, 784), got shape (4, 783)"
    )
    assert failure(digits() | {"img": torch.zeros(784)}) == (
        "field `img` should be [b D] = (b, 784), got shape (784,)"
    )
    assert failure(digits() | {"label": torch.zeros(4)}) == (
        "field `label` should be [b] with i64 values, got f32; convert it first, with "
        ".to(torch.int64)"
    )
    assert failure(digits() | {"label": torch.arange(3)}) == (
        "the fields' batch sizes differ: `img` has (4,), but `label` has (3,)"
    )


def test_several_batch_axes() -> None:
    fields = {"img": torch.zeros(2, 3, 784), "label": torch.zeros(2, 3, dtype=torch.int64)}
    assert len(check(fields, axes=2)) == 2
    assert failure(digits(), axes=2) == (
        "field `img` should be [b1 b2 D] = (b1, b2, 784), got shape (4, 784)"
    )


def test_only_a_batch_of_the_same_record() -> None:
    pair = Batch(Pair, {"x": torch.zeros(2, 2, dtype=torch.float64), "flag": torch.ones(2) > 0})
    assert failure(pair) == "expected a batch of Digit, got a batch of Pair"
    assert failure(torch.zeros(4, 784)).startswith(
        "expected a batch of Digit: a shapescript.rt.Batch, or a dict of its fields (img, label), "
        "got Tensor"
    )

    class Again(Record):
        _ss_name = "Digit"
        _ss_fields = Digit._ss_fields

    assert check(Batch(Again, digits())).record is Again


def test_domains_with_value_checks_on() -> None:
    bad = digits() | {"label": torch.tensor([1, 2, 10, 3])}
    message = failure(bad, shapescript.DomainError)
    assert message == (
        "field `label` of example 2 breaks the promise of its type [] Index[C]: "
        "expected indices in 0..10, got 10"
    )
    modes.install(value_checks="never")
    assert len(check(bad)) == 4


def test_a_tensor_on_another_device() -> None:
    meta = digits() | {"img": torch.zeros(4, 784, device="meta")}
    assert failure(meta, shapescript.DeviceError).startswith(
        "field `img` is on meta, but the program runs on cpu"
    )


def test_a_checked_batch_is_not_checked_again_until_it_changes(monkeypatch) -> None:
    batch = check(digits())
    calls = []
    real = data_module.check_domains
    monkeypatch.setattr(
        data_module, "check_domains", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    assert check(batch) is batch
    assert not calls
    batch.label[2] = 10
    assert failure(batch, shapescript.DomainError).startswith("field `label` of example 2")
    batch.label[2] = 2
    batch.img = torch.zeros(4, 783)
    assert failure(batch) == "field `img` should be [b D] = (b, 784), got shape (4, 783)"


def test_a_batch_checked_without_value_checks_is_checked_for_its_values_once_they_are_on() -> None:
    modes.install(value_checks="never")
    batch = check(digits() | {"label": torch.tensor([1, 2, 10, 3])})
    modes.install(value_checks="always")
    assert failure(batch, shapescript.DomainError).startswith("field `label` of example 2")


def test_a_batch_checked_with_other_batch_axes_is_checked_again() -> None:
    batch = check(digits())
    assert failure(batch, axes=2).startswith("field `img` should be [b1 b2 D]")
