"""`_ss_rt.import_ss`: how a compiled module imports another `.ss` file it imports.

The file is found as the checker found it (next to the importing module's file, then on
sys.path, then in the standard library) and imported through the import hook, once: a
module already imported from that file, under any name, is the one returned, so one
file's models and records are the same classes everywhere.
"""

from __future__ import annotations

import hashlib
import os
import sys
import types

from shapescript.check.declarations import module_paths
from shapescript.rt import hook


def import_ss(importer: str, importer_file: str | None, dotted: str) -> types.ModuleType:
    """The module of the `.ss` file that `import dotted` in the module `importer` (whose
    file is `importer_file`) finds; ImportError when there is none."""
    parts = dotted.split(".")
    path = module_paths.find(parts, importer_file or "", sys.path)
    if path is None:
        shown = module_paths.shown_name(parts)
        where = f"next to {importer_file}, " if importer_file else ""
        raise ImportError(
            f"no file `{shown}` {where}on sys.path or in the standard library", name=dotted
        )
    hook.ensure_installed()
    loaded = _loaded(path)
    if loaded is not None:
        return loaded
    return hook.import_path(path, _module_name(importer, importer_file, parts, path))


def _same_file(module: types.ModuleType, path: str) -> bool:
    """Whether the module is the file's: imported by the hook, or by its generated module
    (whose `__ss_file__` names the `.ss` file)."""
    for found in (getattr(module, "__file__", None), module.__dict__.get("__ss_file__")):
        if isinstance(found, str) and os.path.normpath(os.path.abspath(found)) == path:
            return True
    return False


def _loaded(path: str) -> types.ModuleType | None:
    """A module already imported from the file, under whatever name."""
    for module in list(sys.modules.values()):
        if isinstance(module, types.ModuleType) and _same_file(module, path):
            return module
    return None


def _module_name(importer: str, importer_file: str | None, parts: list[str], path: str) -> str:
    """The name the file's module gets: its dotted name from a folder of sys.path, else
    next to the importing module in its package, else as written; a name another module
    already has gets a private one."""
    name = _name_on_path(path)
    if name is None:
        dotted = ".".join(parts)
        package = importer.rpartition(".")[0]
        beside = bool(importer_file) and path == os.path.normpath(
            os.path.join(os.path.dirname(os.path.abspath(importer_file)), *parts) + ".ss"
        )
        name = f"{package}.{dotted}" if package and beside else dotted
    taken = sys.modules.get(name)
    if taken is not None and not _same_file(taken, path):
        digest = hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        name = f"_ss_file_{parts[-1]}_{digest}"
    return name


def _name_on_path(path: str) -> str | None:
    for folder in sys.path:
        if not isinstance(folder, str):
            continue
        root = os.path.normpath(os.path.abspath(folder or os.getcwd()))
        if not path.startswith(root + os.sep):
            continue
        relative = os.path.splitext(path[len(root) + 1 :])[0].split(os.sep)
        if all(part.isidentifier() for part in relative):
            return ".".join(relative)
    return None


# ---------------------------------------------------------------------- the hook's cache


def fingerprint(text: str | None) -> str | None:
    """What a cache entry keeps of an imported file's text."""
    if text is None:
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def recorded(checked) -> list[list]:
    """Every import the checked file's check followed, directly or not, for a cache
    entry: `[importing file, module as written, file found or None, text fingerprint]`."""
    table = getattr(checked, "imports", None)
    if table is None:
        return []
    return [
        [dep.importer, ".".join(dep.parts), dep.path, fingerprint(dep.text)]
        for dep in dict.fromkeys(table.dependencies)
    ]


def still_current(imports: object) -> bool:
    """Whether every recorded import still finds the same file, with the same text."""
    from shapescript.check.declarations.import_session import read_from_disk

    if not isinstance(imports, list):
        return False
    for entry in imports:
        if not (isinstance(entry, list) and len(entry) == 4):
            return False
        importer, dotted, path, digest = entry
        if not isinstance(importer, str) or not isinstance(dotted, str):
            return False
        if module_paths.find(dotted.split("."), importer, sys.path) != path:
            return False
        if path is not None and fingerprint(read_from_disk(path)) != digest:
            return False
    return True
