"""The `.ss` modules of installed packages, for completion: their dotted names, and their
top-level declarations, indexed as the workspace's files are.

A folder of the interpreter's sys.path is looked into one level deep: a package there is a
ShapeScript one when it has `.ss` files, a `shapescript-build.toml`, or (with `py.typed`)
a subpackage with one. What is found is kept until the folder's modification time changes.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path

from shapescript.check.declarations.module_paths import BUILD_RECORD
from shapescript_lsp.workspace import IndexedFile, _summary

log = logging.getLogger("shapescript_lsp.installed_index")

#: Packages never offered: the compiler's own files are found without installing anything.
_SKIPPED = frozenset({"shapescript", "shapescript_lsp"})
#: Folders a package's walk doesn't enter.
_NOT_ENTERED = frozenset({"__pycache__", "tests", "test"})


def _has_ss(folder: str) -> bool:
    try:
        return any(name.endswith(".ss") for name in os.listdir(folder))
    except OSError:
        return False


def _is_shapescript_package(folder: str) -> bool:
    if os.path.isfile(os.path.join(folder, BUILD_RECORD)) or _has_ss(folder):
        return True
    if not os.path.isfile(os.path.join(folder, "py.typed")):
        return False
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return False
    return any(
        entry.is_dir() and os.path.isfile(os.path.join(entry.path, BUILD_RECORD))
        for entry in entries
    )


def _package_modules(folder: str, package: str) -> dict[str, str]:
    """Every `.ss` file of a package folder by dotted name."""
    found: dict[str, str] = {}
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d.isidentifier() and d not in _NOT_ENTERED)
        relative = os.path.relpath(root, folder)
        prefix = [package] + ([] if relative == os.curdir else relative.split(os.sep))
        for name in sorted(files):
            stem = name[: -len(".ss")]
            if name.endswith(".ss") and stem.isidentifier():
                found[".".join([*prefix, stem])] = os.path.join(root, name)
    return found


def _folder_modules(folder: str) -> dict[str, str]:
    modules: dict[str, str] = {}
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return modules
    for entry in entries:
        name = entry.name
        if not name.isidentifier() or name in _SKIPPED or not entry.is_dir():
            continue
        if _is_shapescript_package(entry.path):
            modules.update(_package_modules(entry.path, name))
    return modules


class InstalledModules:
    """Installed `.ss` modules by dotted name, and their indexed declarations."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._folders: dict[str, tuple[int | None, dict[str, str]]] = {}
        self._files: dict[str, tuple[int, IndexedFile]] = {}

    def modules(self, folders: Sequence[str]) -> dict[str, str]:
        """Dotted name to path, the first folder's file winning as an import finds it."""
        found: dict[str, str] = {}
        for folder in folders:
            for dotted, path in self._in_folder(folder).items():
                found.setdefault(dotted, path)
        return found

    def _in_folder(self, folder: str) -> dict[str, str]:
        try:
            mtime: int | None = os.stat(folder).st_mtime_ns
        except OSError:
            mtime = None
        with self._lock:
            known = self._folders.get(folder)
        if known is not None and known[0] == mtime:
            return known[1]
        modules = _folder_modules(folder) if mtime is not None else {}
        with self._lock:
            self._folders[folder] = (mtime, modules)
        return modules

    def indexed(self, folders: Sequence[str]) -> list[IndexedFile]:
        """Every installed module's declarations (each file read again when it changes)."""
        files = []
        for dotted, path in sorted(self.modules(folders).items()):
            indexed = self._indexed(dotted, path)
            if indexed is not None:
                files.append(indexed)
        return files

    def _indexed(self, dotted: str, path: str) -> IndexedFile | None:
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            return None
        with self._lock:
            known = self._files.get(path)
        if known is not None and known[0] == mtime:
            return known[1]
        try:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
            names, imports, functions = _summary(text, path)
        except Exception as error:
            log.warning("skipping %s: reading its declarations failed (%r)", path, error)
            return None
        indexed = IndexedFile(
            Path(os.path.normpath(path)), dotted, mtime / 1e9, text, names, imports, functions
        )
        with self._lock:
            self._files[path] = (mtime, indexed)
        return indexed
