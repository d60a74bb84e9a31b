"""Activation curves on hover, in both capability presets: the formula, the picture, the range."""

from __future__ import annotations

import base64
import io
import re

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import markdown, open_document, position

PROGRAM = """\
fn act(x: [b D]) -> [b D] = x * sigmoid(1.702 * x)

fn scaled(x: [b D], k: float = 2.0) -> [b D] = x * k |> tanh

fn gate(p: [b n] Unit) -> [b n]:
    q = p * p
    return q

fn total(x: [b D]) -> [b] = sum(x, over=D)

fn use(h: [b D], g: [b n] Unit) -> [b D]:
    a = h |> act
    c = h |> scaled(k=3.0)
    d = leaky_relu(h, negative_slope=0.2)
    e = gelu(h)
    f = gate(g)
    return a + c + d + e
"""


async def _hover(client: LanguageClient, uri: str, needle: str, offset: int = 0) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, needle, offset),
        )
    )
    assert hover is not None
    return markdown(hover)


def _curve_png(text: str):
    from PIL import Image

    match = re.search(r"!\[curve of [^\]]*\]\(data:image/png;base64,([^|)]+)\|width=320\)", text)
    assert match, text[:300]
    return Image.open(io.BytesIO(base64.b64decode(match.group(1)))).convert("RGB")


def _plot(text: str) -> str:
    match = re.search(r"```text\n(.*?)\n```", text, re.S)
    assert match, text[:300]
    return match.group(1)


@pytest.mark.asyncio
async def test_a_users_activation_shows_its_formula_curve_and_range(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "curves.ss")
    text = await _hover(client, uri, "|> act", 4)
    assert "`act(x) = x · σ(1.702 · x)`" in text
    # x · σ(kx) falls to its minimum, about −0.278465 / k, before rising: not (−∞, ∞).
    assert "Range: [−0.16361, ∞)" in text
    if client.client_name.startswith("visual"):
        image = _curve_png(text)
        assert image.size == (640, 380)  # drawn at 2x
        colours = {colour for _, colour in image.getcolors(maxcolors=1 << 20)}
        # The server draws for a dark theme until the editor says otherwise.
        assert (79, 193, 255) in colours and (240, 163, 94) in colours  # curve, dashed slope
        assert image.getpixel((2, 2)) == (30, 30, 30)  # opaque background
    else:
        plot = _plot(text)
        assert "data:image" not in text
        assert re.search(r"[\u2801-\u28ff]", plot)  # Braille dots
        lines = plot.splitlines()
        assert lines[0].lstrip().startswith("4 ┤") and lines[8].split() == ["−4", "4"]
        assert "dashed: its derivative" in plot


@pytest.mark.asyncio
async def test_the_calls_numbers_are_used(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "curves_numbers.ss")
    text = await _hover(client, uri, "scaled(k=3.0)", 1)
    assert "`scaled(x) = tanh(x · 3)`" in text and "Range: [−1, 1]" in text
    text = await _hover(client, uri, "leaky_relu(h", 1)
    assert "`leaky_relu(x) = x if x ≥ 0, else 0.2 · x`" in text
    assert "Range: (−∞, ∞)" in text


@pytest.mark.asyncio
async def test_prelude_and_unit_inputs(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "curves_prelude.ss")
    text = await _hover(client, uri, "gelu(h", 1)
    assert "`gelu(x) = x · Φ(x)`" in text and "Range: [−0.17, ∞)" in text
    text = await _hover(client, uri, "gate(g", 1)
    assert "`gate(p) = p · p`" in text and "Range: [0, 1]" in text
    if not client.client_name.startswith("visual"):
        assert _plot(text).splitlines()[8].split() == ["0", "1"]


@pytest.mark.asyncio
async def test_a_reduction_has_no_curve(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "curves_none.ss")
    text = await _hover(client, uri, "fn total", 4)
    assert "Range:" not in text and "curve of" not in text and "┤" not in text


MORE = """\
extern fn smooth(x: Real) -> Real = "torch.nn.functional.softplus"
extern fn mish(x: Real) -> Real = "torch.nn.functional.mish"

fn pick(x: [b D], smooth_it: bool = true, k: float = 0.5) -> [b D]:
    if smooth_it:
        y = x |> tanh
    else:
        y = x |> relu
    return y * k

fn needs(x: [b D], k: float) -> [b D] = x * k

fn use(h: [b D], s: float) -> [b D]:
    a = pick(h, false, k=s)
    c = needs(h, 2.0)
    return smooth(a) + mish(c)
"""


async def _hover_more(client: LanguageClient, uri: str, needle: str, offset: int = 1) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(MORE, needle, offset),
        )
    )
    return markdown(hover) if hover is not None else ""


@pytest.mark.asyncio
async def test_externs_ifs_and_missing_numbers(client: LanguageClient):
    uri = await open_document(client, MORE, "curves_more.ss")
    assert list(client.diagnostics[uri]) == []
    text = await _hover_more(client, uri, "smooth(a)")
    assert "`smooth(x) = ln(1 + eˣ)`" in text and "Range: [0, ∞)" in text
    assert "Range:" not in await _hover_more(client, uri, "mish(c)")  # unknown Python math
    text = await _hover_more(client, uri, "pick(h")
    # A body with an if is shown as written; the call's false picks relu, s isn't a number.
    assert "`pick(x)`" in text and "    y = x |> tanh" in text
    assert "`k` isn't a number written in the source" in text and "Range: [0, ∞)" in text
    assert "Range: [−0.5, 0.5]" in (await _hover_more(client, uri, "fn pick", 4))
    assert "Range:" not in await _hover_more(client, uri, "fn needs", 4)  # k has no number
    assert "`needs(x) = x · 2`" in await _hover_more(client, uri, "needs(h")


NARROWED = """\
fn squash(x: [b D]) -> [b D] = sigmoid(x) * 2.0 - 1.0

fn fold(x: [b D]) -> [b D] Unit = abs(tanh(x))
"""


@pytest.mark.asyncio
async def test_ranges_are_narrowed_by_the_checker(client: LanguageClient):
    uri = await open_document(client, NARROWED, "curves_narrowed.ss")
    for needle, expected in (("fn squash", "Range: [−1, 1]"), ("fn fold", "Range: [0, 1]")):
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=position(NARROWED, needle, 4),
            )
        )
        assert expected in markdown(hover)


GATED = """\
fn swish(x: [b D]) -> [b D] = sigmoid(x) * x
fn mish(x: [b D]) -> [b D] = x * tanh(softplus(x))
fn positive(x: [b D] NonNeg) -> [b D] = x * sigmoid(x)

fn use(h: [b D], p: [b D] NonNeg) -> [b D]:
    return swish(h) + mish(h) + positive(p)
"""


@pytest.mark.asyncio
async def test_self_gated_activations_show_their_true_minimum(client: LanguageClient):
    uri = await open_document(client, GATED, "curves_gated.ss")

    async def hover(needle: str) -> str:
        found = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=position(GATED, needle, 1),
            )
        )
        return markdown(found) if found is not None else ""

    assert "Range: [−0.278465, ∞)" in await hover("swish(h")
    assert "Range: [−0.308843, ∞)" in await hover("mish(h")
    # On inputs that never reach the minimum, the range starts where they start.
    assert "Range: [0, ∞)" in await hover("positive(p")
