"""Values between the controller and the workers: what each side sends in place of its objects.

Models and optimizer state stay on the workers and travel as handles; batches, logs records
and gradients travel as their tensors with the name of their class, which each side looks up
in its own copy of the compiled module (the workers never import the controller's classes).
"""

from __future__ import annotations

import pickle
from typing import Any

import torch

from shapescript.rt.data import Batch
from shapescript.rt.gradients import Grad
from shapescript.rt.logs import Logs


def send(connection: Any, message: Any) -> None:
    """Send a message as plain pickled bytes: its tensors copied, never put in shared
    memory as multiprocessing's own pickler would, where every worker would share them."""
    connection.send_bytes(dumps(message))


def dumps(message: Any) -> bytes:
    return pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)


def receive(connection: Any) -> Any:
    return pickle.loads(connection.recv_bytes())


class _Tensor:
    """A tensor as its raw bytes, dtype and shape: quicker to pickle and unpickle than a
    torch tensor, whose pickling goes through its storage."""

    __slots__ = ("data", "dtype", "shape")

    def __init__(self, value: torch.Tensor) -> None:
        value = value.detach().cpu().contiguous()
        self.dtype = value.dtype
        self.shape = tuple(value.shape)
        self.data = value.reshape(-1).view(torch.uint8).numpy().tobytes()

    def __getstate__(self):
        return (self.data, str(self.dtype).removeprefix("torch."), self.shape)

    def __setstate__(self, state) -> None:
        self.data, dtype, self.shape = state
        self.dtype = getattr(torch, dtype)

    def tensor(self) -> torch.Tensor:
        if not self.data:
            return torch.empty(self.shape, dtype=self.dtype)
        flat = torch.frombuffer(bytearray(self.data), dtype=torch.uint8)
        return flat.view(self.dtype).reshape(self.shape)


class Handle:
    """A model or optimizer state kept on the workers, by number."""

    __slots__ = ("kind", "number")

    def __init__(self, kind: str, number: int) -> None:
        self.kind = kind
        self.number = number

    def __reduce__(self):
        return (Handle, (self.kind, self.number))


class Part:
    """A worker's part of a batch that it loads itself: dataset `number`'s examples at
    `indices` (int64 bytes), for the record `record` of a loop at `where`."""

    __slots__ = ("indices", "number", "record", "where")

    def __init__(self, number: int, indices: bytes, record: str, where: str) -> None:
        self.number = number
        self.indices = indices
        self.record = record
        self.where = where

    def __reduce__(self):
        return (Part, (self.number, self.indices, self.record, self.where))


class Kept:
    """A worker's part of an argument, which it keeps as `slot` for the next call: a
    batch from Python that the next call passes again is then not sent again."""

    __slots__ = ("slot", "value")

    def __init__(self, slot: str, value: Any) -> None:
        self.slot = slot
        self.value = value

    def __reduce__(self):
        return (Kept, (self.slot, self.value))


class Again:
    """The part a worker kept as `slot`, passed again unchanged."""

    __slots__ = ("slot",)

    def __init__(self, slot: str) -> None:
        self.slot = slot

    def __reduce__(self):
        return (Again, (self.slot,))


def encode(value: Any) -> Any:
    """A value as it crosses a pipe: tensors on the CPU, compiled objects by class name."""
    if isinstance(value, torch.Tensor):
        return _Tensor(value)
    if isinstance(value, Batch):
        return ("_ss_batch", value.record._ss_name, {k: encode(v) for k, v in _fields(value)})
    if isinstance(value, Logs):
        values = {name: encode(getattr(value, name)) for name, _, _ in type(value)._ss_metrics}
        return ("_ss_logs", type(value).__name__, values)
    if isinstance(value, Grad):
        return ("_ss_grad", value.model_type.__name__, {k: encode(v) for k, v in value.items()})
    if isinstance(value, tuple):
        return tuple(encode(item) for item in value)
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {key: encode(item) for key, item in value.items()}
    return value


def decode(value: Any, names: dict[str, Any], device: torch.device) -> Any:
    """A received value as this side's objects, its tensors on `device`."""
    if isinstance(value, _Tensor):
        return value.tensor().to(device)
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], str):
        tag, name, fields = value
        if tag == "_ss_batch":
            return {k: decode(v, names, device) for k, v in fields.items()}
        if tag == "_ss_logs":
            return names[name](**{k: decode(v, names, device) for k, v in fields.items()})
        if tag == "_ss_grad":
            return Grad(names[name], {k: decode(v, names, device) for k, v in fields.items()})
    if isinstance(value, tuple):
        return tuple(decode(item, names, device) for item in value)
    if isinstance(value, list):
        return [decode(item, names, device) for item in value]
    if isinstance(value, dict):
        return {key: decode(item, names, device) for key, item in value.items()}
    return value


def _fields(batch: Batch) -> list[tuple[str, Any]]:
    return [(f.name, getattr(batch, f.name)) for f in batch.record._ss_fields]
