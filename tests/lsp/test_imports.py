"""The language server across imports: diagnostics of files that import an edited file,
hover, definition and references on another file's names, and completion of other
files' names, of a batch's fields, a logs record's metrics and a model's functions."""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, _initialize_params
from tests.lsp.imports_workspace import (
    ATTENTION,
    LIB,
    MAIN,
    USER,
    at,
    codes,
    file_uri,
    open_file,
    span,
    until,
    write_workspace,
)


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
    lsp_client.registrations = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        lsp_client.registrations.extend(params.registrations)

    await lsp_client.initialize_session(params)
    lsp_client.client_name = request.param
    lsp_client.root = root
    yield
    await lsp_client.shutdown_session()


# ---------------------------------------------------------------------- diagnostics


async def test_editing_an_imported_file_rechecks_the_files_that_import_it(
    workspace: LanguageClient,
):
    root: Path = workspace.root
    user = await open_file(workspace, root, "user.ss")
    assert codes(workspace, user) == []
    lib = await open_file(workspace, root, "lib.ss")
    broken = LIB.replace("x * 2.0", "x + missing")
    workspace.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=lib, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=broken)],
        )
    )
    await until(lambda: codes(workspace, user) == ["E2303"], "no E2303 in user.ss")
    (diagnostic,) = workspace.diagnostics[user]
    assert diagnostic.range == span(USER, "import lib", 7)
    assert "lib.ss:3:" in diagnostic.message
    workspace.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=lib, version=3),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=LIB)],
        )
    )
    await until(lambda: codes(workspace, user) == [], "E2303 stays in user.ss")


async def test_a_change_on_disk_rechecks_the_files_that_import_it(workspace: LanguageClient):
    root: Path = workspace.root
    if workspace.client_name.startswith("visual"):
        await until(lambda: workspace.registrations, "no file watcher registered")
        (registration,) = workspace.registrations
        assert registration.method == "workspace/didChangeWatchedFiles"
    user = await open_file(workspace, root, "user.ss")
    assert codes(workspace, user) == []
    (root / "lib.ss").write_text(LIB.replace("x * 2.0", "x + missing"))
    await _disk_change(workspace, "lib.ss", types.FileChangeType.Changed)
    await until(lambda: codes(workspace, user) == ["E2303"], "no E2303 in user.ss")
    (root / "lib.ss").unlink()
    await _disk_change(workspace, "lib.ss", types.FileChangeType.Deleted)
    await until(lambda: "E2301" in codes(workspace, user), "no E2301 in user.ss")


async def _disk_change(client: LanguageClient, name: str, kind: types.FileChangeType) -> None:
    uri = file_uri(client.root, name)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri, type=kind)])
    )


# ---------------------------------------------------------------------- definition and hover


async def _definition(client: LanguageClient, uri: str, position: types.Position):
    found = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position
        )
    )
    return found[0] if isinstance(found, list) else found


async def test_definition_of_another_files_names_is_in_that_file(workspace: LanguageClient):
    root: Path = workspace.root
    main = await open_file(workspace, root, "main.ss")
    assert codes(workspace, main) == []
    attention = file_uri(root, "attention.ss")
    cases = (
        (at(MAIN, "attention.forward", 12), span(ATTENTION, "forward(m: Mlp", 0, 7)),
        (at(MAIN, "attention.Mlp", 11), span(ATTENTION, "Mlp:", 0, 3)),
        (at(MAIN, "attention.D]", 10), span(ATTENTION, "D = 4", 0, 1)),
    )
    for position, expected in cases:
        location = await _definition(workspace, main, position)
        assert (location.uri, location.range) == (attention, expected)
    location = await _definition(workspace, main, at(MAIN, "import attention", 9))
    top = types.Position(line=0, character=0)
    assert (location.uri, location.range) == (attention, types.Range(start=top, end=top))


async def _hover(client: LanguageClient, uri: str, position: types.Position) -> types.Hover:
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
    )
    assert hover is not None
    return hover


async def test_hover_on_another_files_names_shows_them_as_this_file_names_them(
    workspace: LanguageClient,
):
    main = await open_file(workspace, workspace.root, "main.ss")
    hover = await _hover(workspace, main, at(MAIN, "attention.forward", 12))
    assert hover.range == span(MAIN, "forward(m, x)", 0, 7)
    assert hover.contents.value == (
        "```shapescript\n"
        "fn attention.forward(m: attention.Mlp, x: [b attention.D]) -> [b attention.D]\n"
        "```\n\n---\n\nApplies the layer.\n\n---\n\nDeclared in `attention.ss`"
    )
    model = (await _hover(workspace, main, at(MAIN, "attention.Mlp", 11))).contents.value
    assert model.startswith(
        "```shapescript\nmodel attention.Mlp:\n"
        "    param w: [attention.D attention.D] = zeros\n"
        "    param bias: [attention.D] = zeros\n```"
    )
    assert "A small layer." in model and model.endswith("Declared in `attention.ss`")
    dim = (await _hover(workspace, main, at(MAIN, "attention.D]", 10))).contents.value
    assert dim.startswith("```shapescript\ndim attention.D = 4\n```\n\n---\n\nFeatures per token.")


# ---------------------------------------------------------------------- references


async def _references(client: LanguageClient, uri: str, position: types.Position, include=True):
    locations = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position,
            context=types.ReferenceContext(include_declaration=include),
        )
    )
    return sorted(
        ((location.uri, location.range) for location in locations),
        key=lambda found: (found[0], found[1].start.line, found[1].start.character),
    )


async def test_references_to_another_files_function_cover_the_workspace(
    workspace: LanguageClient,
):
    root: Path = workspace.root
    main = await open_file(workspace, root, "main.ss")
    attention = file_uri(root, "attention.ss")
    found = await _references(workspace, main, at(MAIN, "attention.forward", 12))
    assert found == [
        (attention, span(ATTENTION, "forward(m: Mlp", 0, 7)),
        (attention, span(ATTENTION, "forward(m, x)", 0, 7)),
        (main, span(MAIN, "attention.forward")),
    ]
    without = await _references(workspace, main, at(MAIN, "attention.forward", 12), False)
    assert without == found[1:]


async def test_references_to_a_model_from_its_own_file_find_the_files_that_import_it(
    workspace: LanguageClient,
):
    root: Path = workspace.root
    attention = await open_file(workspace, root, "attention.ss")
    found = await _references(workspace, attention, at(ATTENTION, "Mlp:"))
    train = (root / "train.ss").read_text()
    uses_main = (root / "uses_main.ss").read_text()
    assert found == [
        (attention, span(ATTENTION, "Mlp:", 0, 3)),
        (attention, span(ATTENTION, "Mlp, x: [b D]) -> [b D]", 0, 3)),
        (attention, span(ATTENTION, "Mlp, x: [b D]) -> []", 0, 3)),
        (file_uri(root, "main.ss"), span(MAIN, "attention.Mlp")),
        (file_uri(root, "train.ss"), span(train, "attention.Mlp, x", 0, 13)),
        (file_uri(root, "train.ss"), span(train, "attention.Mlp, k", 0, 13)),
        (file_uri(root, "uses_main.ss"), span(uses_main, "attention.Mlp")),
    ]
