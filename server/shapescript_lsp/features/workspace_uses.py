"""A shared declaration's uses in every file of the workspace: the file that declares it,
the open documents that import it and the indexed files whose import lines find it (those
not open are checked as they are on disk). Used by references and rename."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from shapescript.check.checker import check_source
from shapescript.check.declarations.symbols import Symbol
from shapescript.check.program import Checked
from shapescript.syntax.source import SourceFile, Span
from shapescript_lsp.documents import Document, DocumentStore
from shapescript_lsp.features.cross_references import Key, importers, key_of, uses_in

#: One file's uses: its URI, its analysis and the spans the facts record there.
FileUses = tuple[str, Checked, list[Span]]
#: What finds one file's uses of a declaration: (analysis, key, name) to spans.
Finder = Callable[[Checked, Key, str], list[Span]]


async def workspace_uses(
    ls, checked: Checked, document: Document, symbol: Symbol, find: Finder | None = None
) -> list[FileUses]:
    """The uses of a shared declaration in the document and in every file that may name
    it; the document's own first. `find(checked, key, name)` gives a file's uses, by
    default those `cross_references.uses_in` finds."""
    key = key_of(symbol)
    name = symbol.name.rsplit(".", 1)[-1]
    await ls.indexer.settled()
    if find is None:
        own = checked.references_to(symbol) + uses_in(checked, key)

        def find(checked: Checked, key: Key, name: str) -> list[Span]:
            return uses_in(checked, key)
    else:
        own = find(checked, key, name)
    found: list[FileUses] = [(document.uri, checked, own)]
    others = {key[0]}
    for other in ls.store.documents.values():
        table = other.analysis.imports if other.analysis is not None else None
        if table is not None and any(info.path == key[0] for info in table.infos):
            others.add(other.path)
    others.update(
        await asyncio.to_thread(importers, ls.index.snapshot(), key[0], ls.store.search_path)
    )
    others.discard(document.path)
    unopened = []
    for path in sorted(others):
        other = ls.store.by_path.get(path)
        analysis = await ls.store.analysis(other) if other is not None else None
        if analysis is not None:
            found.append((other.uri, analysis, find(analysis, key, name)))
        elif other is None:
            unopened.append(path)
    found += await asyncio.to_thread(uses_in_files, unopened, key, name, ls.store, find)
    return found


def uses_in_files(
    paths: list[str], key: Key, name: str, store: DocumentStore, find: Finder
) -> list[FileUses]:
    """Check files that aren't open (as they are on disk) for uses of the declaration."""
    found = []
    for path in paths:
        text = store.reader(path)
        if text is None:
            continue
        checked = check_source(
            SourceFile.from_text(path, text), search_path=store.search_path, read=store.reader
        )
        found.append((Path(path).as_uri(), checked, find(checked, key, name)))
    return found
