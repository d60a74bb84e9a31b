"""References to a declaration across files: in the file that declares it and in every
workspace file that imports that file, each checked as a whole (another file's names are
only known once its imports are)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from shapescript.check.declarations import module_paths
from shapescript.check.declarations.symbols import LOCAL_KINDS, Symbol
from shapescript.check.program import Checked
from shapescript.syntax.source import Span
from shapescript_lsp.features.model_hover import model_infos
from shapescript_lsp.import_reading import normalized
from shapescript_lsp.workspace import IndexedFile

#: Kinds of symbol that only the file itself can name.
_OWN_KINDS = LOCAL_KINDS | {"import", "python_module"}

Key = tuple[str, int, int, str]


def shared(symbol: Symbol) -> bool:
    """Whether other files can name the symbol: a declaration, field or metric of a file."""
    return symbol.kind not in _OWN_KINDS and module_paths.is_file_path(symbol.path)


def key_of(symbol: Symbol) -> Key:
    """What one declaration is called in every file: its file, place and kind."""
    return normalized(symbol.path), symbol.span.start, symbol.span.end, symbol.kind


def _symbols(checked: Checked) -> Iterator[Symbol]:
    """Every declaration, field and metric a file's check knows, its imports' included."""
    table = checked.imports
    yield from checked.module_symbols.values()
    if table is None:
        return
    yield from table.symbols.values()
    for info in model_infos(checked).values():
        yield from (field.symbol for field in info.fields.values())
    for infos in (checked.logs, table.logs_infos):
        for info in infos.values():
            yield from (metric.symbol for metric in info.metrics.values())
    for infos in (checked.data, getattr(table, "data_infos", {})):
        for info in infos.values():
            yield from (field.symbol for field in info.fields.values())


def uses_in(checked: Checked, key: Key) -> list[Span]:
    """Where a file names the declaration (and declares it, if it is that file)."""
    spans: set[Span] = set()
    for symbol in _symbols(checked):
        if key_of(symbol) == key:
            spans.update(checked.references_to(symbol))
    return sorted(spans)


def importers(files: Iterable[IndexedFile], declaring: str, search_path: list[str]) -> list[str]:
    """The indexed files whose import lines find the file `declaring`."""
    found = []
    for indexed in files:
        path = normalized(indexed.path)
        if any(
            module_paths.find(parts, path, search_path) == declaring for parts, _ in indexed.imports
        ):
            found.append(path)
    return found
