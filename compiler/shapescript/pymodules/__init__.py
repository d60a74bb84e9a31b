"""The Python module generated beside each `.ss` file, for Pylance, pyright and mypy.

`shapescript pymodules FILE...` writes them, `--check` only compares; the import hook
and the language server write them too. None of them replaces a `.py` file that doesn't
start with the generated line (W2501).
"""

from __future__ import annotations

from shapescript.pymodules.files import (
    GENERATED_PREFIX,
    Outcome,
    is_generated,
    is_stale,
    module_path,
    write_module,
)
from shapescript.pymodules.loading import load

__all__ = [
    "GENERATED_PREFIX",
    "Outcome",
    "is_generated",
    "is_stale",
    "load",
    "module_path",
    "write_module",
]
