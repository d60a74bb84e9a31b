"""Regularity across files in the editor: an edit of an imported file that makes a function
discontinuous brings E3001 into the file that differentiates through it, and the edit back
takes it away; the caller's hover names the other file's operation."""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, _initialize_params, accept_registrations
from tests.lsp.imports_workspace import at, codes, open_file, until

KINKS = """\
dim C = 3

fn kinked(h: [b C]) -> [b C] = h |> relu
"""

TRAIN = """\
import kinks

dim D = 4

model Net:
    param w: [D kinks.C] = zeros

fn loss(m: Net, x: [b D]) -> [] = mean(kinks.kinked(x @ m.w))

fn step(m: Net, x: [b D]) -> Grad[Net]:
    l, g = value_and_grad(loss, m, x)
    return g
"""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def workspace(lsp_client: LanguageClient, tmp_path_factory):
    """A client whose workspace folder holds kinks.ss and train.ss."""
    root = tmp_path_factory.mktemp("ws")
    (root / "kinks.ss").write_text(KINKS)
    (root / "train.ss").write_text(TRAIN)
    params = _initialize_params("visual-studio-code", tmp_path_factory.mktemp("lsp"))
    params.root_uri = None
    params.workspace_folders = [types.WorkspaceFolder(uri=root.as_uri(), name="ws")]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(params)
    lsp_client.root = root
    yield
    await lsp_client.shutdown_session()


def _edit(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def test_an_edit_of_an_imported_function_updates_e3001_and_the_hover(
    workspace: LanguageClient,
):
    root: Path = workspace.root
    train = await open_file(workspace, root, "train.ss")
    assert codes(workspace, train) == []
    kinks = await open_file(workspace, root, "kinks.ss")
    _edit(workspace, kinks, 2, KINKS.replace("h |> relu", "h |> round"))
    await until(lambda: codes(workspace, train) == ["E3001"], "no E3001 in train.ss")
    (diagnostic,) = workspace.diagnostics[train]
    assert "`round` at line 3 of kinks.ss" in diagnostic.message
    hover = await workspace.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=train),
            position=at(TRAIN, "fn loss", 3),
        )
    )
    assert hover is not None
    assert "discontinuous in `m` (`round`, line 3 of kinks.ss)" in str(hover.contents)
    _edit(workspace, kinks, 3, KINKS)
    await until(lambda: codes(workspace, train) == [], "E3001 stays in train.ss")
