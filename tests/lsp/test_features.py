"""The language server end to end over stdio, with VS Code's and Neovim 0.7's capabilities."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from shapescript.diagnostics.pages import page_location

PROGRAM = """\
dim D = 8
dim H = 2
## Features per head.
dim Dh = D / H

## Doubles its input.
fn double(x: [n D]) -> [n D] = x * 2.0

fn use(y: [t D]) -> [t D]:
    z = double(y)
    w = z
        |> softmax(over=D)
        |> double
    return w
"""
BROKEN = "fn f(x: [n D], y: [k D]) = x + y\n"


def open_file(client: LanguageClient, path: Path, text: str) -> str:
    """Open `text` as the document at `path`, without waiting for its diagnostics."""
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="shapescript", version=1, text=text
            )
        )
    )
    return uri


async def open_document(client: LanguageClient, text: str, name: str = "main.ss") -> str:
    uri = open_file(client, Path(f"/tmp/lsp-tests/{name}"), text)
    await wait_for_diagnostics(client, uri)
    return uri


async def wait_for_diagnostics(client: LanguageClient, uri: str, version: int = 1):
    for _ in range(200):
        if uri in client.diagnostics and client.diagnostics.get(uri) is not None:
            versions = getattr(client, "_versions", {})
            if versions.get(uri, version) >= version:
                return client.diagnostics[uri]
        await asyncio.sleep(0.02)
    raise AssertionError(f"no diagnostics for {uri}")


def position(text: str, needle: str, offset: int = 0) -> types.Position:
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    column = index - (text.rfind("\n", 0, index) + 1)
    return types.Position(line=line, character=column)


def markdown(hover: types.Hover) -> str:
    contents = hover.contents
    return contents.value if isinstance(contents, types.MarkupContent) else str(contents)


@pytest.mark.asyncio
async def test_diagnostics_have_code_range_and_link(client: LanguageClient):
    uri = await open_document(client, BROKEN, "broken.ss")
    (diagnostic,) = client.diagnostics[uri]
    assert diagnostic.code == "E0404"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.range.start == types.Position(line=0, character=29)
    assert diagnostic.code_description.href == page_location("E0404").as_uri()


@pytest.mark.asyncio
async def test_clean_file_publishes_no_diagnostics(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
async def test_hover_shows_type_docs_and_drawing(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "z = double"),
        )
    )
    text = markdown(hover)
    assert "z: [t D]" in text
    if client.client_name.startswith("visual"):
        assert "data:image/png;base64," in text and "|width=" in text
    else:
        assert "┌" in text and "data:image" not in text


@pytest.mark.asyncio
async def test_hover_on_a_dim_shows_its_value_and_uses(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "dim Dh", 4),
        )
    )
    text = markdown(hover)
    assert "dim Dh = D / H = 4" in text and "Features per head." in text


@pytest.mark.asyncio
async def test_hover_on_a_function_and_a_builtin(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "double(y)"),
        )
    )
    assert "fn double(x: [n D]) -> [n D]" in markdown(hover)
    assert "Doubles its input." in markdown(hover)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "softmax"),
        )
    )
    assert "fn softmax(" in markdown(hover)


@pytest.mark.asyncio
async def test_hover_on_a_pipe_shows_before_and_after(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "|> softmax"),
        )
    )
    assert "[t D]  →  [t D] Prob over D" in markdown(hover)


@pytest.mark.asyncio
async def test_definition_in_file_and_into_the_library(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    location = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "double(y)"),
        )
    )
    assert location.uri == uri and location.range.start == position(PROGRAM, "double(x")
    location = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "softmax"),
        )
    )
    assert location.uri.endswith("/builtins.ss")
    path = Path(location.uri.removeprefix("file://"))
    line = path.read_text(encoding="utf-8").splitlines()[location.range.start.line]
    assert line.startswith("fn softmax(")
    assert not path.stat().st_mode & 0o222


@pytest.mark.asyncio
async def test_references_of_a_function(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    locations = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "double(x"),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert sorted(loc.range.start.line for loc in locations) == [6, 9, 12]


@pytest.mark.asyncio
async def test_completion_after_over_offers_exactly_the_axes(client: LanguageClient):
    text = PROGRAM.replace("softmax(over=D)", "softmax(over=)")
    uri = await open_document(client, text)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, "over=)", 5),
        )
    )
    assert sorted(item.label for item in result.items) == ["D", "t"]


@pytest.mark.asyncio
async def test_completion_ranks_an_exact_fit_first(client: LanguageClient):
    text = PROGRAM.replace("z = double(y)", "z = double(y)\n    q = double()")
    uri = await open_document(client, text)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, "double()", 7),
        )
    )
    items = sorted(result.items, key=lambda item: item.sort_text)
    assert items[0].label == "x=" or items[0].label in ("y", "z")
    fits = [item.label for item in items if item.label in ("y", "z")]
    assert fits and items[[i.label for i in items].index(fits[0])].preselect in (True, None)


@pytest.mark.asyncio
async def test_signature_help_shows_the_active_parameter(client: LanguageClient):
    text = PROGRAM.replace("z = double(y)", "z = double(y)\n    s = softmax(z, ")
    uri = await open_document(client, text)
    help_ = await client.text_document_signature_help_async(
        types.SignatureHelpParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, "softmax(z, ", 11),
        )
    )
    assert help_.signatures[0].label.startswith("fn softmax(")
    assert help_.active_parameter == 1


@pytest.mark.asyncio
async def test_inlay_hints_end_each_pipe_line_with_its_shape(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=20, character=0)
            ),
        )
    )
    labels = {hint.position.line: hint.label for hint in hints}
    # Lines 9 and 10 are the bindings `z = ...` and `w = ...`, hinted after the name.
    assert labels == {9: ": [t D]", 10: ": [t D]", 11: ": [t D] Prob over D", 12: ": [t D]"}


@pytest.mark.asyncio
async def test_declaration_of(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    answer = await client.protocol.send_request_async(
        "shapescript/declarationOf",
        {"textDocument": {"uri": uri}, "position": {"line": 9, "character": 9}},
    )
    assert answer.kind == "fn" and answer.name == "double"


PYTHON_PROGRAM = """\
import python json.decoder
extern fn loads(s: Real) -> Real = "json.loads"
fn f() = json.dumps(1)
"""


@pytest.mark.asyncio
async def test_definition_into_python(client: LanguageClient):
    uri = await open_document(client, PYTHON_PROGRAM, "python.ss")
    client.protocol.notify("shapescript/setPython", {"python": None})

    async def goto(needle: str, offset: int) -> types.Location:
        result = await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=position(PYTHON_PROGRAM, needle, offset),
            )
        )
        return result[0] if isinstance(result, list) else result

    module = await goto("json.decoder", 6)
    assert module.uri.endswith("/json/decoder.py")
    member = await goto("json.dumps", 6)
    assert member.uri.endswith("/json/__init__.py") and member.range.start.line > 0
    extern = await goto('"json.loads"', 7)
    assert extern.uri.endswith("/json/__init__.py")


TORCH_PROGRAM = "import python torch\n\nfn f(x: [n]) -> [n] = torch.tanh(x)\n"


@pytest.mark.asyncio
async def test_definition_of_a_torch_function_lands_in_its_stub(client: LanguageClient):
    uri = await open_document(client, TORCH_PROGRAM, "torch_jump.ss")
    client.protocol.notify("shapescript/setPython", {"python": None})
    result = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(TORCH_PROGRAM, "tanh", 1),
        )
    )
    found = result[0] if isinstance(result, list) else result
    assert found.uri.endswith("/torch/_C/_VariableFunctions.pyi")
    assert found.range.start.line > 0 and found.range.start.character == 4


@pytest.mark.asyncio
async def test_other_files_names_complete_with_an_import(client: LanguageClient):
    folder = Path("/tmp/lsp-tests")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "layers.ss").write_text("fn swish_layer(x: Real) -> Real = x\n")
    text = "fn g(x: [n]) -> [n] = swish\n"
    uri = await open_document(client, text, "uses_layers.ss")
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, "swish", 5),
        )
    )
    (item,) = [item for item in result.items if item.label == "layers.swish_layer"]
    assert item.insert_text == "layers.swish_layer"
    # The file has no imports: the import goes before its first declaration.
    assert item.additional_text_edits[0].new_text == "import layers\n\n"


@pytest.mark.asyncio
async def test_hover_shows_domains_by_name(client: LanguageClient):
    text = "fn f(x: [n]) -> [n]:\n    u = sigmoid(x)\n    s = u * 2.0 - 1.0\n    return x\n"
    uri = await open_document(client, text, "domains.ss")
    for needle, expected in (("u = ", "u: [n] Unit"), ("s = ", "s: [n] Signed")):
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=position(text, needle),
            )
        )
        assert expected in markdown(hover)


@pytest.mark.asyncio
async def test_members_of_a_python_module(client: LanguageClient):
    text = "import python json\nfn f() = json.\n"
    uri = await open_document(client, text, "members.ss")
    for _ in range(300):
        # Incomplete while the interpreter lists json in the background.
        result = await client.text_document_completion_async(
            types.CompletionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=position(text, "json.\n", 5),
            )
        )
        if not result.is_incomplete:
            break
        await asyncio.sleep(0.05)
    labels = {item.label for item in result.items}
    assert {"dumps", "loads"} <= labels
