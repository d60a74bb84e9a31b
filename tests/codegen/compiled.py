"""Compiling `.ss` text to a module for the codegen tests, once per text and options."""

from __future__ import annotations

import functools
import types

from shapescript.analysis import check
from shapescript.codegen import BuildOptions, Generated, generate
from shapescript.rt.compiling import remember_lines
from shapescript.syntax.source import SourceFile


def build(
    text: str,
    path: str = "test.ss",
    *,
    checks: str = "always",
    value_checks: str = "always",
    standalone: bool = False,
    devices: str | None = None,
) -> Generated:
    """The generated code of a file that must check without errors."""
    checked = check(SourceFile.from_text(path, text))
    problems = [f"{diag.code} {diag.message}" for diag in checked.errors]
    assert not problems, f"{path} doesn't check: {problems}"
    options = BuildOptions(
        devices=devices, checks=checks, value_checks=value_checks, standalone=standalone
    )
    return generate(checked, options)


@functools.cache
def code(
    text: str,
    path: str = "test.ss",
    *,
    checks: str = "always",
    value_checks: str = "always",
    optimize: int = -1,
    standalone: bool = False,
    devices: str | None = None,
) -> types.CodeType:
    """The compiled code object of a file that compiles completely (nothing unsupported)."""
    generated = build(
        text,
        path,
        checks=checks,
        value_checks=value_checks,
        standalone=standalone,
        devices=devices,
    )
    assert not generated.unsupported, f"{path}: {generated.unsupported}"
    assert generated.tree is not None
    remember_lines(path, text)
    return compile(generated.tree, path, "exec", optimize=optimize, dont_inherit=True)


def load(text: str, path: str = "test.ss", **options) -> types.ModuleType:
    """A fresh module running the compiled file (the compilation itself is cached)."""
    module = types.ModuleType(path.removesuffix(".ss").replace("/", "_"))
    module.__file__ = path
    exec(code(text, path, **options), module.__dict__)
    return module
