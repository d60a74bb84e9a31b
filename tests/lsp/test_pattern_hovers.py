"""Pattern hovers over the protocol: `->` and `|>` into a pattern operation draw the operands
and the result, as one image in the editor's theme or as text drawings."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from pytest_lsp import LanguageClient

from shapescript.check.checker import check_text
from shapescript_lsp.features.context import item_at
from shapescript_lsp.features.pattern_hover import arrow_pattern, pattern_picture
from shapescript_lsp.render.patterns import svg_pattern
from shapescript_lsp.render.shapes import svg_width
from shapescript_lsp.render.themes import PALETTES
from tests.lsp.test_features import open_document
from tests.lsp.test_hover_pictures import hex_colour, hover_text, images

SVG = "{http://www.w3.org/2000/svg}"
PROGRAM = """\
dim D = 48
dim H = 2
dim Dh = D / H

fn patchify(img: [b 3 16 16]) -> [b 16 48]:
    return img |> rearrange(b c (h p1) (w p2) -> b (h w) (p1 p2 c), p1=4, p2=4)

fn heads(x: [b n D]) -> [b n D]:
    y = x |> rearrange(b n (H Dh) -> b H n Dh)
    z = y |> rearrange(b H n Dh -> b n (H Dh))
    return z
"""
PATCHIFY_ARROW = "-> b (h w)"


def expected_svg(needle: str, theme: str) -> ET.Element:
    """The SVG the server draws for the `->` at `needle`, made here from the same program."""
    checked = check_text(PROGRAM)
    offset = PROGRAM.index(needle) + 1
    item = item_at(checked, offset)
    picture = pattern_picture(checked, item, *arrow_pattern(item, offset))[0]
    return ET.fromstring(svg_pattern(picture, theme))


def is_vscode(client: LanguageClient) -> bool:
    return client.client_name.startswith("visual")


@pytest.mark.asyncio
async def test_the_arrow_of_a_patchify_draws_the_patch_grid(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "patchify.ss")
    for theme in ("light", "dark"):
        client.protocol.notify("shapescript/setTheme", {"theme": theme})
        text = await hover_text(client, uri, PATCHIFY_ARROW, PROGRAM)
        assert "[b 3 16 16]  →  [b 16 48]" in text
        if not is_vscode(client):
            assert "data:image" not in text
            assert "│▒▒│  │  │  │ (h p1) = 4×4 = 16  →" in text
            assert "h = 4   axis 3, outer of (h p1)  →  axis 2, outer of (h w)" in text
            continue
        ((image, width),) = images(text)
        svg = expected_svg(PATCHIFY_ARROW, theme)
        assert width == svg_width(ET.tostring(svg, encoding="unicode"))
        assert image.width == 2 * width
        assert hex_colour(image.getpixel((1, 1))) == PALETTES[theme].background
        assert "![b c (h p1) (w p2) → b (h w) (p1 p2 c)]" in text
        # The drawing the image is made from: the patch grid and the shaded first patch.
        blocks = [e for e in svg.iter(SVG + "path") if e.get("class") == "block"]
        assert sum(block.get("d").count("M") for block in blocks) == 3 + 3 + 3 + 3
        first, _ = [e for e in svg.iter(SVG + "rect") if e.get("class") == "tracked"]
        x, y = float(first.get("x")) + 4, float(first.get("y")) + 4
        grid = next(e for e in svg.iter(SVG + "rect") if e.get("class") == "grid")
        gx, gy = float(grid.get("x")) + float(grid.get("width")) - 4, y
        shaded, plain = image.getpixel((int(2 * x), int(2 * y))), image.getpixel((2 * gx, 2 * gy))
        assert sum(abs(a - b) for a, b in zip(shaded, plain, strict=True)) > 60


@pytest.mark.asyncio
async def test_a_stage_into_rearrange_draws_heads_split_and_merged(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "heads.ss")
    split = await hover_text(client, uri, "|> rearrange(b n (H Dh)", PROGRAM)
    merged = await hover_text(client, uri, "|> rearrange(b H n Dh", PROGRAM)
    assert "[b n D]  →  [b H n Dh]" in split
    assert "[b H n Dh]  →" in merged
    if is_vscode(client):
        (first,), (second,) = images(split), images(merged)
        assert "![b n (H Dh) → b H n Dh]" in split and "![b H n Dh → b n (H Dh)]" in merged
        assert first[0].size == second[0].size
    else:
        assert "│▒▒▒▒▒▒▒│       │ n  →  │▒▒▒▒▒▒▒▒▒▒▒▒▒│ n" in split
        assert "stack of b × H (▒ in the first)" in split
        assert "H = 2    axis 2  →  axis 3, outer of (H Dh)" in merged


@pytest.mark.asyncio
async def test_pictures_off_draws_patterns_as_text(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "patterns-off.ss")
    client.protocol.notify("shapescript/setPictures", {"enabled": False})
    text = await hover_text(client, uri, PATCHIFY_ARROW, PROGRAM)
    assert "data:image" not in text
    assert "▒ shaded: h = 0, w = 0, before and after" in text


@pytest.mark.asyncio
async def test_an_axis_name_still_gets_its_own_hover(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "names.ss")
    text = await hover_text(client, uri, "p1) (w p2) ->", PROGRAM)
    assert text.startswith("```shapescript\naxis p1 = 4")
    assert "data:image" not in text and "▒" not in text
