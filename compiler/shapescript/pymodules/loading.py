"""`load(globals(), __file__)`: the generated module's last line, which puts the compiled
`.ss` file's code in place of the declarations."""

from __future__ import annotations

import os
from typing import Any

#: Names of a module that its declarations never replace.
_KEPT = frozenset(
    {"__name__", "__file__", "__doc__", "__package__", "__loader__", "__spec__", "__builtins__"}
)


def load(namespace: dict[str, Any], file: str) -> None:
    """Compile the `.ss` file beside `file` (through the import hook's cache, with the check
    modes `install()` set, if it was called) and run it in the module's namespace."""
    from shapescript.pymodules.files import refresh
    from shapescript.rt import hook, modes

    ss_path = os.path.splitext(os.path.abspath(file))[0] + ".ss"
    refresh(ss_path)
    code = hook.load_code(ss_path, modes.installed())
    for name in [name for name in namespace if name not in _KEPT]:
        del namespace[name]
    # Other files' imports of the .ss file find this module (rt.imports), not a second copy.
    namespace["__ss_file__"] = ss_path
    exec(code, namespace)
