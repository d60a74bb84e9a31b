"""`shapescript/declarationOf` with `{path, name}`: where a `.ss` file declares a top-level
name, for go to definition from Python files (the VS Code extension asks)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from shapescript.syntax.parser import parse
from shapescript.syntax.source import SourceFile, Span
from shapescript_lsp.positions import range_of

_START = types.Range(
    start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
)


def declaration_in_file(path: str, name: str, text: str | None) -> types.Location | None:
    """The location of `name`'s declaration (the part before a dot: `Mlp` of `Mlp.init`)
    in the file, its name's span; the file's start for an empty name; None if it has none."""
    uri = Path(path).as_uri()
    if text is None:
        return None
    if not name:
        return types.Location(uri=uri, range=_START)
    wanted = name.split(".")[0]
    source = SourceFile.from_text(path, text)
    module = parse(source).module
    for item, base in zip(module.items, module.bases, strict=False):
        if getattr(item, "name", None) == wanted and hasattr(item, "name_span"):
            span = item.name_span
            return types.Location(
                uri=uri, range=range_of(source, Span(base + span.start, base + span.end))
            )
    return None
