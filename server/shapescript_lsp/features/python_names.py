"""Go to definition into Python: `import python` modules, their members, extern fn paths.

Jedi finds the names in the interpreter the editor configured (the `python`
initialization option or `shapescript/setPython`), or in the server's own.

Most names are found by reading the module's files on the interpreter's path
(`python_static`: `torch.tanh` in torch's stubs, in a few hundred milliseconds cold).
The rest go to jedi, whose helper process imports a compiled module to inspect it
(torch: seconds). Each answer is kept in memory for the session, so the next lookup is
instant. Jedi is not safe to use from two threads at once: a lock keeps
it to one lookup at a time. (Warming jedi in the background when a file is opened made
the first lookup fast, but its parsing in the server's process slowed keystrokes and
hovers for seconds after each open, so it isn't done.)
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from pathlib import Path

from lsprotocol import types

from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript_lsp.features.python_static import interpreter_path, static_places

_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
#: Held while jedi runs.
_JEDI = threading.Lock()


def dotted_name_at(text: str, offset: int) -> tuple[list[str], int] | None:
    """The dotted name around the offset, and which of its parts the offset is in."""
    start = offset
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_."):
        start -= 1
    match = _DOTTED.match(text, start)
    if match is None or not match.start() <= offset <= match.end():
        return None
    parts = match.group().split(".")
    position = match.start()
    for index, part in enumerate(parts):
        if position <= offset <= position + len(part):
            return parts, index
        position += len(part) + 1
    return None


def _in_python_context(checked: Checked, offset: int, parts: list[str]) -> bool:
    """Whether a dotted name names Python: an `import python` line, a Python module's
    member, or the string of an extern fn."""
    symbol = checked.module_symbols.get(parts[0])
    if symbol is not None and symbol.kind == "python_module":
        return True
    for item in checked.items_at(offset):
        node = item.item
        relative = offset - item.base
        if isinstance(node, ast.ImportPythonDecl) and node.span.start <= relative <= node.span.end:
            return True
        if isinstance(node, ast.ExternFnDecl) and node.python_path is not None:
            path = node.python_path.span
            if path.start <= relative <= path.end:
                return True
    return False


@lru_cache(maxsize=8)
def python_environment(python: str | None):
    import jedi

    if python:
        try:
            return jedi.create_environment(python, safe=False)
        except Exception:
            return jedi.get_default_environment()
    return jedi.get_default_environment()


def python_definition(
    checked: Checked, offset: int, python: str | None
) -> list[types.Location] | None:
    """Where jedi says the Python name at the offset is defined, or None if it isn't Python."""
    found = dotted_name_at(checked.source.text, offset)
    if found is None:
        return None
    parts, index = found
    if not _in_python_context(checked, offset, parts):
        return None
    places = _places(".".join(parts[: index + 1]), python)
    return [
        types.Location(
            uri=uri,
            range=types.Range(
                start=types.Position(line=line, character=column),
                end=types.Position(line=line, character=column),
            ),
        )
        for uri, line, column in places
    ]


@lru_cache(maxsize=512)
def _places(dotted: str, python: str | None) -> tuple[tuple[str, int, int], ...]:
    """Where the dotted name is defined: (file URI, 0-based line, column) of each place,
    kept for the session. Reading the files on the path answers most names at once
    (`python_static`); jedi, which may import compiled modules, answers the rest."""
    found = static_places(dotted, interpreter_path(python))
    if found is not None:
        return found
    import jedi

    wanted = dotted.split(".")
    module = ".".join(wanted[:-1]) if len(wanted) > 1 else wanted[0]
    code = f"import {module}\n{dotted}"
    with _JEDI:
        script = jedi.Script(code, environment=python_environment(python))
        names = script.goto(2, len(dotted), follow_imports=True)
    places = []
    for name in names:
        if name.module_path is None:
            continue
        places.append(
            (Path(name.module_path).as_uri(), max((name.line or 1) - 1, 0), name.column or 0)
        )
    return tuple(places)
