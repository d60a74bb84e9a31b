"""The runtime compiled ShapeScript modules import as `_ss_rt`: devices, errors, checks.

Importing it doesn't import torch: `checks`, which does, loads when compiled code first
calls one of its functions (`_ss_rt.argument_error`), and other submodules when first used.
Compiled code reads `devices._device` directly, the declared device, on every call.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

from shapescript.rt.devices import declare_devices, device
from shapescript.rt.errors import (
    CheckFailure,
    DeviceError,
    DomainError,
    ShapeError,
    ShapeScriptError,
)

if TYPE_CHECKING:
    # What `__getattr__` loads on first use, spelled out for type checkers (the generated
    # modules beside .ss files name `_ss_rt.models.Model` and the like).
    # (`import x as x` marks a re-export).
    from shapescript.rt import data as data
    from shapescript.rt import gradients as gradients
    from shapescript.rt import logs as logs
    from shapescript.rt import models as models
    from shapescript.rt import optimizers as optimizers
    from shapescript.rt import randomness as randomness
    from shapescript.rt.data import Batch as Batch
    from shapescript.rt.data import Dataset as Dataset
    from shapescript.rt.data import Record as Record
    from shapescript.rt.gradients import clip_norm as clip_norm
    from shapescript.rt.optimizers import adamw as adamw
    from shapescript.rt.optimizers import cosine as cosine
    from shapescript.rt.optimizers import sgd as sgd
    from shapescript.rt.optimizers import update as update
    from shapescript.rt.optimizers import warmup as warmup

__all__ = [
    "CheckFailure",
    "DeviceError",
    "DomainError",
    "ShapeError",
    "ShapeScriptError",
    "declare_devices",
    "device",
    "import_ss",
]


def import_ss(importer: str, importer_file: str | None, dotted: str):
    """The module of another `.ss` file, for a compiled module's `import` of it."""
    from shapescript.rt.imports import import_ss as find_and_import

    return find_and_import(importer, importer_file, dotted)


#: Classes and functions Python code names as `shapescript.rt.X`, and the submodule of
#: each: the data classes, and the optimizers, schedules and steps the reference promises
#: (`shapescript.rt.adamw(m, lr=...)` makes the state a program's `adamw` makes).
_CLASSES = {
    "Batch": "data",
    "Dataset": "data",
    "Record": "data",
    "sgd": "optimizers",
    "adamw": "optimizers",
    "cosine": "optimizers",
    "warmup": "optimizers",
    "update": "optimizers",
    "clip_norm": "gradients",
}


def __getattr__(name: str) -> object:
    """A submodule, a name of `_CLASSES`, or a name of `checks` (the failure paths compiled
    code calls), on first use.

    `checks` imports torch, so it is only loaded when compiled code first needs it.
    """
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name in _CLASSES:
        value = getattr(importlib.import_module(f"{__name__}.{_CLASSES[name]}"), name)
        globals()[name] = value
        return value
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    checks = importlib.import_module(f"{__name__}.checks")
    try:
        value = getattr(checks, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value
