"""Code actions (the checker's quick fixes and the refactorings) and formatting, over stdio
in both capability presets."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.raw_client import RawServer
from tests.lsp.test_features import open_document, position

TYPO = "dim D = 4\n\nfn f(x: [b D]) -> [b D] = relu(x) |> gelo\n"
MESSY = "dim D=4\nfn f(x: [n D])->[n D] = x*2\n"
TIDY = "dim D = 4\n\nfn f(x: [n D]) -> [n D] = x * 2\n"


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """The text after LSP edits (all positions in the original text)."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(p: types.Position) -> int:
        return min(starts[min(p.line, len(lines))] + p.character, len(text))

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


async def actions_at(
    client: LanguageClient, uri: str, text: str, needle: str, only=None
) -> list[types.CodeAction]:
    at = position(text, needle)
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=at, end=at),
            context=types.CodeActionContext(diagnostics=client.diagnostics[uri], only=only),
        )
    )
    return list(found or [])


def edited(text: str, uri: str, action: types.CodeAction) -> str:
    return apply(text, action.edit.changes[uri])


def test_server_offers_code_actions_and_formatting(tmp_path):
    server = RawServer()
    try:
        capabilities = server.initialize(tmp_path)["result"]["capabilities"]
    finally:
        server.close()
    assert capabilities["documentFormattingProvider"]
    assert capabilities["documentRangeFormattingProvider"]
    kinds = capabilities["codeActionProvider"]["codeActionKinds"]
    assert {"quickfix", "refactor.extract", "refactor.rewrite"} <= set(kinds)


@pytest.mark.asyncio
async def test_a_quick_fix_for_a_misspelt_name(client: LanguageClient):
    uri = await open_document(client, TYPO, "typo.ss")
    (action,) = await actions_at(client, uri, TYPO, "gelo")
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.title == "Change `gelo` to `gelu`"
    assert action.is_preferred
    assert [d.code for d in action.diagnostics] == ["E0301"]
    assert edited(TYPO, uri, action) == TYPO.replace("gelo", "gelu")


@pytest.mark.asyncio
async def test_no_actions_away_from_a_fixable_diagnostic(client: LanguageClient):
    uri = await open_document(client, TYPO, "typo2.ss")
    assert await actions_at(client, uri, TYPO, "relu") == []


@pytest.mark.asyncio
async def test_a_fix_that_doesnt_fix_its_code_is_not_offered(client: LanguageClient):
    text = "fn f(x: [n]) = log(relu(x) - 1.0)\n"
    uri = await open_document(client, text, "edge.ss")
    assert [d.code for d in client.diagnostics[uri]] == ["E0506"]
    assert await actions_at(client, uri, text, "log") == []


@pytest.mark.asyncio
async def test_the_loop_h2401_flags_becomes_a_chain(client: LanguageClient):
    text = (
        "dim D = 4\n\nfn total(x: [n D]) -> [D]:\n    acc = x[0] * 0.0\n    for i in 0..n:\n"
        "        acc = acc + x[i] * 2.0\n    return acc\n"
    )
    uri = await open_document(client, text, "loop.ss")
    (action,) = await actions_at(client, uri, text, "for i")
    assert action.kind == types.CodeActionKind.RefactorRewrite
    assert "acc = acc + (n |> map(i => x[i] * 2.0) |> sum(over=n))\n    return acc" in edited(
        text, uri, action
    )


@pytest.mark.asyncio
async def test_extract_a_dim_from_a_repeated_size(client: LanguageClient):
    text = "fn f(x: [b 768]) -> [b 768] = x\n\nfn g(y: [768]) -> [768] = y\n"
    uri = await open_document(client, text, "sizes.ss")
    (action,) = await actions_at(
        client, uri, text, "768", only=[types.CodeActionKind.RefactorExtract]
    )
    assert action.title == "Extract `dim N768 = 768` from its 4 uses"
    assert edited(text, uri, action) == (
        "dim N768 = 768\n\nfn f(x: [b N768]) -> [b N768] = x\n\nfn g(y: [N768]) -> [N768] = y\n"
    )


@pytest.mark.asyncio
async def test_add_the_inferred_return_type(client: LanguageClient):
    text = "dim D = 4\n\nfn f(x: [b D]) = softmax(x, over=D)\n"
    uri = await open_document(client, text, "returns.ss")
    (action,) = await actions_at(client, uri, text, "fn f")
    assert action.title == "Add the return type `-> [b D] Prob over D`"
    assert edited(text, uri, action) == (
        "dim D = 4\n\nfn f(x: [b D]) -> [b D] Prob over D = softmax(x, over=D)\n"
    )


@pytest.mark.asyncio
async def test_formatting_lays_the_file_out(client: LanguageClient):
    uri = await open_document(client, MESSY, "messy.ss")
    edits = await client.text_document_formatting_async(
        types.DocumentFormattingParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            options=types.FormattingOptions(tab_size=4, insert_spaces=True),
        )
    )
    assert apply(MESSY, edits) == TIDY


@pytest.mark.asyncio
async def test_range_formatting_touches_only_its_lines(client: LanguageClient):
    uri = await open_document(client, MESSY, "range.ss")
    edits = await client.text_document_range_formatting_async(
        types.DocumentRangeFormattingParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=0, character=3)
            ),
            options=types.FormattingOptions(tab_size=4, insert_spaces=True),
        )
    )
    assert apply(MESSY, edits) == "dim D = 4\n\nfn f(x: [n D])->[n D] = x*2\n"


@pytest.mark.asyncio
async def test_a_file_with_syntax_errors_is_not_formatted(client: LanguageClient):
    text = "fn f(x: [n]) = (x\n"
    uri = await open_document(client, text, "bad.ss")
    edits = await client.text_document_formatting_async(
        types.DocumentFormattingParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            options=types.FormattingOptions(tab_size=4, insert_spaces=True),
        )
    )
    assert not edits
    for _ in range(100):
        if any("syntax errors" in m.message for m in client.messages):
            return
        await asyncio.sleep(0.02)
    pytest.fail(f"no message about the syntax errors: {client.messages}")
