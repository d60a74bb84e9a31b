"""The standard library's `.ss` files, as Python modules: `import shapescript.std.fit`.

Each `X.ss` of this folder is the module `shapescript.std.X`, compiled by the import hook
when it is first imported. Importing this package lets Python find them without
`shapescript.install()`, for this package's modules only, compiled with the check modes
installed then (the defaults when none were).
`path("fit")` is the file's path, to read it or copy it and change the copy.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import importlib.machinery
    import types

_FOLDER = os.path.dirname(os.path.abspath(__file__))


def path(name: str) -> str:
    """The path of the standard library's file `name` (`"fit"` -> `.../std/fit.ss`);
    FileNotFoundError when there is none."""
    found = os.path.join(_FOLDER, *name.split(".")) + ".ss"
    if not all(part.isidentifier() for part in name.split(".")) or not os.path.isfile(found):
        raise FileNotFoundError(f"the standard library has no file `{name}`")
    return found


class _StdFiles:
    """This folder's entry in Python's path finder: `shapescript.std.X` is `X.ss` here."""

    def find_spec(
        self, fullname: str, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != __name__:
            return None
        try:
            found = path(name)
        except FileNotFoundError:
            return None
        from shapescript.rt.hook import spec_for

        return spec_for(fullname, found)

    def invalidate_caches(self) -> None:
        pass


# Python looks for a package's submodules in the folders of its `__path__`, each through
# the finder `sys.path_importer_cache` keeps for it.
for _folder in {_FOLDER, *__path__}:
    sys.path_importer_cache[_folder] = _StdFiles()
