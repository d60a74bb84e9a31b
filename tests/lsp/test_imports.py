"""The language server across imports: diagnostics of files that import an edited file,
hover, definition and references on another file's names, and completion of other
files' names, of a batch's fields, a logs record's metrics and a model's functions."""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, _initialize_params, accept_registrations
from tests.lsp.imports_workspace import (
    ATTENTION,
    LIB,
    MAIN,
    RECORDS,
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
    accept_registrations(lsp_client)
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


FIELDS = """\
import attention

fn f(m: attention.Mlp, r: attention.StepLogs) -> []:
    l = r.loss
    return sum(m.bias)
"""


async def test_definition_of_another_files_fields_and_metrics(workspace: LanguageClient):
    uri = await open_file(workspace, workspace.root, "fields.ss", FIELDS)
    assert codes(workspace, uri) == []
    attention = file_uri(workspace.root, "attention.ss")
    cases = (
        (at(FIELDS, "m.bias", 3), span(ATTENTION, "bias: [D]", 0, 4)),
        (at(FIELDS, "r.loss", 3), span(ATTENTION, "loss: [] mean", 0, 4)),
    )
    for position, expected in cases:
        location = await _definition(workspace, uri, position)
        assert (location.uri, location.range) == (attention, expected)
    hover = await _hover(workspace, uri, at(FIELDS, "m.bias", 3))
    assert hover.contents.value.startswith(
        "```shapescript\nparam bias: [attention.D]\n```\n\n---\n\nParam of `attention.Mlp`"
    )


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
    assert model.startswith("**Architecture of attention.Mlp**") or model.startswith(
        "Architecture of attention.Mlp"
    )
    assert (
        "```shapescript\nmodel attention.Mlp:\n"
        "    param w: [attention.D attention.D] = zeros\n"
        "    param bias: [attention.D] = zeros\n```"
    ) in model
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


# ---------------------------------------------------------------------- completion


async def _complete(client: LanguageClient, uri: str, position: types.Position):
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position
        )
    )
    return {item.label: item for item in result.items}


def _snippets(client: LanguageClient) -> bool:
    completion = pytest_lsp.client_capabilities(client.client_name).text_document.completion
    return bool(completion.completion_item and completion.completion_item.snippet_support)


def _insert(line: int, new_text: str) -> types.TextEdit:
    place = types.Position(line=line, character=0)
    return types.TextEdit(range=types.Range(start=place, end=place), new_text=new_text)


async def test_m_dot_offers_fields_and_functions_of_every_file_that_take_the_model(
    workspace: LanguageClient,
):
    text = MAIN.replace("    return y\n", "    m.\n    return y\n")
    main = await open_file(workspace, workspace.root, "main.ss", text)
    items = await _complete(workspace, main, at(text, "m.\n", 2))
    assert sorted(items) == [
        "attention.forward",
        "attention.loss",
        "bias",
        "generic.describe",
        "run",
        "train.scale",
        "train.step",
        "w",
    ]
    replaced = span(text, "m.\n", 0, 2)

    def stops(*names: str) -> str:
        if _snippets(workspace):
            return ", ".join(f"${{{number}:{name}}}" for number, name in enumerate(names, 1))
        return ", ".join(names)

    expected = {
        "attention.forward": (f"attention.forward(m, {stops('x')})", None),
        "run": (f"run(m, {stops('x')})", None),
        "train.step": (f"train.step(mut m, {stops('x')})", [_insert(1, "import train\n")]),
        "train.scale": (f"train.scale(m, {stops('k', 'x')})", [_insert(1, "import train\n")]),
        "generic.describe": (
            f"generic.describe(m, {stops('note')})",
            [_insert(1, "import generic\n")],
        ),
    }
    for label, (call, edits) in expected.items():
        item = items[label]
        assert item.text_edit == types.TextEdit(range=replaced, new_text=call)
        assert list(item.additional_text_edits or []) == (edits or [])
        assert item.filter_text == "m." + label.rpartition(".")[2]
    assert items["w"].detail == "param w: [attention.D attention.D]"
    assert items["attention.forward"].detail == (
        "fn attention.forward(m: attention.Mlp, x: [b attention.D]) -> [b attention.D]"
    )
    assert items["train.step"].detail == (
        "fn step(mut m: attention.Mlp, x: [b attention.D], lr: float = 0.1) -> [] from train.ss"
    )


async def test_after_an_import_name_the_files_declarations(workspace: LanguageClient):
    text = MAIN.replace("    return y\n", "    attention.\n    return y\n")
    main = await open_file(workspace, workspace.root, "main.ss", text)
    items = await _complete(workspace, main, at(text, "attention.\n", 10))
    assert sorted(items) == ["D", "Digit", "Mlp", "StepLogs", "forward", "loss"]
    assert items["D"].detail == "dim D = 4"
    assert items["loss"].detail == "fn attention.loss(m: attention.Mlp, x: [b attention.D]) -> []"


async def test_other_files_names_come_with_the_import_after_the_files_imports(
    workspace: LanguageClient,
):
    text = MAIN.replace("    return y\n", "    z = sca\n    return y\n")
    main = await open_file(workspace, workspace.root, "main.ss", text)
    items = await _complete(workspace, main, at(text, "sca\n", 3))
    item = items["train.scale"]
    assert item.insert_text == "train.scale"
    assert list(item.additional_text_edits) == [_insert(1, "import train\n")]
    # uses_main.ss imports main.ss: importing it back would be a cycle.
    text = MAIN.replace("    return y\n", "    z = afte\n    return y\n")
    workspace.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=main, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    items = await _complete(workspace, main, at(text, "afte\n", 4))
    assert not [label for label in items if label.startswith("uses_main.")]


async def test_a_file_without_imports_gets_the_import_before_its_first_declaration(
    workspace: LanguageClient,
):
    text = "## About this file.\n\n## Doubles.\nfn g(x: [n]) -> [n] = x * twi\n"
    uri = await open_file(workspace, workspace.root, "fresh.ss", text)
    items = await _complete(workspace, uri, at(text, "twi\n", 3))
    assert list(items["lib.twice"].additional_text_edits) == [_insert(2, "import lib\n\n")]


async def test_fields_of_a_batch_and_metrics_of_a_logs_record(workspace: LanguageClient):
    uri = await open_file(workspace, workspace.root, "records.ss", RECORDS)
    cases = {
        "    u = batch.\n": [("x", "x: [b D]"), ("label", "label: [b] Index[D]")],
        "    v = r.\n": [("loss", "loss: [] mean"), ("lr", "lr: float last")],
        "    z = one.\n": [("x", "x: [D]"), ("label", "label: [] Index[D]")],
        "        y = batch.\n": [("x", "x: [b D]"), ("label", "label: [b] Index[D]")],
    }
    for needle, expected in cases.items():
        items = await _complete(workspace, uri, at(RECORDS, needle, len(needle) - 1))
        shown = sorted(items.values(), key=lambda item: item.sort_text)
        assert [(item.label, item.detail) for item in shown] == expected
