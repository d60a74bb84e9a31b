"""Notebooks in the editor: LSP notebook document sync for `%%shapescript` cells.

Each `%%shapescript` cell is an open document whose analysis checks it after the cells
above it (`shapescript.notebook.cell_program`), so every feature that reads a document's
analysis works in it; an edit to any cell checks the `%%shapescript` cells again.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from shapescript.notebook.cell_program import check_cell, earlier_line, is_shapescript_cell
from shapescript_lsp.documents import path_of
from shapescript_lsp.text_edits import apply_changes

log = logging.getLogger("shapescript_lsp")

#: The notebooks whose cells the server wants: Jupyter's, with cells of any language
#: (a `%%shapescript` cell is a Python cell to the editor).
SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithNotebook(
            notebook="jupyter-notebook",
            cells=[
                types.NotebookCellLanguage(language="python"),
                types.NotebookCellLanguage(language="shapescript"),
            ],
        )
    ]
)


class Notebook:
    """One open notebook: its cells' URIs in order, and each cell's text."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.order: list[str] = []
        self.texts: dict[str, str] = {}

    def earlier(self, cell_uri: str) -> list[str]:
        index = self.order.index(cell_uri) if cell_uri in self.order else len(self.order)
        return [self.texts.get(uri, "") for uri in self.order[:index]]


def _checker(notebook: Notebook, cell_uri: str):
    def check(text: str):
        return check_cell(path_of(cell_uri), text, notebook.earlier(cell_uri))

    return check


def _moved(notebook: Notebook, uri: str, cell: str, place):
    """A definition found in the program of a cell, in the earlier cell it is in."""
    links = isinstance(place, types.LocationLink)
    target = place.target_uri if links else place.uri
    ranges = (place.target_range, place.target_selection_range) if links else (place.range,)
    if target != uri:
        return place
    earlier = notebook.earlier(uri)
    where = earlier_line(cell, earlier, ranges[0].start.line)
    if where is None:
        return place
    index, _ = where
    other = notebook.order[index]

    def move(range_: types.Range) -> types.Range:
        start = earlier_line(cell, earlier, range_.start.line)
        end = earlier_line(cell, earlier, range_.end.line)
        return types.Range(
            start=types.Position(line=start[1] if start else 0, character=range_.start.character),
            end=types.Position(line=end[1] if end else 0, character=range_.end.character),
        )

    if links:
        return types.LocationLink(
            target_uri=other,
            target_range=move(ranges[0]),
            target_selection_range=move(ranges[1]),
            origin_selection_range=place.origin_selection_range,
        )
    return types.Location(uri=other, range=move(ranges[0]))


def register(server) -> None:
    """Declare notebook sync and handle its notifications."""
    server._notebook_document_sync = SYNC
    notebooks: dict[str, Notebook] = {}
    server.notebooks = notebooks

    def refresh(ls, notebook: Notebook) -> None:
        """Open, update or close the cells' documents, and check every `%%shapescript` one."""
        for uri in notebook.order:
            text = notebook.texts.get(uri, "")
            document = ls.store.get(uri)
            if is_shapescript_cell(text):
                if document is None:
                    document = ls.store.open(uri, text, None)
                    document.checker = _checker(notebook, uri)
                elif document.text != text:
                    document.text = text
                    document.revision += 1
                else:
                    document.invalidate()
                ls.schedule(document)
            elif document is not None:
                _close(ls, uri)

    def _close(ls, uri: str) -> None:
        task = ls.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        if ls.store.get(uri) is not None:
            ls.store.close(uri)
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    features = server.protocol.fm.features
    find_definition = features.get(types.TEXT_DOCUMENT_DEFINITION)
    if find_definition is not None:

        async def definition_in_cells(params):
            found = await find_definition(params)
            uri = params.text_document.uri
            notebook = next((nb for nb in notebooks.values() if uri in nb.texts), None)
            if notebook is None or found is None:
                return found
            cell = notebook.texts.get(uri, "")
            if isinstance(found, list):
                return [_moved(notebook, uri, cell, place) for place in found]
            return _moved(notebook, uri, cell, found)

        features[types.TEXT_DOCUMENT_DEFINITION] = definition_in_cells

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def did_open(ls, params: types.DidOpenNotebookDocumentParams) -> None:
        notebook = Notebook(params.notebook_document.uri)
        notebooks[notebook.uri] = notebook
        notebook.order = [cell.document for cell in params.notebook_document.cells]
        for item in params.cell_text_documents:
            notebook.texts[item.uri] = item.text
        refresh(ls, notebook)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: types.DidChangeNotebookDocumentParams) -> None:
        notebook = notebooks.get(params.notebook_document.uri)
        change = params.change.cells
        if notebook is None or change is None:
            return
        if change.structure is not None:
            array = change.structure.array
            removed = notebook.order[array.start : array.start + array.delete_count]
            added = [cell.document for cell in array.cells or []]
            notebook.order[array.start : array.start + array.delete_count] = added
            for item in change.structure.did_open or []:
                notebook.texts[item.uri] = item.text
            for uri in removed:
                if uri not in notebook.order:
                    notebook.texts.pop(uri, None)
                    _close(ls, uri)
        for text_change in change.text_content or []:
            uri = text_change.document.uri
            notebook.texts[uri] = apply_changes(
                notebook.texts.get(uri, ""), list(text_change.changes)
            )
        refresh(ls, notebook)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: types.DidCloseNotebookDocumentParams) -> None:
        notebook = notebooks.pop(params.notebook_document.uri, None)
        if notebook is None:
            return
        for uri in notebook.order:
            _close(ls, uri)
