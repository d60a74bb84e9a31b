"""The prelude's analysis, kept between runs in the user's cache folder.

An entry holds the analysis with everything it was made from: the package's version,
the Python version, the stub files' text and the size and time of each module of the
checker and the syntax package (so an edited checker never reads a stale entry); its
file name is a checksum of that. An entry is used only when what it was made from is
what the analysis would be made from now; one that can't be read, or isn't, is built
anew and written again. A cache folder that can't be written only costs the time to
build. (The standard library's checksum and the lazy `tempfile` keep this cheap to
import: it runs on every `shapescript check`.)
"""

from __future__ import annotations

import os
import pickle
import sys
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar

from shapescript import __version__

T = TypeVar("T")

CACHE_VARIABLE = "SHAPESCRIPT_CACHE_DIR"
PACKAGE = Path(__file__).resolve().parent.parent.parent
#: The folders whose code the prelude's analysis depends on (each layer of the checker).
CHECK_LAYERS = ("algebra", "declarations", "bodies", "analyses")
CODE_FOLDERS = (
    PACKAGE,
    PACKAGE / "check",
    *(PACKAGE / "check" / layer for layer in CHECK_LAYERS),
    PACKAGE / "syntax",
    PACKAGE / "diagnostics",
)


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


def made_from(texts: Mapping[str, str]) -> str:
    """Everything the analysis of `texts` depends on, as one string."""
    parts = [__version__, sys.version]
    for origin in sorted(texts):
        parts += [origin, texts[origin]]
    parts.append(repr(_code_stamp()))
    return "\0".join(parts)


def cached(texts: Mapping[str, str], kind: type[T], build: Callable[[], T]) -> T:
    """The cached analysis of `texts` if there is a sound one, else `build()`, then stored."""
    source = made_from(texts)
    checksum = zlib.crc32(source.encode("utf-8", "surrogatepass"))
    path = cache_folder() / f"prelude-{__version__}-{checksum:08x}.pickle"
    try:
        with open(path, "rb") as stored:
            entry = pickle.load(stored)
        if isinstance(entry, tuple) and len(entry) == 2:
            stored_source, value = entry
            if stored_source == source and isinstance(value, kind):
                return value
    except Exception:
        pass
    value = build()
    _store(path, (source, value))
    return value


def _store(path: Path, value: object) -> None:
    """Write atomically (a reader never sees half a file); give up quietly on any error."""
    import tempfile

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
