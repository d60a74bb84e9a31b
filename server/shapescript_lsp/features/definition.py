"""Go to definition, references and `shapescript/declarationOf`."""

from __future__ import annotations

from lsprotocol import types

from shapescript.check.declarations.symbols import Symbol
from shapescript.check.program import Checked
from shapescript_lsp.features.imported import Reader, declared_at
from shapescript_lsp.library import Library
from shapescript_lsp.positions import range_of


def symbol_location(
    symbol: Symbol, checked: Checked, uri: str, library: Library, read: Reader | None = None
):
    """Where a symbol is declared: in another `.ss` file (the file itself for an import's
    name), in this file, or in the library folder."""
    elsewhere = declared_at(checked, symbol, read)
    if elsewhere is not None:
        return elsewhere
    if symbol.path == checked.source.path:
        return types.Location(uri=uri, range=range_of(checked.source, symbol.span))
    return library.location(symbol)


def definition(
    checked: Checked, offset: int, uri: str, library: Library, read: Reader | None = None
):
    symbol = checked.definition_at(offset)
    if symbol is None:
        return None
    return symbol_location(symbol, checked, uri, library, read)


def references(
    checked: Checked, offset: int, uri: str, include_declaration: bool
) -> list[types.Location]:
    symbol = checked.definition_at(offset)
    if symbol is None:
        return []
    spans = checked.references_to(symbol)
    if not include_declaration and symbol.path == checked.source.path:
        spans = [span for span in spans if span != symbol.span]
    return [types.Location(uri=uri, range=range_of(checked.source, span)) for span in spans]


def declaration_of(
    checked: Checked, offset: int, uri: str, library: Library, read: Reader | None = None
) -> dict | None:
    """What `shapescript/declarationOf` answers: the symbol's kind, name, detail and place."""
    symbol = checked.definition_at(offset)
    if symbol is None:
        return None
    location = symbol_location(symbol, checked, uri, library, read)
    return {
        "name": symbol.name,
        "kind": symbol.kind,
        "detail": symbol.detail,
        "documentation": symbol.doc,
        "uri": location.uri if location else None,
        "range": {
            "start": {
                "line": location.range.start.line,
                "character": location.range.start.character,
            },
            "end": {"line": location.range.end.line, "character": location.range.end.character},
        }
        if location
        else None,
    }
