"""Where `module.name` is defined in Python, read from the source and stub files on the
interpreter's path without importing anything: go to definition's fast path.

jedi imports a compiled module in a helper process to read it (`torch._C` means all of
torch, seconds on a cold start). Most names a program uses are defined in a module's own
file or re-exported by an import that can be followed by reading files, so this looks
there first: a `def`, `class` or assignment of the name at the top of the module's file,
else the imports that bring it in (`from x import name`, `from x import *`), followed
file by file up to a bound. A compiled module is read from its stub (`.pyi`). Anything
else (a module itself, an attribute of a class, a name made at run time) is None, and
jedi answers it.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

#: How many (module, name) lookups one answer may take, and how many files it may read.
MAX_STEPS = 64
#: Files larger than this are not parsed for their imports (a definition is still found).
MAX_PARSED_BYTES = 4_000_000
_EXTENSION_SUFFIXES = (".so", ".pyd")

Place = tuple[str, int, int]


@lru_cache(maxsize=8)
def interpreter_path(python: str | None) -> tuple[str, ...]:
    """The interpreter's `sys.path`, asked of it once (no site packages of ours)."""
    if not python or os.path.realpath(python) == os.path.realpath(sys.executable):
        return tuple(entry for entry in sys.path if entry)
    try:
        done = subprocess.run(
            [python, "-c", "import json, sys; print(json.dumps(sys.path))"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
        found = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return ()
    return tuple(entry for entry in found if isinstance(entry, str) and entry)


def static_places(dotted: str, search_path: tuple[str, ...]) -> tuple[Place, ...] | None:
    """Where `module.name` (the longest prefix that is a module, then one name) is
    defined, as (file URI, 0-based line, column); None when reading files can't tell."""
    parts = dotted.split(".")
    if len(parts) < 2 or not all(part.isidentifier() for part in parts):
        return None
    module = ".".join(parts[:-1])
    if _module_file(module, search_path) is None:
        return None
    found = _lookup(module, parts[-1], search_path)
    if found is None:
        return None
    path, line, column = found
    return ((Path(path).as_uri(), line, column),)


@lru_cache(maxsize=1024)
def _module_file(module: str, search_path: tuple[str, ...]) -> str | None:
    """The file that defines a module, as Python's path finder would pick it; a compiled
    module's stub; None if neither is there."""
    relative = module.replace(".", os.sep)
    for entry in search_path:
        base = os.path.join(entry, relative)
        package = os.path.join(base, "__init__.py")
        if os.path.isfile(package):
            return package
        folder, stem = os.path.split(base)
        if _is_extension(folder, stem):
            return _first_file(base + ".pyi", os.path.join(base, "__init__.pyi"))
        source = _first_file(base + ".py")
        if source is not None:
            return source
        stub = _first_file(base + ".pyi", os.path.join(base, "__init__.pyi"))
        if stub is not None:
            return stub
    return None


def _first_file(*paths: str) -> str | None:
    return next((path for path in paths if os.path.isfile(path)), None)


def _is_extension(folder: str, stem: str) -> bool:
    """Whether a compiled module `stem` (`_C.cpython-311-x86_64-linux-gnu.so`) is in the folder."""
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    return any(name.startswith(stem + ".") and name.endswith(_EXTENSION_SUFFIXES) for name in names)


def _lookup(module: str, name: str, search_path: tuple[str, ...]) -> Place | None:
    """Where `name` in `module` is defined: its file first, then the modules its imports
    name, breadth first and in the order written, at most `MAX_STEPS` lookups."""
    queue: list[tuple[str, str]] = [(module, name)]
    seen: set[tuple[str, str]] = set()
    while queue and len(seen) < MAX_STEPS:
        module, name = queue.pop(0)
        if (module, name) in seen:
            continue
        seen.add((module, name))
        path = _module_file(module, search_path)
        if path is None:
            continue
        text = _read(path)
        if text is None:
            continue
        defined = _definition(text, name)
        if defined is not None:
            return (path, *defined)
        if _assigned(text, name):
            return None
        is_package = os.path.basename(path).startswith("__init__.")
        sources = _sources(path, module, name, is_package)
        if sources is None:
            return None
        queue.extend(sources)
    return None


@lru_cache(maxsize=64)
def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            return stream.read()
    except OSError:
        return None


def _definition(text: str, name: str) -> tuple[int, int] | None:
    """The 0-based line and column of `name` in the file's last top-level `def` or `class`
    of it (after `@overload`s, the one that runs); None when there is none, or when a
    top-level assignment binds it after that (jedi follows the value)."""
    pattern = re.compile(
        rf"^(?:(?:async[ \t]+)?def|class)[ \t]+({name})\b|^({name})[ \t]*(?::(?!=)|=(?!=))",
        re.MULTILINE,
    )
    matches = list(pattern.finditer(text))
    last = matches[-1] if matches else None
    if last is None or last.group(1) is None:
        return None
    start = last.start(1)
    line = text.count("\n", 0, start)
    return line, start - (text.rfind("\n", 0, start) + 1)


def _assigned(text: str, name: str) -> bool:
    """Whether a top-level line assigns `name` (`gelu = ...`), which only jedi follows."""
    return re.search(rf"^{name}[ \t]*(?::(?!=)|=(?!=))", text, re.MULTILINE) is not None


def _sources(path: str, module: str, name: str, is_package: bool) -> list[tuple[str, str]] | None:
    """The (module, name) pairs the file's top-level imports could bring `name` from, in
    the order written: `from m import name [as name]` first, then `from m import *`. None
    when the file binds the name otherwise (under an `if` or a `try`, or by assigning it),
    which only jedi can weigh."""
    imports, bound = _imports(path)
    if name in bound:
        return None
    named: list[tuple[str, str]] = []
    starred: list[tuple[str, str]] = []
    for source, level, imported, alias in imports:
        absolute = _absolute(source, level, module, is_package)
        if absolute is None:
            continue
        if imported == "*":
            starred.append((absolute, name))
        elif (alias or imported) == name:
            named.append((absolute, imported))
    return named + starred


@lru_cache(maxsize=64)
def _imports(
    path: str,
) -> tuple[tuple[tuple[str | None, int, str, str | None], ...], frozenset[str]]:
    """A file's `from ... import` names at the top and under `if`/`try` (module, level,
    name, alias), and the names it binds otherwise; read once per file."""
    text = _read(path)
    if text is None or len(text) > MAX_PARSED_BYTES:
        return (), frozenset()
    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return (), frozenset()
    imports: list[tuple[str | None, int, str, str | None]] = []
    bound: set[str] = set()
    statements = list(tree.body)
    index = 0
    while index < len(statements):
        statement = statements[index]
        index += 1
        if isinstance(statement, ast.If | ast.Try):
            statements[index:index] = [*statement.body, *getattr(statement, "orelse", [])]
            continue
        bound.update(_binds(statement))
        if isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                imports.append((statement.module, statement.level, alias.name, alias.asname))
    return tuple(imports), frozenset(bound)


def _binds(statement: ast.stmt) -> list[str]:
    """The names a statement binds other than by importing them."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [statement.name]
    if isinstance(statement, ast.Assign):
        return [target.id for target in statement.targets if isinstance(target, ast.Name)]
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return [statement.target.id]
    return []


def _absolute(source: str | None, level: int, module: str, is_package: bool) -> str | None:
    """The module a `from ... import` reads, made absolute from the importing module."""
    if not level:
        return source
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    if level - 1 > len(base) - 1:
        return None
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, source] if source else base)
