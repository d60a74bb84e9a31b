"""Where an `import a.b` of another `.ss` file finds it.

The order is the same for the checker and the runtime: next to the importing file, then
each folder of the search path the caller gives (sys.path from Python, $PYTHONPATH on the
command line), then the standard library built into the compiler (`shapescript.std.X`),
then the folders of an interpreter's sys.path, where pip installs packages. Those folders
come with a `SearchPath`, which asks for them only when an import isn't found otherwise.

A folder of an installed package has a `shapescript-build.toml` naming the compiler that
built it; `newer_build` says when that compiler is newer than this one (E2901).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from shapescript.version import __version__

#: The standard library's `.ss` files, shipped inside the package.
STD_FOLDER = str(Path(__file__).resolve().parent.parent.parent / "std")
STD_PREFIX = ("shapescript", "std")
#: The file a package build writes into each folder with `.ss` files.
BUILD_RECORD = "shapescript-build.toml"


class SearchPath(tuple):
    """The folders of the search path, and `installed`, which gives the folders of an
    interpreter's sys.path (installed packages) when an import isn't found otherwise."""

    installed: Callable[[], Sequence[str]] | None

    def __new__(
        cls, folders: Sequence[str] = (), installed: Callable[[], Sequence[str]] | None = None
    ) -> SearchPath:
        made = super().__new__(cls, folders)
        made.installed = installed
        return made

    def __bool__(self) -> bool:
        return len(self) > 0 or self.installed is not None


def is_file_path(path: str) -> bool:
    """Whether a source's path names a place on disk (not `<text>`, `<cell 3>`...)."""
    return bool(path) and not (path.startswith("<") and path.endswith(">"))


def candidates(parts: Sequence[str], importer: str, search_path: Sequence[str]) -> list[str]:
    """Every path the import may be found at, in the order they are tried."""
    relative = os.path.join(*parts) + ".ss"
    found: list[str] = []
    if is_file_path(importer):
        found.append(os.path.join(os.path.dirname(os.path.abspath(importer)), relative))
    for folder in search_path:
        if isinstance(folder, str):
            found.append(os.path.join(folder or os.getcwd(), relative))
    if tuple(parts[:2]) == STD_PREFIX and len(parts) > 2:
        found.append(os.path.join(STD_FOLDER, *parts[2:]) + ".ss")
    return found


def find(
    parts: Sequence[str],
    importer: str,
    search_path: Sequence[str] = (),
    exists: Callable[[str], bool] = os.path.isfile,
) -> str | None:
    """The file `import parts` in the file `importer` finds, as a normalized absolute
    path; None when there is none."""
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    for candidate in candidates(parts, importer, search_path):
        if exists(candidate):
            return os.path.normpath(os.path.abspath(candidate))
    installed = getattr(search_path, "installed", None)
    if installed is None:
        return None
    relative = os.path.join(*parts) + ".ss"
    for folder in installed():
        candidate = os.path.join(folder, relative)
        if folder and exists(candidate):
            return os.path.normpath(os.path.abspath(candidate))
    return None


def recorded_compiler(ss_path: str) -> str | None:
    """The compiler version the `shapescript-build.toml` beside a file names, if any."""
    record_path = os.path.join(os.path.dirname(ss_path), BUILD_RECORD)
    try:
        with open(record_path, "rb") as handle:
            import tomllib

            value = tomllib.load(handle).get("compiler")
    except (OSError, ValueError):
        return None
    return value if isinstance(value, str) else None


def _major_minor(version: str) -> tuple[int, int] | None:
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match[1]), int(match[2])) if match else None


def newer_build(ss_path: str, running: str | None = None) -> str | None:
    """The version of the compiler that built the package holding `ss_path`, when its
    major.minor is newer than `running` (this compiler's); else None."""
    built = recorded_compiler(ss_path)
    if built is None:
        return None
    needed = _major_minor(built)
    have = _major_minor(running or __version__)
    if needed is None or have is None or needed <= have:
        return None
    return built


def environment_search_path(environ: dict[str, str] | None = None) -> list[str]:
    """The command line's search path: the folders of $PYTHONPATH."""
    value = (os.environ if environ is None else environ).get("PYTHONPATH", "")
    return [folder for folder in value.split(os.pathsep) if folder]


def shown_name(parts: Sequence[str]) -> str:
    """How messages name an imported file: `attention.ss`, `models/mlp.ss`."""
    return "/".join(parts) + ".ss"
