"""Another `.ss` file's declarations, as the file that imports them sees them: where they
are (for go to definition) and how they are written there (for hover)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types

from shapescript.check.declarations.import_session import read_from_disk
from shapescript.check.declarations.module_paths import is_file_path
from shapescript.check.declarations.symbols import Symbol
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.parser import parse_text
from shapescript.syntax.source import SourceFile, Span
from shapescript_lsp.positions import range_of

#: Gives a file's text by its path (None if it can't be read).
Reader = Callable[[str], "str | None"]


def in_other_file(symbol: Symbol, checked: Checked) -> bool:
    """Whether the symbol is declared in another `.ss` file (not built in, not this one)."""
    return symbol.path != checked.source.path and is_file_path(symbol.path)


def imported_file(symbol: Symbol) -> str | None:
    """The file an import symbol (`import attention`) found, if it found one."""
    if symbol.kind == "import" and symbol.detail and os.path.isabs(symbol.detail):
        return symbol.detail
    return None


def text_of(checked: Checked, path: str, read: Reader | None = None) -> str | None:
    """The text of a file the check read: as the check read it, so that spans fit."""
    table = checked.imports
    exports = table.modules.get(path) if table is not None else None
    if exports is not None:
        return exports.text
    return (read or read_from_disk)(path)


def location(path: str, text: str, span: Span) -> types.Location:
    return types.Location(uri=Path(path).as_uri(), range=range_of(SourceFile(path, text), span))


def declared_at(checked: Checked, symbol: Symbol, read: Reader | None = None):
    """Where another file declares the symbol, or the top of the file an import found."""
    found = imported_file(symbol)
    if found is not None:
        return types.Location(
            uri=Path(found).as_uri(),
            range=types.Range(
                start=types.Position(line=0, character=0),
                end=types.Position(line=0, character=0),
            ),
        )
    if not in_other_file(symbol, checked):
        return None
    text = text_of(checked, symbol.path, read)
    if text is None:
        return None
    return location(symbol.path, text, symbol.span)


def shown_file(checked: Checked, path: str) -> str:
    """How hovers name another file: as its import names it (`models/mlp.ss`)."""
    table = checked.imports
    if table is not None:
        for info in table.infos:
            if info.path == path:
                return info.module.replace(".", "/") + ".ss"
    return os.path.basename(path)


@functools.lru_cache(maxsize=16)
def _items(path: str, text: str) -> tuple[tuple[ast.Item, int], ...]:
    module = parse_text(text, path).module
    return tuple((item, module.base_of(index)) for index, item in enumerate(module.items))


def declaration(path: str, text: str, name: str) -> tuple[ast.Item, int] | None:
    """The top-level item of the file that declares `name` (its own name), with its base."""
    for item, base in _items(path, text):
        if getattr(item, "name", None) == name:
            return item, base
    return None


def header(text: str, node: ast.Item, base: int) -> str:
    """A declaration as written, on one line: a function up to its body."""
    end = node.span.end
    if isinstance(node, ast.FnDecl):
        body = node.body[0].span.start if node.body else None
        if node.expr_body is not None:
            body = node.expr_body.span.start
        if body is not None:
            end = body
    written = text[base + node.span.start : base + end]
    return " ".join(written.split()).rstrip(":= ").rstrip()


def written_declaration(path: str, text: str, name: str) -> str | None:
    """A declaration of another file as written there (every line of a record or model)."""
    found = declaration(path, text, name)
    if found is None:
        return None
    node, base = found
    if isinstance(node, ast.FnDecl | ast.ExternFnDecl | ast.DimDecl | ast.AliasDecl):
        return header(text, node, base)
    return text[base + node.span.start : base + node.span.end].rstrip()
