"""Math in any comment shows when hovered: the typeset image (set on the text's baseline)
and its text form in VS Code, the text form in Neovim, never a stray Markdown escape."""

from __future__ import annotations

import base64
import re

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from shapescript_lsp.render.math import math_svg, render_doc
from tests.lsp.test_features import markdown, open_document, position

PROGRAM = """\
dim D = 4

# Scores are scaled by $\\frac{1}{\\sqrt{D}}$ so that $x > 0$ stays small.
## Keeps $y \\geq 0$ where $x > 0$.
fn keep(x: [n D]) -> [n D] = relu(x)
"""

#: Where an image's attributes are written in a hover's HTML.
IMAGE = re.compile(r'<img src="data:image/png;base64,([^"]+)"([^>]*)>')


async def _hover(client: LanguageClient, uri: str, needle: str, shift: int) -> types.Hover | None:
    return await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, needle, shift),
        )
    )


def _images(text: str) -> list[tuple[bytes, str]]:
    """Each image of the hover: its PNG and its attributes."""
    return [(base64.b64decode(png), attributes) for png, attributes in IMAGE.findall(text)]


@pytest.mark.asyncio
async def test_hovering_math_in_a_comment_shows_it(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "comment_math.ss")
    hover = await _hover(client, uri, "\\frac", 3)
    assert hover is not None, "no hover on math in a comment"
    assert hover.range == types.Range(
        start=position(PROGRAM, "$\\frac"), end=position(PROGRAM, "$ so that", 1)
    )
    text = markdown(hover)
    assert "1/√D" in text and "\\frac" not in text
    if client.client_name.startswith("visual"):
        ((png, attributes),) = _images(text)
        assert png.startswith(b"\x89PNG") and 'alt="1/√D"' in attributes
    else:
        assert "data:image" not in text and "<img" not in text
    doc = markdown(await _hover(client, uri, "y \\geq", 1))
    assert "y ≥ 0" in doc and "\\geq" not in doc


@pytest.mark.asyncio
async def test_the_text_form_has_no_stray_escapes(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "comment_math_text.ss")
    inline = markdown(await _hover(client, uri, "$x > 0$ stays", 2))
    assert "x > 0" in inline and "\\>" not in inline
    declared = markdown(await _hover(client, uri, "fn keep", 4))
    assert "\\>" not in declared and "\\geq" not in declared
    if not client.client_name.startswith("visual"):
        assert "Keeps y ≥ 0 where x > 0." in declared


def test_an_image_of_math_is_centred_on_its_baseline():
    """The SVG's baseline (y = 0) is its middle, and the image is aligned by its middle."""
    for source in (r"\frac{1}{\sqrt{D}}", "x^2", "y_j"):
        assert math_svg(source) == math_svg(source, centred=False)
        svg = math_svg(source, centred=True)
        _, top, _, height = (float(n) for n in re.search(r'viewBox="([^"]+)"', svg)[1].split())
        assert abs(top + height / 2) < 1e-6, (source, top, height)
        assert f'height="{height:g}"' in svg or f'height="{round(height, 3)}"' in svg
    shown = render_doc("Scale $\\frac{1}{\\sqrt{D}}$ here.", images=True, html=True)
    ((png, attributes),) = _images(shown)
    assert png.startswith(b"\x89PNG") and 'align="middle"' in attributes
    assert shown.startswith("Scale <img ") and shown.endswith("> here.")
    # A Markdown image (signature help, completion: no HTML there) sits on the baseline by
    # its bottom, so it isn't grown.
    plain = render_doc("Scale $\\frac{1}{\\sqrt{D}}$ here.", images=True)
    assert plain.startswith("Scale ![1/√D](data:image/png;base64,") and "<img" not in plain


@pytest.mark.asyncio
async def test_completion_documentation_keeps_markdown_images(client: LanguageClient):
    """VS Code renders HTML in hovers only (the extension allows it there), so the
    documentation of a completion keeps its math as Markdown images."""
    await open_document(client, PROGRAM, "comment_math_completion.ss")
    item = types.CompletionItem(label="keep", data={"name": "keep", "kind": "fn"})
    resolved = await client.completion_item_resolve_async(item)
    documentation = resolved.documentation.value
    assert "<img" not in documentation and "x > 0" in documentation.replace("\\>", ">")
    if client.client_name.startswith("visual"):
        assert "![y ≥ 0](data:image/png;base64," in documentation
    else:
        assert "Keeps y ≥ 0 where x > 0." in documentation
