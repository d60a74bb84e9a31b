"""ShapeScript: tensor programs whose shapes are checked before they run.

`install()`, `compile()`, `devices()`, `torch_compile()` and the errors are loaded on first
use, so that `import shapescript` (and `shapescript check`) never imports torch or the
runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from shapescript.version import __version__

#: Public names and the module that defines each.
_LAZY = {
    "ShapeScriptError": "shapescript.rt.errors",
    "ShapeError": "shapescript.rt.errors",
    "DomainError": "shapescript.rt.errors",
    "DeviceError": "shapescript.rt.errors",
    "CallError": "shapescript.rt.errors",
    "CheckFailure": "shapescript.rt.errors",
    "devices": "shapescript.rt.devices",
    "compile": "shapescript.rt.compiling",
    "torch_compile": "shapescript.rt.torch_compile",
    "install": "shapescript.rt.hook",
    "Mode": "shapescript.rt.randomness",
    "Train": "shapescript.rt.randomness",
    "Eval": "shapescript.rt.randomness",
    "sinks": "shapescript.rt",
    "save": "shapescript.rt.checkpoints",
    "load": "shapescript.rt.checkpoints",
    "AdamW": "shapescript.rt.checkpoints",
    "SGD": "shapescript.rt.checkpoints",
    "loader_timeout": "shapescript.rt.data",
    "loader_workers": "shapescript.rt.data",
    "std": "shapescript.std",
    "WorkerError": "shapescript.rt.parallel.errors",
    "collective_timeout": "shapescript.rt.parallel",
    "parallel": "shapescript.rt.parallel",
    "load_ipython_extension": "shapescript.notebook",
    "export": "shapescript.export",
    "export_hf": "shapescript.export.hf",
    "export_gguf": "shapescript.export.gguf_export",
    "padded": "shapescript.rt.padding",
    "fixed_shapes": "shapescript.rt.padding",
    "shapes_seen": "shapescript.rt.padding",
    "record_steps": "shapescript.rt.recording",
    "recorded_steps": "shapescript.rt.recording",
}

if TYPE_CHECKING:
    from shapescript import std
    from shapescript.export import export
    from shapescript.export.gguf_export import export_gguf
    from shapescript.export.hf import export_hf
    from shapescript.rt import parallel, sinks
    from shapescript.rt.checkpoints import SGD, AdamW, load, save
    from shapescript.rt.compiling import compile
    from shapescript.rt.data import loader_timeout, loader_workers
    from shapescript.rt.devices import devices
    from shapescript.rt.errors import (
        CallError,
        CheckFailure,
        DeviceError,
        DomainError,
        ShapeError,
        ShapeScriptError,
    )
    from shapescript.rt.hook import install
    from shapescript.rt.padding import fixed_shapes, padded, shapes_seen
    from shapescript.rt.parallel import collective_timeout
    from shapescript.rt.parallel.errors import WorkerError
    from shapescript.rt.recording import record_steps, recorded_steps
    from shapescript.rt.torch_compile import torch_compile

__all__ = [
    "SGD",
    "AdamW",
    "CallError",
    "CheckFailure",
    "DeviceError",
    "DomainError",
    "ShapeError",
    "ShapeScriptError",
    "WorkerError",
    "__version__",
    "collective_timeout",
    "compile",
    "devices",
    "export",
    "export_gguf",
    "export_hf",
    "fixed_shapes",
    "install",
    "load",
    "loader_timeout",
    "loader_workers",
    "parallel",
    "padded",
    "record_steps",
    "recorded_steps",
    "save",
    "shapes_seen",
    "sinks",
    "std",
    "torch_compile",
]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    imported = importlib.import_module(module)
    # A subpackage, such as `std`, is the module itself.
    whole = module == f"{__name__}.{name}" or name == "parallel"
    value = imported if whole else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
