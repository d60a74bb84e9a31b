"""Rename of a top-level name across the workspace's files (the declaring file, the open
files that import it and the files on disk that do), and workspace symbols of files that
aren't open."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, _initialize_params, accept_registrations
from tests.lsp.imports_workspace import ATTENTION, MAIN, at, file_uri, open_file, write_workspace
from tests.lsp.test_names import _applied


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER),
    params=["visual-studio-code", "neovim@v0.7.0"],
)
async def workspace(request, lsp_client: LanguageClient, tmp_path_factory):
    """A client whose workspace folder holds the files of `imports_workspace`."""
    root = tmp_path_factory.mktemp("ws")
    write_workspace(root)
    params = _initialize_params(request.param, tmp_path_factory.mktemp("lsp"))
    params.root_uri = None
    params.workspace_folders = [types.WorkspaceFolder(uri=root.as_uri(), name="ws")]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(params)
    lsp_client.client_name = request.param
    lsp_client.root = root
    yield
    await lsp_client.shutdown_session()


async def _rename(client: LanguageClient, uri: str, where: types.Position, new: str):
    return await client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=where, new_name=new
        )
    )


def _renamed(root: Path, edit: types.WorkspaceEdit) -> dict[str, str]:
    """Each changed file's text after the edit, by file name."""
    return {
        Path(uri.removeprefix("file://")).name: _applied(
            (root / Path(uri.removeprefix("file://")).name).read_text(), edits
        )
        for uri, edits in edit.changes.items()
    }


@pytest.mark.asyncio
async def test_renaming_a_function_from_a_file_that_imports_it(workspace: LanguageClient):
    root: Path = workspace.root
    main = await open_file(workspace, root, "main.ss")
    edit = await _rename(workspace, main, at(MAIN, "attention.forward", 12), "apply_layer")
    renamed = _renamed(root, edit)
    assert sorted(renamed) == ["attention.ss", "main.ss"]
    assert "fn apply_layer(m: Mlp, x: [b D])" in renamed["attention.ss"]
    assert "sum(apply_layer(m, x))" in renamed["attention.ss"]
    assert "    y = attention.apply_layer(m, x)\n" in renamed["main.ss"]
    assert "forward" not in renamed["attention.ss"] + renamed["main.ss"]


@pytest.mark.asyncio
async def test_renaming_a_dim_from_its_file_reaches_every_importer(workspace: LanguageClient):
    root: Path = workspace.root
    attention = await open_file(workspace, root, "attention.ss")
    edit = await _rename(workspace, attention, at(ATTENTION, "dim D", 4), "Width")
    renamed = _renamed(root, edit)
    assert sorted(renamed) == ["attention.ss", "main.ss", "train.ss"]
    assert "dim Width = 4" in renamed["attention.ss"]
    assert "param w: [Width Width] = zeros" in renamed["attention.ss"]
    assert "label: [] Index[Width]" in renamed["attention.ss"]
    assert (
        "fn run(m: attention.Mlp, x: [b attention.Width]) -> [b attention.Width]:"
        in renamed["main.ss"]
    )
    assert "attention.D" not in renamed["train.ss"]
    assert file_uri(root, "user.ss") not in edit.changes


@pytest.mark.asyncio
async def test_renaming_to_another_declarations_name_is_refused(workspace: LanguageClient):
    root: Path = workspace.root
    main = await open_file(workspace, root, "main.ss")
    with pytest.raises(JsonRpcException) as raised:
        await _rename(workspace, main, at(MAIN, "attention.forward", 12), "loss")
    assert "E0302" in str(raised.value) and "`loss`" in str(raised.value)


@pytest.mark.asyncio
async def test_workspace_symbols_find_declarations_of_files_not_open(workspace: LanguageClient):
    root: Path = workspace.root
    await open_file(workspace, root, "main.ss")
    found = await workspace.workspace_symbol_async(types.WorkspaceSymbolParams(query="steplogs"))
    assert [(symbol.name, symbol.location.uri) for symbol in found] == [
        ("StepLogs", file_uri(root, "attention.ss"))
    ]
    assert found[0].location.range.start == at(ATTENTION, "StepLogs")
    fields = await workspace.workspace_symbol_async(types.WorkspaceSymbolParams(query="label"))
    assert [(symbol.name, symbol.container_name) for symbol in fields] == [("label", "Digit")]
