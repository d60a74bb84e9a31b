""" "Verify" in the editor: a code lens on each function, and the `shapescript/verify`
request its command sends, answered with the reference run's error table."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import open_document

PROGRAM = """\
dim C = 10

fn probs(x: [b C]) -> [b C] = softmax(x, over=C)

fn running(x: [b C]) -> [b C] = cumprod(x, over=C)
"""


@pytest.mark.asyncio
async def test_each_function_has_a_verify_lens(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "verify_lens.ss")
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    commands = [
        (lens.range.start.line, lens.command.command, list(lens.command.arguments))
        for lens in lenses
    ]
    assert commands == [
        (2, "shapescript.verify", [uri, "probs"]),
        (4, "shapescript.verify", [uri, "running"]),
    ]


@pytest.mark.asyncio
@pytest.mark.slow
async def test_the_verify_request_answers_with_the_error_table(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "verify_request.ss")
    answer = await client.protocol.send_request_async(
        "shapescript/verify", {"uri": uri, "fn": "probs"}
    )
    assert answer.ok is True
    assert "| result | f32 | typical |" in answer.markdown
    refused = await client.protocol.send_request_async(
        "shapescript/verify", {"uri": uri, "fn": "running"}
    )
    assert refused.ok is False
    assert "line 5: `cumprod` isn't supported" in refused.markdown
