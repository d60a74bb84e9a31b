"""The loader in the calling process: items checked against the record, stacked, converted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

import shapescript
from shapescript.rt import data, devices, modes
from shapescript.rt.data import Batch, batches, shuffle
from tests.rt_data.records import Digit, Digits, Pair, Value
from tests.snapshot import assert_matches_snapshot

EXPECTED = Path(__file__).parent / "expected"
WHERE = "mnist.ss:20:5"


def load(dataset: Any, record: type = Digit, n: int = 8) -> list[Batch]:
    return list(batches(dataset, n, record, WHERE))


def test_a_bad_item_in_the_middle_names_the_field_and_the_item() -> None:
    dataset = Digits(100, bad=37)
    loaded = []
    with pytest.raises(shapescript.ShapeError) as caught:
        for batch in batches(dataset, 8, Digit, WHERE):
            loaded.append(batch)
    error = caught.value
    assert_matches_snapshot(f"{type(error).__name__}: {error}", EXPECTED / "bad_item.expected")
    assert (error.path, error.line, error.column) == ("mnist.ss", 8, 5)
    # Raised with the batch holding item 37, before that batch reaches the loop's body.
    assert len(loaded) == 4


def test_items_may_be_dicts_tuples_or_lists() -> None:
    images, labels = torch.randn(3, 784), [4, 0, 9]
    as_dicts = [{"img": images[i], "label": labels[i], "extra": "ignored"} for i in range(3)]
    as_tuples = [(images[i], labels[i]) for i in range(3)]
    as_lists = [[images[i], labels[i]] for i in range(3)]
    for items in (as_dicts, as_tuples, as_lists):
        (batch,) = load(items)
        assert torch.equal(batch.img, images)
        assert batch.label.tolist() == labels and batch.label.dtype == torch.int64


def test_an_item_of_a_one_field_record_may_be_its_value() -> None:
    rows = torch.randn(4, 3)
    for items in (
        list(rows),
        [(row,) for row in rows],
        [{"v": row} for row in rows],
        [row.tolist() for row in rows],
    ):
        (batch,) = load(items, Value)
        assert torch.equal(batch.v, rows)


def test_a_record_instance_is_an_item() -> None:
    items = [Digit(img=torch.zeros(784), label=3), Digit(img=torch.ones(784), label=4)]
    (batch,) = load(items)
    assert batch.label.tolist() == [3, 4]


def test_items_missing_a_field_or_with_the_wrong_number_of_values() -> None:
    items = [(torch.zeros(784), 1)] * 5 + [{"img": torch.zeros(784), "lable": 1}]
    with pytest.raises(shapescript.ShapeError) as caught:
        load(items)
    assert str(caught.value) == (
        "mnist.ss:9:5: field `label` of item 5 is missing: the item has no key 'label' "
        "(its keys: 'img', 'lable')"
    )
    with pytest.raises(shapescript.ShapeError, match="item 0 is a tuple of 3 values"):
        load([(torch.zeros(784), 1, 2)])
    with pytest.raises(shapescript.ShapeError, match="item 0 is a str"):
        load(["not an item"])


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        ([1, 2], torch.float64),
        ([True, 2.5], torch.float64),
        ([torch.tensor([1, 2]), torch.tensor([3, 4], dtype=torch.int32)], torch.float64),
    ],
)
def test_a_float_field_takes_any_numbers(values: list, dtype: torch.dtype) -> None:
    items = [
        {"x": value if isinstance(value, torch.Tensor) else [value, value], "flag": True}
        for value in values
    ]
    (batch,) = load(items, Pair)
    assert batch.x.dtype == dtype


def test_python_floats_are_converted_once_to_the_fields_dtype() -> None:
    third = 1 / 3
    (batch,) = load([{"x": [third, 0.1], "flag": False}], Pair)
    assert batch.x.tolist() == [[third, 0.1]]
    (batch,) = load([{"img": [third] * 784, "label": 0}])
    assert batch.img.dtype == torch.float32
    assert batch.img[0, 0] == torch.tensor(third, dtype=torch.float64).float()


def test_an_integer_field_takes_integers_and_booleans_only() -> None:
    (batch,) = load(
        [(torch.zeros(784), True), (torch.zeros(784), torch.tensor(3, dtype=torch.int8))]
    )
    assert batch.label.tolist() == [1, 3] and batch.label.dtype == torch.int64
    with pytest.raises(shapescript.ShapeError) as caught:
        load([(torch.zeros(784), 1), (torch.zeros(784), 2.0)])
    assert str(caught.value) == (
        "mnist.ss:9:5: field `label` of item 1 should hold integers or booleans, as its type "
        "[] Index[C] (i64) does, got float 2.0"
    )
    with pytest.raises(shapescript.ShapeError, match="item 0 should hold integers.*got f32 values"):
        load([(torch.zeros(784), torch.tensor(1.0))])


def test_a_bool_field_takes_booleans_only() -> None:
    (batch,) = load([{"x": [0, 1], "flag": True}, {"x": [0, 1], "flag": torch.tensor(False)}], Pair)
    assert batch.flag.tolist() == [True, False]
    with pytest.raises(shapescript.ShapeError, match="`flag` of item 1 should hold booleans"):
        load([{"x": [0, 1], "flag": True}, {"x": [0, 1], "flag": 1}], Pair)


def test_values_that_are_not_numbers() -> None:
    with pytest.raises(shapescript.ShapeError, match="`x` of item 0 should be .*got a str"):
        load([{"x": "ab", "flag": True}], Pair)
    with pytest.raises(shapescript.ShapeError, match="`x` of item 1 should hold numbers"):
        load([{"x": [1.0, 2.0], "flag": True}, {"x": [1j, 2.0], "flag": True}], Pair)


def test_a_field_of_the_wrong_shape_in_every_item_names_the_first() -> None:
    items = [(torch.zeros(783), 1)] * 3
    with pytest.raises(shapescript.ShapeError, match="item 0 should be"):
        load(items)


def test_domains_are_checked_with_value_checks_on() -> None:
    items = [(torch.zeros(784), label) for label in (1, 2, 3, 10, 4)]
    with pytest.raises(shapescript.DomainError) as caught:
        load(items, n=2)
    assert str(caught.value) == (
        "mnist.ss:9:5: field `label` of item 3 breaks the promise of its type [] Index[C]: "
        "expected indices in 0..10, got 10"
    )
    modes.install(value_checks="never")
    assert len(load(items, n=2)) == 3


def test_a_domain_checked_as_a_whole_still_names_the_item() -> None:
    whole = (
        data.RecordField(
            "p",
            (2,),
            "f32",
            "p.ss:1:1",
            "[2] Prob",
            lambda v: (v.sum(-1) - 1).abs().max() > 1e-3,
            "values that sum to 1",
        ),
    )

    class Probs(data.Record):
        _ss_name = "Probs"
        _ss_fields = whole

    items = [[0.5, 0.5], [0.25, 0.75], [0.5, 0.4]]
    with pytest.raises(shapescript.DomainError, match="`p` of item 2 breaks"):
        load(items, Probs)


def test_an_error_in_getitem_names_the_item() -> None:
    class Broken(Digits):
        def __getitem__(self, index: int) -> Any:
            if index == 5:
                raise KeyError("gone")
            return super().__getitem__(index)

    with pytest.raises(KeyError) as caught:
        load(Broken(10))
    assert "(raised while loading item 5 of the dataset)" in caught.value.__notes__


def test_the_last_batch_has_the_examples_left() -> None:
    loader = batches(Digits(100), 64, Digit, WHERE)
    assert len(loader) == 2
    assert [len(batch) for batch in loader] == [64, 36]
    assert load(Digits(0)) == []


def test_batches_follow_the_dataset_and_are_on_the_declared_device() -> None:
    dataset = Digits(20)
    loaded = load(dataset, n=8)
    assert torch.equal(torch.cat([batch.img for batch in loaded]), dataset.images)
    assert all(batch.img.device == devices.device() for batch in loaded)


def test_batches_need_declared_devices() -> None:
    devices._reset_for_tests()
    with pytest.raises(shapescript.DeviceError):
        load(Digits(4))


def test_a_batch_size_below_one() -> None:
    with pytest.raises(shapescript.ShapeError, match=r"^mnist\.ss:20:5: batches: n is 0"):
        batches(Digits(4), 0, Digit, WHERE)


def test_shuffle_is_deterministic_and_independent_of_global_randomness() -> None:
    dataset = Digits(50)
    torch.manual_seed(0)
    state = torch.get_rng_state()
    first = shuffle(dataset, 3).order
    assert torch.equal(torch.get_rng_state(), state)
    torch.manual_seed(123)
    torch.rand(10)
    assert torch.equal(shuffle(dataset, 3).order, first)
    assert not torch.equal(shuffle(dataset, 4).order, first)
    assert sorted(first.tolist()) == list(range(50))
    labels = [label for batch in load(shuffle(dataset, 3), n=16) for label in batch.label.tolist()]
    assert labels == dataset.labels[first].tolist()


def test_a_bad_item_is_named_by_its_index_in_the_dataset_after_shuffling() -> None:
    with pytest.raises(shapescript.ShapeError, match="item 37 should be"):
        load(shuffle(Digits(100, bad=37), 1))


def test_getitems_gives_a_batch_checked_whole() -> None:
    class Whole(Digits):
        asked: list[list[int]] = []

        def __getitems__(self, indices: list[int]) -> list[Any]:
            self.asked.append(indices)
            return [super(Whole, self).__getitem__(index) for index in indices]

    dataset = Whole(10, bad=7)
    with pytest.raises(shapescript.ShapeError, match="`img` of item 7 should be"):
        load(dataset, n=4)
    assert dataset.asked == [[0, 1, 2, 3], [4, 5, 6, 7]]

    class Collated(Digits):
        def __getitems__(self, indices: list[int]) -> dict[str, torch.Tensor]:
            return {"img": self.images[indices].double(), "label": self.labels[indices]}

    dataset = Collated(10)
    loaded = load(dataset, n=4)
    assert loaded[0].img.dtype == torch.float32
    assert torch.equal(torch.cat([batch.label for batch in loaded]), dataset.labels)

    class Short(Digits):
        def __getitems__(self, indices: list[int]) -> dict[str, torch.Tensor]:
            return {"img": self.images[indices][:, :5], "label": self.labels[indices]}

    with pytest.raises(shapescript.ShapeError) as caught:
        load(Short(10), n=4)
    assert "field `img` of the batch `__getitems__` gave for items 0, 1, 2 and 3" in str(
        caught.value
    )


def test_a_batch_has_its_fields_as_attributes() -> None:
    batch = Batch(Digit, {"img": torch.zeros(2, 784), "label": torch.tensor([1, 2])})
    assert len(batch) == 2 and batch.record is Digit
    assert repr(batch) == "Batch[Digit](img=<(2, 784) f32>, label=<(2,) i64>)"
    with pytest.raises(AttributeError, match="a batch of Digit has no field `lbl`"):
        batch.lbl  # noqa: B018
    with pytest.raises(TypeError, match="needs field `label`"):
        Batch(Digit, {"img": torch.zeros(2, 784)})
    assert shapescript.rt.Batch is Batch


def test_check_dataset_takes_map_style_datasets() -> None:
    for dataset in (Digits(3), [(torch.zeros(784), 1)], torch.utils.data.TensorDataset()):
        assert data.check_dataset(dataset, Digit, "m.ss:4:9", "train") is dataset
    with pytest.raises(shapescript.ShapeError) as caught:
        data.check_dataset(3, Digit, "m.ss:4:9", "train", function="fit")
    assert str(caught.value).startswith(
        "m.ss:4:9: in fn fit, argument for parameter `train`: expected a dataset of Digit"
    )
    with pytest.raises(shapescript.ShapeError, match="TensorDataset"):
        data.check_dataset({"img": torch.zeros(2, 784)}, Digit, "m.ss:4:9", "train")


def test_lists_of_python_numbers_keep_their_precision_in_a_float_field() -> None:
    (batch,) = load([{"x": [1, 0.1], "flag": True}, {"x": (True, 1 / 3), "flag": False}], Pair)
    assert batch.x.tolist() == [[1.0, 0.1], [1.0, 1 / 3]]
    assert not batch.x.requires_grad
