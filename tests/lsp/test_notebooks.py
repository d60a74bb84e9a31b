"""A Jupyter notebook's `%%shapescript` cells in the editor, over LSP notebook sync:
each cell is checked after the cells above it."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

NOTEBOOK = "file:///tmp/lsp-tests/analysis.ipynb"
CELLS = [
    "import torch\nscale = 2.0\nD = 3\n",
    "%%shapescript\ndevices cpu\ndim D = 4\nfn double(a: [n D]) -> [n D] = a * 2\n"
    "x = torch.ones(2, 4) as [2 D]\nfor i in 0..2:\n    q = x + 1\n",
    "%%shapescript\ny = double(x)\nz = y + nope\n",
]


def cell_uri(index: int) -> str:
    return f"vscode-notebook-cell:/tmp/lsp-tests/analysis.ipynb#W{index}sZmlsZQ%3D%3D"


def open_notebook(client: LanguageClient, cells: list[str]) -> None:
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=NOTEBOOK,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[
                    types.NotebookCell(kind=types.NotebookCellKind.Code, document=cell_uri(i))
                    for i in range(len(cells))
                ],
            ),
            cell_text_documents=[
                types.TextDocumentItem(uri=cell_uri(i), language_id="python", version=1, text=text)
                for i, text in enumerate(cells)
            ],
        )
    )


async def diagnostics_of(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    for _ in range(500):
        found = client.diagnostics.get(uri)
        if found is not None:
            return list(found)
        await asyncio.sleep(0.02)
    raise AssertionError(f"no diagnostics for {uri}")


@pytest.mark.asyncio
async def test_cells_are_checked_after_the_cells_above_them(vscode_client: LanguageClient):
    client = vscode_client
    open_notebook(client, CELLS)
    assert await diagnostics_of(client, cell_uri(1)) == []
    (diagnostic,) = await diagnostics_of(client, cell_uri(2))
    assert diagnostic.code == "E0301"
    assert diagnostic.range == types.Range(
        start=types.Position(line=2, character=8), end=types.Position(line=2, character=12)
    )
    assert cell_uri(0) not in client.diagnostics


@pytest.mark.asyncio
async def test_hover_completion_and_definition_in_a_cell(vscode_client: LanguageClient):
    client = vscode_client
    open_notebook(client, CELLS)
    await diagnostics_of(client, cell_uri(2))
    where = types.TextDocumentIdentifier(uri=cell_uri(2))
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=where, position=types.Position(line=1, character=6))
    )
    assert hover is not None and "double" in hover.contents.value
    typed = await client.text_document_hover_async(
        types.HoverParams(text_document=where, position=types.Position(line=1, character=0))
    )
    assert typed is not None and "[2 D]" in typed.contents.value
    completion = await client.text_document_completion_async(
        types.CompletionParams(text_document=where, position=types.Position(line=2, character=4))
    )
    items = {item.label: item for item in completion.items}
    assert "double" in items and "y" in items
    # Earlier cells' values, wherever the cursor is, and the notebook's Python variables
    # where nothing else has the name (D is the dim).
    assert items["x"].detail == "[2 D]" and items["x"].kind == types.CompletionItemKind.Variable
    assert "q" in items and items["D"].kind == types.CompletionItemKind.Constant
    for name in ("scale", "torch"):
        assert items[name].kind == types.CompletionItemKind.Variable
        assert items[name].detail == "a Python variable of the notebook"
    labels = [item.label for item in sorted(completion.items, key=lambda i: i.sort_text or "")]
    assert labels.index("x") < labels.index("scale")
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=where, position=types.Position(line=1, character=6))
    )
    location = found[0] if isinstance(found, list) else found
    uri = location.target_uri if hasattr(location, "target_uri") else location.uri
    target = location.target_selection_range if hasattr(location, "target_uri") else location.range
    assert uri == cell_uri(1)
    assert target.start == types.Position(line=3, character=3)


@pytest.mark.asyncio
async def test_an_edit_to_an_earlier_cell_checks_the_later_ones(vscode_client: LanguageClient):
    client = vscode_client
    open_notebook(client, CELLS)
    assert len(await diagnostics_of(client, cell_uri(2))) == 1
    client.diagnostics.pop(cell_uri(2))
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(version=2, uri=NOTEBOOK),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(
                                uri=cell_uri(1), version=2
                            ),
                            changes=[
                                types.TextDocumentContentChangeWholeDocument(
                                    text=CELLS[1] + "nope = x\n"
                                )
                            ],
                        )
                    ]
                )
            ),
        )
    )
    assert await diagnostics_of(client, cell_uri(2)) == []
