"""Regularity in the editor, over the protocol: E3001 as you type, and a function's hover
says how smooth its result is in each real-valued parameter, with the operation that makes
it so."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import markdown, open_document, position

PROGRAM = """\
dim D = 4
dim C = 3

model Net:
    param w: [D C] = zeros

fn hinge(m: Net, x: [b D], k: int) -> [] = mean(x @ m.w |> relu)

fn pick(m: Net, x: [b D]) -> []:
    best = argmax(x @ m.w, over=C)
    return mean(best to f32)

fn smooth(x: [b C]) -> [b C] = softmax(x, over=C)
"""


async def hover_text(client: LanguageClient, uri: str, needle: str) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, needle, 3),
        )
    )
    assert hover is not None
    return markdown(hover)


@pytest.mark.asyncio
async def test_a_function_hover_gives_its_class_per_parameter(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "regularity.ss")
    hinge = await hover_text(client, uri, "fn hinge")
    assert (
        "Regularity: piecewise-smooth in `m` (`relu`, line 7), "
        "piecewise-smooth in `x` (`relu`, line 7)"
    ) in hinge
    assert "`k`" not in hinge.split("Regularity:")[1]
    pick = await hover_text(client, uri, "fn pick")
    assert "Regularity: discontinuous in `m` (`argmax`, line 10)" in pick
    smooth = await hover_text(client, uri, "fn smooth")
    assert "Regularity: smooth in `x`" in smooth


TRAINING = """\
dim D = 4
dim C = 3

model Net:
    param w: [D C] = zeros

fn scores(m: Net, x: [b D]) -> [b C] = x @ m.w |> relu

fn loss(m: Net, x: [b D]) -> [] = mean(scores(m, x))

fn step(m: Net, x: [b D]) -> Grad[Net]:
    l, g = value_and_grad(loss, m, x)
    return g
"""


@pytest.mark.asyncio
async def test_an_edit_in_a_callee_makes_and_clears_the_error_as_you_type(
    client: LanguageClient,
):
    uri = await open_document(client, TRAINING, "training.ss")
    assert list(client.diagnostics[uri]) == []
    rounded = TRAINING.replace("|> relu", "|> round")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=rounded)],
        )
    )
    for _ in range(500):
        if [str(d.code) for d in client.diagnostics.get(uri, [])] == ["E3001"]:
            break
        await asyncio.sleep(0.02)
    (diagnostic,) = client.diagnostics[uri]
    assert diagnostic.code == "E3001"
    assert diagnostic.range.start == position(rounded, "loss, m, x")
    assert "`round`" in diagnostic.message
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=TRAINING)],
        )
    )
    for _ in range(500):
        if not client.diagnostics.get(uri):
            break
        await asyncio.sleep(0.02)
    assert list(client.diagnostics[uri]) == []
