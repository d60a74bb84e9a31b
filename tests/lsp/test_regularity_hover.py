"""A function's hover says how smooth its result is in each real-valued parameter, with the
operation that makes it so, over the protocol."""

from __future__ import annotations

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
