"""Thousands of random edits through the protocol: no crash, no error, and hover still answers."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import open_document, wait_for_diagnostics

REPO = Path(__file__).resolve().parents[2]
EDITS = 2000


def fragments() -> list[str]:
    programs = json.loads((REPO / "tests" / "data" / "reference_programs.json").read_text())
    programs += [path.read_text() for path in sorted((REPO / "examples").glob("*.ss"))]
    pieces = []
    for program in programs:
        lines = program.split("\n")
        for start in range(0, len(lines), 3):
            pieces.append("\n".join(lines[start : start + 3]))
    return pieces + ["(", ")", "[", "]", "|>", "->", ":", "\t", "16gh", "?k", "## doc", '"s']


def position_of(text: str, offset: int) -> types.Position:
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


@pytest.mark.slow
@pytest.mark.asyncio
async def test_random_edits_never_break_the_server(vscode_client: LanguageClient):
    client = vscode_client
    rng = random.Random(20261129)
    pieces = fragments()
    text = (REPO / "examples" / "attention.ss").read_text()
    uri = await open_document(client, text, "storm.ss")
    version = 1
    for step in range(EDITS):
        start = rng.randrange(len(text) + 1)
        action = rng.choice(["delete", "insert", "paste", "replace"])
        end = start
        new = ""
        if action in ("delete", "replace"):
            end = min(len(text), start + rng.randrange(1, 40))
        if action in ("insert", "replace"):
            new = rng.choice(["x", " ", "\n", "(", ")", ",", "=", "|> f", "    "])
        if action == "paste":
            new = rng.choice(pieces)
        version += 1
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=position_of(text, start), end=position_of(text, end)
                        ),
                        text=new,
                    )
                ],
            )
        )
        text = text[:start] + new + text[end:]
        if len(text) > 20000:
            text = text[:20000]
            version += 1
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
        if step % 100 == 0:
            where = position_of(text, rng.randrange(len(text) + 1))
            document = types.TextDocumentIdentifier(uri=uri)
            await client.text_document_hover_async(
                types.HoverParams(text_document=document, position=where)
            )
            await client.text_document_completion_async(
                types.CompletionParams(text_document=document, position=where)
            )
            await client.text_document_signature_help_async(
                types.SignatureHelpParams(text_document=document, position=where)
            )
    final = "dim D = 4\nfn f(x: [n D]) -> [n D] = x\n"
    version += 1
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=final)],
        )
    )
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=1, character=27),
        )
    )
    assert hover is not None and "[n D]" in hover.contents.value
    await wait_for_diagnostics(client, uri)
    log_errors = [m for m in client.log_messages if m.type == types.MessageType.Error]
    assert log_errors == []
