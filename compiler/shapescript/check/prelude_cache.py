"""The prelude's analysis, kept between runs in the user's cache folder.

The entry's name is a hash of everything the analysis is made from: the package's
version, the Python version, the stub files' text and the size and time of each module
of the checker and the syntax package (so an edited checker never reads a stale
entry). An entry that can't be read, or isn't what it should be, is built anew and
written again; a cache folder that can't be written only costs the time to build.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from shapescript import __version__

T = TypeVar("T")

CACHE_VARIABLE = "SHAPESCRIPT_CACHE_DIR"
PACKAGE = Path(__file__).resolve().parent.parent
CODE_FOLDERS = (PACKAGE, PACKAGE / "check", PACKAGE / "syntax", PACKAGE / "diagnostics")


def cache_folder() -> Path:
    """`$SHAPESCRIPT_CACHE_DIR`, else `shapescript` in the platform's user cache folder."""
    chosen = os.environ.get(CACHE_VARIABLE)
    if chosen:
        return Path(chosen)
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "shapescript"


def _code_stamp() -> list[tuple[str, int, int]]:
    stamp = []
    for folder in CODE_FOLDERS:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith(".py"):
                info = entry.stat()
                stamp.append((entry.path, info.st_size, info.st_mtime_ns))
    return sorted(stamp)


def cache_key(texts: Mapping[str, str]) -> str:
    digest = hashlib.sha256()
    digest.update(f"{__version__}\0{sys.version}\0".encode())
    for origin in sorted(texts):
        digest.update(f"{origin}\0{texts[origin]}\0".encode())
    digest.update(repr(_code_stamp()).encode())
    return digest.hexdigest()[:24]


def cached(texts: Mapping[str, str], kind: type[T], build: Callable[[], T]) -> T:
    """The cached analysis of `texts` if there is a sound one, else `build()`, then stored."""
    path = cache_folder() / f"prelude-{__version__}-{cache_key(texts)}.pickle"
    try:
        with open(path, "rb") as stored:
            value = pickle.load(stored)
        if isinstance(value, kind):
            return value
    except Exception:
        pass
    value = build()
    _store(path, value)
    return value


def _store(path: Path, value: object) -> None:
    """Write atomically (a reader never sees half a file); give up quietly on any error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".prelude-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                pickle.dump(value, out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
    except Exception:
        pass
