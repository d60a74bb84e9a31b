"""From `.ss` text to a code object, and `shapescript.compile()`, which makes a module of it."""

from __future__ import annotations

import ast
import builtins
import linecache
import os
import sys
import types
from typing import NoReturn

from shapescript.rt import torch_compile as switch
from shapescript.rt.devices import parse_devices
from shapescript.rt.errors import ShapeScriptError
from shapescript.rt.modes import CheckModes, resolve
from shapescript.syntax.source import SourceFile


def raise_from_source(error: ShapeScriptError) -> NoReturn:
    """Raise a compile error from its first error's `.ss` line, with the span underlined.

    It runs a one-statement program, `raise`, whose position is the error's, compiled with
    the `.ss` path as file name: the traceback's last entry is then that line of the file.
    """
    first = min(error.errors or error.diagnostics, key=lambda diag: diag.primary.span.start)
    source = error.source
    span = first.primary.span
    start, end = source.position(span.start), source.position(max(span.end, span.start))
    text = source.line_text(start.line)
    column = len(text[: start.column - 1].encode())
    end_column = len(text[: end.column - 1].encode()) if end.line == start.line else len(text)
    where = {
        "lineno": start.line,
        "col_offset": column,
        "end_lineno": start.line,
        "end_col_offset": max(end_column, column + 1),
    }
    statement = ast.Raise(exc=ast.Name("_ss_error", ast.Load(), **where), cause=None, **where)
    code = builtins.compile(ast.Module([statement], []), source.path, "exec", dont_inherit=True)
    exec(code, {"_ss_error": error})
    raise AssertionError("unreachable")  # pragma: no cover


def compile_code(
    text: str,
    path: str,
    *,
    modes: CheckModes,
    devices: str | None = None,
    imports: list | None = None,
    torch_compile: bool = False,
):
    """Check and generate a file's code; ShapeScriptError (from its line) when it has errors.

    The `.ss` files it imports are found next to it, then on sys.path; `imports`, when
    given, gets every import the check followed (`rt.imports.recorded`). `torch_compile`
    splits each function's body off to run through torch.compile (`rt.torch_compile`).
    """
    from shapescript import analysis
    from shapescript.codegen import BuildOptions, generate

    source = SourceFile.from_text(path, text)
    checked = analysis.check(source, search_path=list(sys.path), devices=devices)
    if imports is not None:
        from shapescript.rt.imports import recorded

        imports.extend(recorded(checked))
    if checked.errors:
        raise_from_source(ShapeScriptError(checked.diagnostics, source))
    options = BuildOptions(
        devices=devices,
        checks=modes.checks,
        value_checks=modes.value_checks,
        torch_compile=torch_compile,
    )
    generated = generate(checked, options)
    if generated.tree is None or any(diag.is_error for diag in generated.diagnostics):
        raise_from_source(ShapeScriptError(checked.diagnostics + generated.diagnostics, source))
    return builtins.compile(generated.tree, path, "exec", dont_inherit=True)


def remember_lines(path: str, text: str) -> None:
    """Let tracebacks show `text` as the lines of `path`, even where no such file exists."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    linecache.cache[path] = (len(text), None, lines, path)


def _module_name(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    return stem if stem.isidentifier() else "_ss_module"


def compile(
    source: str,
    path: str = "<string>",
    devices: str | None = None,
    checks: str | None = None,
    value_checks: str | None = None,
    *,
    name: str | None = None,
    torch_compile: bool | None = None,
) -> types.ModuleType:
    """Compile ShapeScript text to a new module and run its top level.

    The module is put in `sys.modules` only when `name` is given; otherwise it is named
    after the file and registered nowhere. `devices` declares the devices for a file
    without a devices line (E1006 if the file's line says others). Modes left as None are
    the ones `install()` set, else the defaults. `torch_compile=True` runs the bodies of
    its functions through torch.compile (see `shapescript.torch_compile`); None follows
    that switch.
    """
    modes = resolve(checks, value_checks)
    if devices is not None:
        parse_devices(devices)
    remember_lines(path, source)
    code = compile_code(
        source, path, modes=modes, devices=devices, torch_compile=switch.resolve(torch_compile)
    )
    module = types.ModuleType(name or _module_name(path))
    module.__file__ = path
    if name is not None:
        sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        if name is not None and sys.modules.get(name) is module:
            del sys.modules[name]
        raise
    return module
