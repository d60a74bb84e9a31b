"""Between Python and ShapeScript: `shapescript/declarationOf` with `{path, name}` finds a
`.ss` file's declaration, and references of a top-level declaration include the uses in
the workspace's Python files (generated modules left out)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

MODEL = """\
dim D = 4

model Mlp:
    param w: [D D] = normal(std=0.02)

fn double(x: [n]) -> [n] = x * 2
"""

APP = """\
from model import double as dbl
import model as m

print(dbl(1), m.double(2), m.D)
"""


async def _declaration(client: LanguageClient, path: Path, name: str):
    return await client.protocol.send_request_async(
        "shapescript/declarationOf", {"path": str(path), "name": name}
    )


@pytest.mark.asyncio
async def test_declaration_of_a_name_in_a_file(vscode_client: LanguageClient, tmp_path: Path):
    path = tmp_path / "model.ss"
    path.write_text(MODEL)
    double = await _declaration(vscode_client, path, "double")
    assert double.uri == path.as_uri()
    assert (double.range.start.line, double.range.start.character) == (5, 3)
    assert (double.range.end.line, double.range.end.character) == (5, 9)
    init = await _declaration(vscode_client, path, "Mlp.init")
    assert (init.range.start.line, init.range.start.character) == (2, 6)
    whole = await _declaration(vscode_client, path, "")
    assert whole.uri == path.as_uri() and whole.range.start.line == 0
    assert await _declaration(vscode_client, path, "missing") is None


@pytest.mark.asyncio
async def test_references_include_python_uses(vscode_client: LanguageClient, tmp_path: Path):
    path = tmp_path / "model.ss"
    path.write_text(MODEL)
    (tmp_path / "app.py").write_text(APP)
    uri = path.as_uri()
    vscode_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="shapescript", version=1, text=MODEL
            )
        )
    )
    # The server writes model.py on open; its declarations are never among the uses.
    for _ in range(300):
        if (tmp_path / "model.py").exists():
            break
        await asyncio.sleep(0.02)
    assert (tmp_path / "model.py").exists()
    result = await vscode_client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=5, character=4),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    app = (tmp_path / "app.py").as_uri()
    python = sorted(
        (loc.range.start.line, loc.range.start.character, loc.range.end.character)
        for loc in result
        if loc.uri == app
    )
    # The import, the alias's use and the module attribute.
    assert python == [(0, 18, 24), (3, 6, 9), (3, 16, 22)]
    assert not any(loc.uri.endswith("model.py") for loc in result)
    assert any(loc.uri == uri for loc in result)
