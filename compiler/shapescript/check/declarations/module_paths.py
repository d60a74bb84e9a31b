"""Where an `import a.b` of another `.ss` file finds it.

The order is the same for the checker and the runtime: next to the importing file, then
each folder of the search path the caller gives (sys.path from Python, $PYTHONPATH on the
command line), then the standard library built into the compiler (`shapescript.std.X`).
Installed packages found through another interpreter come later.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

#: The standard library's `.ss` files, shipped inside the package.
STD_FOLDER = str(Path(__file__).resolve().parent.parent.parent / "std")
STD_PREFIX = ("shapescript", "std")


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
    return None


def environment_search_path(environ: dict[str, str] | None = None) -> list[str]:
    """The command line's search path: the folders of $PYTHONPATH."""
    value = (os.environ if environ is None else environ).get("PYTHONPATH", "")
    return [folder for folder in value.split(os.pathsep) if folder]


def shown_name(parts: Sequence[str]) -> str:
    """How messages name an imported file: `attention.ss`, `models/mlp.ss`."""
    return "/".join(parts) + ".ss"
