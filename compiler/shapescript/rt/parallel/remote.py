"""Handles: the controller's models and optimizer state while the workers have them.

Once a call on the workers changes a model or optimizer state (`mut`), the workers' copies
are ahead of the controller's. The controller's object then becomes a handle: its class is
swapped for a subclass (`RemoteModel`, `RemoteOptimizer`) that copies the first worker's
state back before anything reads it (a field, `state_dict()`, the update count), so reading
it from Python, or `save`, sees what the workers have, and steps that nobody reads between
cost nothing.
"""

from __future__ import annotations

from typing import Any

import torch

from shapescript.rt.models import Model
from shapescript.rt.optimizers import Optimizer

#: Each handle's program and number, by id (optimizer state has no `__dict__`).
_HANDLES: dict[int, tuple[Any, int]] = {}
_CLASSES: dict[type, type] = {}
_STEPS = Optimizer.steps


def _sync(value: Any) -> None:
    found = _HANDLES.get(id(value))
    if found is not None:
        program, number = found
        program.sync(number)


class RemoteModel(Model):
    """A model whose tensors the workers have: reading a field copies the first worker's."""

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("_"):
            _sync(self)
        return super().__getattr__(name)

    def state_dict(self, *args: Any, **kwargs: Any) -> Any:
        _sync(self)
        return super().state_dict(*args, **kwargs)

    def parameters(self, recurse: bool = True) -> Any:
        _sync(self)
        return super().parameters(recurse)

    def named_parameters(self, *args: Any, **kwargs: Any) -> Any:
        _sync(self)
        return super().named_parameters(*args, **kwargs)

    def buffers(self, recurse: bool = True) -> Any:
        _sync(self)
        return super().buffers(recurse)


class RemoteOptimizer(Optimizer):
    """Optimizer state that the workers have: reading it copies the first worker's."""

    __slots__ = ()

    def state_dict(self) -> dict[str, Any]:
        _sync(self)
        return Optimizer.state_dict(self)

    @property
    def steps(self) -> int:  # type: ignore[override]
        _sync(self)
        return _STEPS.__get__(self)

    @steps.setter
    def steps(self, value: int) -> None:
        _STEPS.__set__(self, value)


def forget(key: int, number: int) -> None:
    """Drop the handle of the object whose id was `key`, once it is gone."""
    found = _HANDLES.get(key)
    if found is not None and found[1] == number:
        del _HANDLES[key]


def make_handle(value: Any, program: Any, number: int) -> None:
    """Turn the controller's object into a handle of `program`'s object `number`."""
    _HANDLES[id(value)] = (program, number)
    cls = type(value)
    if isinstance(value, Model) and not isinstance(value, RemoteModel):
        remote = _CLASSES.get(cls)
        if remote is None:
            remote = type(cls.__name__, (RemoteModel, cls), {"__module__": cls.__module__})
            remote.__qualname__ = cls.__qualname__
            _CLASSES[cls] = remote
        value.__class__ = remote
    elif isinstance(value, Optimizer) and not isinstance(value, RemoteOptimizer):
        value.__class__ = RemoteOptimizer


def fields(value: Any) -> dict[str, torch.Tensor]:
    """A model's fields without copying anything back."""
    return torch.nn.Module.state_dict(value)


def steps(value: Optimizer) -> int:
    return _STEPS.__get__(value)
