"""Run each runtime test in a clean runtime: no devices, default modes, no hook, no cache skip."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from shapescript.rt import devices, hook, modes


@contextmanager
def isolated_runtime(folder: Path) -> Iterator[None]:
    """Undo what a test did to the interpreter: devices, modes, the hook, paths, modules."""
    saved_meta_path = list(sys.meta_path)
    saved_path = list(sys.path)
    saved_argv = list(sys.argv)
    saved_modes = modes.installed()
    saved_no_bytecode = sys.dont_write_bytecode
    devices._reset_for_tests()
    sys.dont_write_bytecode = False
    try:
        yield
    finally:
        hook.uninstall()
        sys.meta_path[:] = saved_meta_path
        sys.path[:] = saved_path
        sys.argv[:] = saved_argv
        sys.dont_write_bytecode = saved_no_bytecode
        modes.install(saved_modes.checks, saved_modes.value_checks)
        devices._reset_for_tests()
        root = str(folder)
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", None) or "").startswith(root):
                del sys.modules[name]
