"""Batches the workers load themselves: a loop over a dataset's batches in the controller
yields `RemoteBatch`es, each the indices of its examples, and a call on the workers sends
each worker its part of the indices; the dataset itself is sent to each worker once.

A dataset the workers can't be sent (one that refers to the main script, or can't be
pickled) is loaded in the controller, with a warning, and its batches are sent as tensors.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from shapescript.rt.data import Batch, Record, Shuffled

#: Each dataset's length, pickled bytes until a program has sent them (then None), and
#: why it can't be sent (None if it can), by id, while it lives.
_PICKLED: dict[int, tuple[int, bytes | None, str | None]] = {}


def on_controller() -> bool:
    """Whether this process is the controller of a program on several devices."""
    from shapescript.rt import devices
    from shapescript.rt.parallel import controller

    declared = devices._declared
    return declared is not None and declared.spec.several and not controller.ON_WORKER


class RemoteBatch(Batch):
    """A batch that the workers load, each its part: here, its examples' indices. Reading a
    field in the controller loads the batch here."""

    def __init__(self, dataset: Any, indices: np.ndarray, record: type[Record], where: str):
        self.__dict__["_ss_record"] = record
        self.__dict__["_ss_source"] = (dataset, indices, where)

    def __getattr__(self, name: str) -> Any:
        if name not in ("record", "_ss_checked") and not name.startswith("__"):
            fields = {f.name for f in self.__dict__["_ss_record"]._ss_fields}
            if name in fields:
                self._load_here()
                return self.__dict__[name]
        return super().__getattr__(name)

    def _fields(self) -> dict[str, torch.Tensor]:
        self._load_here()
        return super()._fields()

    def __len__(self) -> int:
        return len(self.__dict__["_ss_source"][1])

    def _load_here(self) -> None:
        if "_ss_checked" in self.__dict__:
            return
        dataset, indices, where = self.__dict__["_ss_source"]
        loaded = load_part(dataset, indices, self.__dict__["_ss_record"], where)
        self.__dict__.update(loaded.__dict__)


def pickled(dataset: Any) -> tuple[bytes | None, str | None]:
    """The dataset's bytes for the workers (made once while its length stays), or why it
    can't be sent."""
    from shapescript.rt.worker_pool import _pickled

    key = id(dataset)
    known = _PICKLED.get(key)
    if known is not None and known[0] == len(dataset) and (known[1] or known[2]):
        return known[1], known[2]
    data, reason = _pickled(dataset)
    try:
        if known is None:
            weakref.finalize(dataset, _PICKLED.pop, key, None)
    except TypeError:
        return data, reason  # no weak references: pickled again each time
    _PICKLED[key] = (len(dataset), data, reason)
    return data, reason


def unsendable(dataset: Any) -> str | None:
    """Why the dataset can't be sent to the workers, or None when it can."""
    known = _PICKLED.get(id(dataset))
    if known is not None and known[0] == len(dataset):
        return known[2]
    return pickled(dataset)[1]


def sent(dataset: Any) -> None:
    """Forget the dataset's bytes once the workers have them; they are made again if
    another program's workers need them."""
    known = _PICKLED.get(id(dataset))
    if known is not None:
        _PICKLED[id(dataset)] = (known[0], None, known[2])


def remote_loop(
    base: Any, order: torch.Tensor | None, size: int, record: type[Record], where: str
) -> Iterator[Batch] | None:
    """The loop's batches as the workers' to load, or None (warned of) when the dataset
    can't be sent to them."""
    count = len(base) if order is None else len(order)
    if count == 0:
        return iter(())
    reason = unsendable(base)
    if reason is not None:
        warnings.warn(
            f"the dataset ({type(base).__name__}) is loaded in the controller and each "
            f"batch sent to the workers through pipes, not loaded by the workers: {reason}",
            RuntimeWarning,
            stacklevel=4,
        )
        return None
    indices = np.arange(count, dtype=np.int64) if order is None else order.numpy()
    return _remote_batches(base, indices, size, record, where)


def _remote_batches(
    base: Any, indices: np.ndarray, size: int, record: type[Record], where: str
) -> Iterator[Batch]:
    """The loop's batches; once the loop ends, or is left, the answer of its last step
    is read (later.py)."""
    from shapescript.rt.parallel import later

    try:
        for start in range(0, len(indices), size):
            yield RemoteBatch(base, indices[start : start + size], record, where)
    except GeneratorExit:
        later.loop_left()
        raise
    later.loop_ended()


def load_part(dataset: Any, indices: np.ndarray, record: type[Record], where: str) -> Batch:
    """The examples at `indices`, loaded and checked as a loop over the dataset would."""
    from shapescript.rt.data import _loop

    ordered = Shuffled.__new__(Shuffled)
    ordered.dataset = dataset
    ordered.seed = 0
    empty = len(indices) == 0
    # An empty part is made from one item's fields, cut to none of its rows.
    ordered.order = torch.from_numpy(np.array([0] if empty else indices, dtype=np.int64))
    batch = next(iter(_loop(ordered, max(len(indices), 1), record, where)))
    if empty:
        fields = {name: value[:0] for name, value in batch._fields().items()}
        checked = batch.__dict__["_ss_checked"][2]
        return Batch._made(record, fields, checked)
    return batch
