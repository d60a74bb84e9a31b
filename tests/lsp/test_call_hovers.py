"""Hovering a call is about that call: its arguments and result as the checker typed them
lead, then its picture, then the declaration as the library lays it out, then the docs;
hovering an element-wise pipe stage shows what it does to the values (issue 31, 2 and 4)."""

from __future__ import annotations

import sys
from xml.etree import ElementTree

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from shapescript.check.checker import check_text
from shapescript_lsp.render.shapes import svg_before_after, svg_drawing
from tests.lsp.test_features import markdown, open_document, position
from tests.lsp.test_hover_pictures import images

PROGRAM = """\
dim D = 64
dim C = 10

fn attend(x: [b n D], w: [D D]) -> [b n D]:
    return x @ w

fn classify(z: [b C], x: [b n D], w: [D D], g: [D]) -> [b C] Prob over C:
    h = layer_norm(x, over=D, weight=g)
    y = attend(x, w)
    p = x @ w |> softmax(over=D)
    u = x |> gelu
    s = sigmoid(x)
    v = s |> gelu
    return softmax(z, over=C)
"""


async def _hover(client: LanguageClient, uri: str, needle: str, at: int = 0) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, needle, at),
        )
    )
    assert hover is not None, f"no hover at {needle!r}"
    return markdown(hover)


def _first_block(text: str) -> str:
    """The hover's first fenced block, without its fences."""
    return text.split("```shapescript\n", 1)[1].split("\n```", 1)[0]


@pytest.mark.asyncio
async def test_a_call_hover_leads_with_this_calls_types(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "calls.ss")
    text = await _hover(client, uri, "softmax(z", 2)
    assert _first_block(text) == "softmax(z: [b C], over=C) -> [b C] Prob over C"
    assert "scores" not in text and "[b H n m]" not in text, "no fixed example"
    assert "fn softmax(x: [... n] Logit over n, over: Axis[n])" in text
    assert text.index("over=C) -> [b C]") < text.index("fn softmax(") < text.index("logits")

    text = await _hover(client, uri, "layer_norm(", 2)
    assert _first_block(text) == "layer_norm(x: [b n D], over=D, weight=g: [D]) -> [b n D]"
    assert "extern fn layer_norm(\n    x: [... D],\n    over: Axis[D],\n" in text
    assert "    weight: [D] = none,\n    bias: [D] = none,\n    eps = 1e-5,\n" in text
    assert text.index("fn layer_norm(") < text.index("Layer normalization")


@pytest.mark.asyncio
async def test_calls_of_user_functions_and_piped_calls_show_their_types(
    client: LanguageClient,
):
    uri = await open_document(client, PROGRAM, "more_calls.ss")
    text = await _hover(client, uri, "attend(x, w)", 2)
    assert _first_block(text) == "attend(x: [b n D], w: [D D]) -> [b n D]"
    assert "fn attend(x: [b n D], w: [D D]) -> [b n D]" in text
    text = await _hover(client, uri, "softmax(over=D)", 2)
    assert _first_block(text) == "softmax(x @ w: [b n D], over=D) -> [b n D] Prob over D"


@pytest.mark.asyncio
async def test_an_elementwise_stage_shows_its_values_not_two_equal_shapes(
    client: LanguageClient,
):
    uri = await open_document(client, PROGRAM, "stages.ss")
    text = await _hover(client, uri, "|> gelu")
    assert "Values: (−∞, ∞) → [−0.17, ∞)" in text
    assert "gelu(x) = x · Φ(x)" in text
    assert "log scale" not in text, "no shape drawing when the shape stays"
    if client.client_name.startswith("visual"):
        ((curve, width),) = images(text)
        assert curve.width == 2 * width
    else:
        assert "data:image" not in text and "⠀" in text
    bounded = await _hover(client, uri, "s |> gelu", 2)
    assert "Values: [0, 1] → " in bounded
    if client.client_name.startswith("visual"):
        assert "The input's range [0, 1] is shaded." in bounded
        ((shaded, _),) = images(bounded)
        assert shaded.size == curve.size and shaded.tobytes() != curve.tobytes()
    else:
        assert "The input's range [0, 1] is underlined ━." in bounded
        assert "\n" + " " * 27 + "━━━━━\n" in bounded, "under x from 0 to 1 of −4 … 4"


@pytest.mark.asyncio
async def test_a_stage_that_keeps_the_shape_draws_no_shapes(client: LanguageClient):
    program = (
        "dim D = 8\n\nfn f(x: [b n D], keep: [b n D] Mask) -> [b n D]:\n"
        "    return x |> masked_fill(!keep, 0.0) |> to f16\n"
    )
    uri = await open_document(client, program, "same_shape.ss")
    for needle, header in (
        ("|> masked_fill", "[b n D]  →  [b n D]"),
        ("|> to", "[b n D]  →  [b n D] f16"),
    ):
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=position(program, needle),
            )
        )
        text = markdown(hover)
        assert _first_block(text) == header
        assert "Values: (−∞, ∞) → (−∞, ∞)" in text
        assert "log scale" not in text and "data:image" not in text and "┌" not in text


@pytest.mark.asyncio
async def test_a_stage_that_changes_the_values_kind_draws_the_arrow_between(
    client: LanguageClient,
):
    uri = await open_document(client, PROGRAM, "arrow.ss")
    text = await _hover(client, uri, "|> softmax")
    assert "[b n D]  →  [b n D] Prob over D" in text
    if client.client_name.startswith("visual"):
        ((picture, width),) = images(text)
        assert picture.width == 2 * width
    else:
        drawing = text.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
        arrows = [line for line in drawing if " → " in line]
        assert len(arrows) == 1 and arrows[0].count("│") == 4, drawing
        middle = drawing.index(arrows[0])
        assert 0 < middle < len(drawing) - 1


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_call_hover_shows_this_calls_picture_after_its_types(client: LanguageClient):
    pytest.importorskip("torch")
    uri = await open_document(client, PROGRAM, "call_picture.ss")
    client.protocol.notify("shapescript/setPython", {"python": sys.executable})
    client.protocol.notify("shapescript/setPictures", {"enabled": True})
    for _ in range(10):
        text = await _hover(client, uri, "softmax(z", 2)
        if "still being computed" not in text:
            break
    assert _first_block(text) == "softmax(z: [b C], over=C) -> [b C] Prob over C"
    declaration = text.index("fn softmax(")
    if client.client_name.startswith("visual"):
        assert 0 < text.index("![") < declaration
        assert len(images(text)) == 1
    else:
        drawn = text.index("```text\n")
        assert drawn < declaration
        assert "Σ 1" in text[drawn:declaration]


def test_the_arrow_sits_between_the_two_drawings_at_half_height():
    checked = check_text("dim D = 64\n\nfn f(x: [b n D]) -> [b n D] = x\n")
    shape = checked.type_at(checked.source.text.index("x: ["))
    before = svg_drawing(shape, checked.dim_values, "light")
    after = svg_drawing(shape, checked.dim_values, "light", over="D")
    root = ElementTree.fromstring(svg_before_after(before, after, "light"))
    height = float(root.get("height"))
    inner = [child for child in root if child.tag.endswith("svg")]
    left = float(inner[0].get("width"))
    right = float(inner[1].get("x"))
    (arrow,) = [child for child in root if child.get("class") == "arrow"]
    start, end = arrow.get("d").split(" H")
    x, y = (float(value) for value in start[1:].split(","))
    assert left < x < float(end) < right, "between the drawings"
    assert y == pytest.approx(height / 2, abs=0.1), "at half the picture's height"
