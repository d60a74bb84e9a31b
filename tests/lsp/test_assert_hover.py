"""Hover on `assert` says what the checker decided: proved, refuted with the
counterexample, or checked at run time; a refuted assert is a diagnostic as you type."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from shapescript_lsp.features.semantic_tokens import LEGEND
from tests.lsp.test_features import markdown, open_document, position
from tests.lsp.test_names import _decoded

ASSERTS = """\
dim T = 8
dim D = 4
assert T >= 4

fn head(pos: [T D], x: [n D]) -> [n D]:
    assert n <= T
    return pos[0:n] + x

fn never(x: [n D]) -> [n D]:
    assert n + 1 <= n
    return x
"""


async def _hover(client: LanguageClient, uri: str, needle: str) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(ASSERTS, needle, 2),
        )
    )
    assert hover is not None
    return markdown(hover)


@pytest.mark.asyncio
async def test_hover_on_each_assert_says_what_the_checker_decided(client: LanguageClient):
    uri = await open_document(client, ASSERTS, "asserts.ss")
    assert [d.code for d in client.diagnostics[uri]] == ["E3501"]
    assert "**assert: proved**" in await _hover(client, uri, "assert T >= 4")
    runtime = await _hover(client, uri, "assert n <= T")
    assert "**assert: checked at run time**" in runtime
    assert "`n <= T` depends on the values" in runtime
    refuted = await _hover(client, uri, "assert n + 1")
    assert "**assert: fails** (for n = 1, `n + 1 <= n` is `2 <= 1`)" in refuted


@pytest.mark.asyncio
async def test_assert_is_a_keyword_in_the_semantic_tokens(client: LanguageClient):
    uri = await open_document(client, ASSERTS, "assert_tokens.ss")
    answer = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    legend = LEGEND
    tokens = _decoded(ASSERTS, answer.data, legend)
    assert tokens.count(("assert", "keyword", ())) == 3
