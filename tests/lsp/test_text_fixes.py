"""Text that was wrong or missing (issue 31, item 9): signature help shows each parameter's
default, so an optional one doesn't look required (`layer_norm`'s `weight` did), and a
shape drawing says that its sides are on a log scale."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import open_document, position

PROGRAM = """\
dim D = 8

fn scaled(x: [b D], k: float = -2.5, on: bool = true, w: [D] = none) -> [b D] = x * k

fn use(x: [b D]) -> [b D]:
    y = layer_norm(x, over=D, )
    return scaled(y, )
"""


async def signature_at(client: LanguageClient, uri: str, needle: str) -> types.SignatureHelp:
    found = await client.text_document_signature_help_async(
        types.SignatureHelpParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, needle, len(needle)),
        )
    )
    assert found is not None
    return found


@pytest.mark.asyncio
async def test_signature_help_shows_defaults(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "defaults.ss")
    found = await signature_at(client, uri, "layer_norm(x, over=D, ")
    (signature,) = found.signatures
    assert signature.label == (
        "fn layer_norm(x: [... D], over: Axis[D], weight: [D] = none, bias: [D] = none,"
        " eps: float = 1e-5) -> [... D]"
    )
    labels = [parameter.label for parameter in signature.parameters]
    assert labels[2] == "weight: [D] = none"
    assert found.active_parameter == 2
    found = await signature_at(client, uri, "scaled(y, ")
    labels = [parameter.label for parameter in found.signatures[0].parameters]
    assert labels == ["x: [b D]", "k: float = -2.5", "on: bool = true", "w: [D] = none"]
    assert found.active_parameter == 1


@pytest.mark.asyncio
async def test_a_shape_drawing_says_its_sides_are_on_a_log_scale(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "log_scale.ss")
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "y = layer_norm", 0),
        )
    )
    text = hover.contents.value
    assert "y: [b D]" in text
    assert "log scale" in text
