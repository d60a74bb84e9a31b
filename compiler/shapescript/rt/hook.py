"""The import hook: `import model` finds `model.ss` on `sys.path` once `install()` ran."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types
from collections.abc import Sequence
from pathlib import Path

import shapescript
from shapescript.check.declarations import module_paths
from shapescript.rt import cache, modes
from shapescript.rt import torch_compile as switch
from shapescript.rt.compiling import compile_code, raise_from_source
from shapescript.rt.errors import ShapeScriptError


def read_text(path: str) -> tuple[bytes, str]:
    """A file's bytes and its text, as `shapescript check` decodes it."""
    data = Path(path).read_bytes()
    return data, data.decode("utf-8", errors="replace")


def load_code(path: str, check_modes: modes.CheckModes) -> types.CodeType:
    """A file's compiled code: from the cache when it's current, else compiled and cached.

    An entry is current when the file's text and the compiler are the same, and every
    `.ss` file it imports, directly or not, still is what the entry recorded: the same
    file found, with the same text.
    """
    from shapescript.rt import imports

    data, text = read_text(path)
    built = module_paths.newer_build(path)
    if built is not None:
        raise_from_source(newer_build_error(path, text, built))
    compiled = switch.enabled()
    expected = cache.header(data, check_modes, torch_compile=compiled)
    entry = cache.cache_path(path, check_modes, compiled)
    code = cache.load(entry, expected, imports.still_current)
    if code is None:
        followed: list[list] = []
        code = compile_code(text, path, modes=check_modes, imports=followed, torch_compile=compiled)
        cache.store(entry, cache.header(data, check_modes, followed, compiled), code)
    return code


def newer_build_error(path: str, text: str, built: str) -> ShapeScriptError:
    """E2901 for a file of a package built by a newer compiler than this one."""
    from shapescript.diagnostics.diagnostic import Diagnostic, Label
    from shapescript.syntax.source import SourceFile, Span

    needed = ".".join(built.split(".")[:2])
    diagnostic = Diagnostic(
        "E2901",
        f"`{os.path.basename(path)}` was built by a newer compiler ({built})",
        Label(Span(0, 0), "package built by a newer compiler"),
        notes=[
            f"this is ShapeScript {shapescript.__version__}; the package's "
            f"{module_paths.BUILD_RECORD} says it needs {needed} or later"
        ],
        help=f"upgrade: pip install --upgrade 'shapescript>={needed}'",
        path=path,
    )
    return ShapeScriptError([diagnostic], SourceFile.from_text(path, text))


class ShapeScriptLoader(importlib.abc.Loader):
    """Runs one `.ss` file as a module, compiled with the installed check modes."""

    def __init__(self, fullname: str, path: str) -> None:
        self.name = fullname
        self.path = path

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        from shapescript.pymodules.files import refresh

        refresh(self.path)
        exec(self.get_code(module.__name__), module.__dict__)

    def get_code(self, fullname: str | None = None) -> types.CodeType:
        return load_code(self.path, modes.installed())

    def get_source(self, fullname: str | None = None) -> str:
        return read_text(self.path)[1]

    def get_filename(self, fullname: str | None = None) -> str:
        return self.path

    def is_package(self, fullname: str | None = None) -> bool:
        return False


def spec_for(fullname: str, path: str) -> importlib.machinery.ModuleSpec:
    """The spec that imports the `.ss` file at `path` as module `fullname`."""
    path = os.path.abspath(path)
    loader = ShapeScriptLoader(fullname, path)
    spec = importlib.util.spec_from_file_location(fullname, path, loader=loader)
    assert spec is not None
    return spec


#: Python's own modules, which a `.ss` file of the same name never hides.
_PYTHONS_OWN = frozenset(sys.stdlib_module_names) | frozenset(sys.builtin_module_names)


class ShapeScriptFinder(importlib.abc.MetaPathFinder):
    """Finds `name.ss` in each folder of the search path, in order (a package's for a submodule).

    It comes first in `sys.meta_path`, so it never looks for Python's own modules: a
    `random.ss` in the program's folder mustn't replace `random` for torch.
    """

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if path is None and fullname in _PYTHONS_OWN:
            return None
        filename = fullname.rpartition(".")[2] + ".ss"
        for folder in sys.path if path is None else path:
            if not isinstance(folder, str):
                continue
            candidate = os.path.join(folder or os.getcwd(), filename)
            if os.path.isfile(candidate):
                return spec_for(fullname, candidate)
        return None


def installed_finder() -> ShapeScriptFinder | None:
    for finder in sys.meta_path:
        if isinstance(finder, ShapeScriptFinder):
            return finder
    return None


def install(
    checks: str = modes.DEFAULT_CHECKS,
    value_checks: str = modes.DEFAULT_VALUE_CHECKS,
    *,
    torch_compile: bool | None = None,
):
    """Let `import model` find `model.ss`, compiled with these check modes (idempotent).

    `torch_compile`, when given, sets the torch.compile switch as
    `shapescript.torch_compile()` does; None leaves it as it is."""
    modes.install(checks, value_checks)
    if torch_compile is not None:
        switch.torch_compile(torch_compile)
    ensure_installed()


def ensure_installed() -> None:
    """Put the finder in `sys.meta_path` if it isn't, leaving the check modes as they are."""
    if installed_finder() is None:
        sys.meta_path.insert(0, ShapeScriptFinder())


def uninstall() -> None:
    """Take the hook out of `sys.meta_path` (modules it imported stay imported)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, ShapeScriptFinder)]


def import_path(path: str, name: str | None = None) -> types.ModuleType:
    """Import the `.ss` file at `path` through the hook's loader and cache, as module `name`."""
    name = name or Path(path).stem
    spec = spec_for(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        assert spec.loader is not None
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
