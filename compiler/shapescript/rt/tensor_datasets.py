"""Datasets kept on the device: a `TensorDataset` checked once, whole, and gathered there.

Its tensors are checked against the record and converted when a loop first needs them, and
again only when one of them is replaced or changed in place (its `_version` moves). Each
batch is then an `index_select` on the device: no items, no workers, no check per batch.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import torch
from torch.utils.data import TensorDataset

from shapescript.records import record
from shapescript.rt.checks import DTYPES
from shapescript.rt.items import RecordField, kind_fits

#: The share of a GPU's free memory a dataset may take to be kept there.
GPU_SHARE = 0.25


def is_plain(dataset: object) -> bool:
    """A TensorDataset, or a subclass that loads items as TensorDataset does."""
    cls = type(dataset)
    if cls is TensorDataset:
        return True
    return (
        issubclass(cls, TensorDataset)
        and cls.__getitem__ is TensorDataset.__getitem__
        and cls.__len__ is TensorDataset.__len__
        and not hasattr(dataset, "__getitems__")
    )


@record
class Prepared:
    """A TensorDataset's tensors as the record's fields, checked and converted.

    `fields` is None when some item doesn't fit: the dataset is then loaded item by item,
    which names it.
    """

    sources: tuple[Any, ...]
    versions: tuple[int, ...]
    fields_of: tuple[RecordField, ...]
    device: torch.device
    value_checks: bool
    fields: dict[str, torch.Tensor] | None
    on_device: bool

    def current(
        self,
        sources: tuple[Any, ...],
        fields: tuple[RecordField, ...],
        device: torch.device,
        value_checks: bool,
    ) -> bool:
        """Whether this is still the dataset's state for a loop with these settings."""
        return (
            len(sources) == len(self.sources)
            and all(new is old for new, old in zip(sources, self.sources, strict=True))
            and _versions(sources) == self.versions
            and fields == self.fields_of
            and device == self.device
            and (self.value_checks or not value_checks)
        )

    def batches(
        self, order: torch.Tensor | None, size: int, count: int
    ) -> Iterator[dict[str, torch.Tensor]]:
        """The batches' fields on the declared device, in `order` (else the dataset's)."""
        assert self.fields is not None
        if order is None:
            order = torch.arange(count)
        if self.on_device and self.device.type != "cpu":
            order = order.to(self.device)
            for start in range(0, count, size):
                chosen = order[start : start + size]
                yield {name: values.index_select(0, chosen) for name, values in self.fields.items()}
            return
        rows = {name: _rows(values) for name, values in self.fields.items()}
        chosen_all = order.numpy()
        for start in range(0, count, size):
            chosen = chosen_all[start : start + size]
            fields = {
                name: _gathered(rows[name], values, chosen) for name, values in self.fields.items()
            }
            if not self.on_device:
                fields = {name: values.to(self.device) for name, values in fields.items()}
            yield fields


def _rows(values: torch.Tensor) -> np.ndarray:
    """A CPU tensor's rows as bytes, for numpy to gather."""
    return values.contiguous().reshape(len(values), -1).view(torch.uint8).numpy()


def _gathered(rows: np.ndarray, values: torch.Tensor, chosen: np.ndarray) -> torch.Tensor:
    """The rows at `chosen`, gathered by numpy in this thread: torch's index_select splits a
    batch among its threads, which costs far more than it saves when other processes (the
    training step's, or another program's) keep the cores busy."""
    taken = torch.from_numpy(rows.take(chosen, axis=0))
    return taken.view(values.dtype).reshape(len(chosen), *values.shape[1:])


_prepared: weakref.WeakKeyDictionary[TensorDataset, Prepared] = weakref.WeakKeyDictionary()


def _versions(sources: Sequence[Any]) -> tuple[int, ...]:
    return tuple(getattr(tensor, "_version", -1) for tensor in sources)


def _whole_fits(field: RecordField, tensor: Any, count: int) -> bool:
    return (
        isinstance(tensor, torch.Tensor)
        and tensor.dim() == len(field.shape) + 1
        and tensor.shape[0] == count
        and tensor.shape[1:] == field.shape
        and kind_fits(DTYPES[field.dtype], tensor.dtype)
    )


def _fits_on(device: torch.device, fields: dict[str, torch.Tensor]) -> bool:
    """Whether the converted tensors may be kept on the device."""
    if device.type != "cuda":
        return True
    free, _total = torch.cuda.mem_get_info(device)
    needed = sum(tensor.numel() * tensor.element_size() for tensor in fields.values())
    return needed <= free * GPU_SHARE


def prepare(
    dataset: TensorDataset,
    fields: tuple[RecordField, ...],
    device: torch.device,
    value_checks: bool,
) -> Prepared:
    """The dataset checked and converted for a loop (the last loop's, if nothing changed)."""
    sources = tuple(dataset.tensors)
    known = _prepared.get(dataset)
    if known is not None and known.current(sources, fields, device, value_checks):
        return known
    made = Prepared(
        sources,
        _versions(sources),
        fields,
        device,
        value_checks,
        _converted(sources, fields, len(dataset), value_checks),
        False,
    )
    if made.fields is not None:
        made.on_device = _fits_on(device, made.fields)
        place = device if made.on_device else torch.device("cpu")
        made.fields = {name: tensor.to(place).contiguous() for name, tensor in made.fields.items()}
    _prepared[dataset] = made
    return made


def _converted(
    sources: tuple[Any, ...], fields: tuple[RecordField, ...], count: int, value_checks: bool
) -> dict[str, torch.Tensor] | None:
    """The tensors as the fields' dtypes, or None when some item doesn't fit the record."""
    if len(sources) != len(fields):
        return None
    converted = {}
    for field, tensor in zip(fields, sources, strict=True):
        if not _whole_fits(field, tensor, count):
            return None
        values = tensor.detach().to(DTYPES[field.dtype])
        if value_checks and field.domain_bad is not None and bool(field.domain_bad(values).any()):
            return None
        converted[field.name] = values
    return converted
