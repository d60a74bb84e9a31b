"""The import hook's cache of compiled code: `__pycache__/model.<tag>.ssc` beside `model.ss`.

An entry is a magic number, a JSON header and the marshalled code object. The header
holds a hash of the file's text, the compiler's version, the check modes, Python's
`-O` level and whether the torch.compile switch was on, and, for a file that imports
other `.ss` files, every import its check followed (directly or not): the importing
file, the module, the file found and a hash of its text. An entry whose header differs,
whose imports would now find another file or text, or that doesn't load, is ignored and
rewritten.

Where `__pycache__` beside the file can't be written, as in a read-only site-packages,
entries go to the user cache folder instead: `modules/<hash of the file's path>/`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import marshal
import os
import sys
import types
from collections.abc import Callable
from functools import cache
from pathlib import Path

import shapescript
from shapescript import atomic_write
from shapescript.cache_folder import cache_root, private_folder
from shapescript.rt.modes import CheckModes

MAGIC = b"SSC\x01"


@cache
def compiler_version() -> str:
    """The package's version and a fingerprint of its files, so an edited compiler recompiles."""
    root = Path(shapescript.__file__).resolve().parent
    digest = hashlib.sha256()
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(name for name in dirs if name != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".ss")):
                stat = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{stat.st_mtime_ns}:{stat.st_size};".encode())
    return f"{shapescript.__version__}+{digest.hexdigest()[:16]}"


def writable(folder: str) -> bool:
    """Whether entries can be written into `folder` (made if missing, in a writable parent)."""
    if os.path.isdir(folder):
        return os.access(folder, os.W_OK | os.X_OK)
    return os.access(os.path.dirname(folder), os.W_OK | os.X_OK)


def user_cache_folder(path: str) -> str | None:
    """The user cache folder's place for entries of `path`; None when it can't be used."""
    root = private_folder(cache_root())
    if root is None:
        return None
    digest = hashlib.sha256(os.path.abspath(path).encode("utf-8", "surrogatepass"))
    return str(root / "modules" / digest.hexdigest()[:24])


def cache_path(path: str, modes: CheckModes, torch_compile: bool = False) -> str:
    """Where the compiled code of `path` is kept for these modes (and the torch.compile
    switch, whose code differs): `__pycache__` beside it, else (when that can't be
    written) the user cache folder."""
    folder, name = os.path.split(path)
    stem = os.path.splitext(name)[0]
    tag = f"{sys.implementation.cache_tag}-{modes.cache_key()}"
    if torch_compile:
        tag += "-tc"
    beside = os.path.join(folder, "__pycache__")
    if not writable(beside):
        beside = user_cache_folder(path) or beside
    return os.path.join(beside, f"{stem}.{tag}.ssc")


def header(
    data: bytes, modes: CheckModes, imports: list | None = None, torch_compile: bool = False
) -> bytes:
    """What an entry must say to be used for a file whose bytes are `data`; an entry
    written with `imports` says them too, and one compiled for torch.compile says so."""
    fields: dict[str, object] = {
        "sha256": hashlib.sha256(data).hexdigest(),
        "compiler": compiler_version(),
        "python": importlib.util.MAGIC_NUMBER.hex(),
        "checks": modes.checks,
        "value_checks": modes.value_checks,
        "optimize": sys.flags.optimize,
    }
    if torch_compile:
        fields["torch_compile"] = True
    if imports:
        fields["imports"] = imports
    return json.dumps(fields, sort_keys=True).encode()


def _matches(stored: bytes, expected: bytes, imports_current: Callable[[object], bool] | None):
    """Whether a stored header is the expected one, but for imports that are still current."""
    if stored == expected:
        return True
    if imports_current is None:
        return False
    try:
        found = json.loads(stored)
    except ValueError:
        return False
    if not isinstance(found, dict) or "imports" not in found:
        return False
    imports = found.pop("imports")
    return found == json.loads(expected) and imports_current(imports)


def load(
    entry: str, expected: bytes, imports_current: Callable[[object], bool] | None = None
) -> types.CodeType | None:
    """The cached code, or None when the entry is missing, stale or corrupt.

    An entry that recorded imports is used when `imports_current(imports)` says each
    still finds the same file with the same text."""
    try:
        blob = Path(entry).read_bytes()
    except OSError:
        return None
    start = len(MAGIC) + 4
    if len(blob) < start or not blob.startswith(MAGIC):
        return None
    size = int.from_bytes(blob[len(MAGIC) : start], "little")
    if not _matches(blob[start : start + size], expected, imports_current):
        return None
    try:
        code = marshal.loads(blob[start + size :])
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, types.CodeType) else None


def store(entry: str, expected: bytes, code: types.CodeType) -> None:
    """Write an entry atomically; a folder that can't be written to is left alone."""
    if sys.dont_write_bytecode:
        return
    blob = MAGIC + len(expected).to_bytes(4, "little") + expected + marshal.dumps(code)
    try:
        os.makedirs(os.path.dirname(entry), exist_ok=True)
        atomic_write.write_bytes(entry, blob)
    except OSError:
        return
