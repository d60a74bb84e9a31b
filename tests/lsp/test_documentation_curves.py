"""Curves in completion documentation and signature help, in both capability presets:
the formula with the defaults, the picture (an image or a Braille plot) and the range."""

from __future__ import annotations

import re

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_curve_hovers import _curve_png, _plot
from tests.lsp.test_features import open_document, position

PROGRAM = """\
## A swish whose slope is $\\beta$.
fn swish(x: Real, beta = 1.5) -> Real = x * sigmoid(beta * x)

fn total(x: [b D]) -> [b] = sum(x, over=D)

fn use(h: [b D]) -> [b]:
    return total(swish(h, 2.0))
"""


def _shows_a_curve(client: LanguageClient, text: str, formula: str, range_: str) -> None:
    assert f"`{formula}`" in text
    assert f"Range: {range_}" in text
    if client.client_name.startswith("visual"):
        image = _curve_png(text)
        assert image.size == (640, 380)
        colours = {colour for _, colour in image.getcolors(maxcolors=1 << 20)}
        assert (79, 193, 255) in colours and (240, 163, 94) in colours  # curve, dashed slope
    else:
        assert "data:image" not in text
        assert re.search(r"[\u2801-\u28ff]", _plot(text))  # Braille dots


async def _resolved(client: LanguageClient, name: str, kind: str) -> str:
    item = types.CompletionItem(label=name, data={"name": name, "kind": kind})
    resolved = await client.completion_item_resolve_async(item)
    assert isinstance(resolved.documentation, types.MarkupContent)
    return resolved.documentation.value


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("name", "kind", "formula", "range_"),
    [
        ("relu", "builtin", "relu(x) = max(x, 0)", "[0, ∞)"),
        ("gelu", "prelude", "gelu(x) = x · Φ(x)", "[−0.17, ∞)"),
        ("swish", "fn", "swish(x) = x · σ(1.5 · x)", "[−0.185643, ∞)"),
    ],
    ids=["builtin", "prelude", "users"],
)
async def test_completion_documentation_shows_the_curve(
    client: LanguageClient, name, kind, formula, range_
):
    await open_document(client, PROGRAM, f"completion_curve_{name}.ss")
    text = await _resolved(client, name, kind)
    _shows_a_curve(client, text, formula, range_)


@pytest.mark.asyncio
async def test_completion_documentation_of_a_function_without_a_curve_has_none(
    client: LanguageClient,
):
    await open_document(client, PROGRAM, "completion_no_curve.ss")
    for name, kind in (("total", "fn"), ("softmax", "builtin")):
        text = await _resolved(client, name, kind)
        assert "Range:" not in text and "curve of" not in text and "┤" not in text


@pytest.mark.asyncio
async def test_signature_help_shows_the_curve_and_the_docs_math(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "signature_curve.ss")
    help_ = await client.text_document_signature_help_async(
        types.SignatureHelpParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "h, 2.0"),
        )
    )
    (signature,) = help_.signatures
    assert signature.label.startswith("fn swish(")
    text = signature.documentation.value
    assert "$\\beta$" not in text and "\\beta" not in text
    if not client.client_name.startswith("visual"):
        assert "A swish whose slope is β." in text
    _shows_a_curve(client, text, "swish(x) = x · σ(1.5 · x)", "[−0.185643, ∞)")


@pytest.mark.asyncio
async def test_completion_documentation_is_the_hovers_markdown(client: LanguageClient):
    await open_document(client, PROGRAM, "completion_hover_text.ss")
    text = await _resolved(client, "swish", "fn")
    assert text.startswith("```shapescript\nfn swish(x: Real, beta = 1.5) -> Real\n```")
    total = await _resolved(client, "total", "fn")
    assert total == "```shapescript\nfn total(x: [b D]) -> [b]\n```\n\nRegularity: smooth in `x`"
