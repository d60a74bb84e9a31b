"""Hover pictures over the protocol: drawn in the editor's theme at 2×, or as text, or off."""

from __future__ import annotations

import base64
import io
import re

import pytest
import pytest_lsp
from lsprotocol import types
from PIL import Image
from pytest_lsp import ClientServerConfig, LanguageClient

from shapescript_lsp.render.themes import PALETTES
from tests.lsp.conftest import SERVER, _initialize_params, accept_registrations
from tests.lsp.test_features import markdown, open_document, position

PROGRAM = """\
dim D = 8
dim H = 2
dim Dh = D / H

fn heads(x: [b n (H Dh)]) -> [b n (H Dh)]:
    y = x * 2.0
    s = y
        |> softmax(over=n)
    return s
"""
#: A Markdown image; its alt text may hold balanced brackets (`z: [b C] → …`).
IMAGE = re.compile(
    r"!\[(?:\\.|\[[^\]]*\]|[^\]\\])*\]\(data:image/png;base64,([A-Za-z0-9+/=]+)\|width=(\d+)\)"
)


async def hover_text(client: LanguageClient, uri: str, needle: str, text: str = PROGRAM) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=position(text, needle)
        )
    )
    return markdown(hover)


def images(text: str) -> list[tuple[Image.Image, int]]:
    return [
        (Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB"), int(width))
        for data, width in IMAGE.findall(text)
    ]


def hex_colour(pixel: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{channel:02x}" for channel in pixel)


@pytest.mark.asyncio
async def test_a_value_is_drawn_in_the_theme_or_as_text(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "pictures.ss")
    for theme in ("light", "dark", "highContrast"):
        client.protocol.notify("shapescript/setTheme", {"theme": theme})
        text = await hover_text(client, uri, "y = ")
        assert "y: [b n (H Dh)]" in text
        if client.client_name.startswith("visual"):
            ((image, width),) = images(text)
            assert image.width == 2 * width
            assert hex_colour(image.getpixel((1, 1))) == PALETTES[theme].background
        else:
            assert "data:image" not in text
            assert "(H Dh): H = 2 blocks of Dh = 4" in text and "stack of b grids" in text


@pytest.mark.asyncio
async def test_a_stage_marks_its_over_axis(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "stage.ss")
    text = await hover_text(client, uri, "|> softmax")
    assert "[b n (H Dh)]  →  [b n (H Dh)] Prob over n" in text
    if client.client_name.startswith("visual"):
        # One picture: before, the arrow, after (two images wrap apart in a narrow hover).
        ((picture, width),) = images(text)
        assert picture.width == 2 * width
    else:
        assert text.count("n ◀ over") == 2
        assert text.count("values: Prob over n") == 1


@pytest.mark.asyncio
async def test_pictures_off_keeps_the_text(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "off.ss")
    client.protocol.notify("shapescript/setPictures", {"enabled": False})
    text = await hover_text(client, uri, "y = ")
    assert "y: [b n (H Dh)]" in text and "data:image" not in text
    client.protocol.notify("shapescript/setPictures", {"enabled": False, "images": True})
    text = await hover_text(client, uri, "y = ")
    assert ("data:image" in text) == client.client_name.startswith("visual")


@pytest.mark.asyncio
async def test_huge_shapes_stay_under_the_hover_limit(client: LanguageClient):
    axes = " ".join(f"a{i}" for i in range(200))
    program = (
        "dim Big = 1000000000000\n"
        f"fn g(x: [{axes} Big 16gh]) -> [{axes} Big 16gh]:\n"
        "    y = x\n"
        "    return y\n        |> softmax(over=Big)\n"
    )
    uri = await open_document(client, program, "huge.ss")
    for needle in ("y = ", "|> softmax"):
        text = await hover_text(client, uri, needle, program)
        assert len(text) < 100_000
        assert "Big = 1000000000000" in text or images(text)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER),
    params=[{"theme": "light"}, {"pictures": False}, {"pictures": False, "hoverImages": True}],
)
async def optioned_client(request, lsp_client: LanguageClient, tmp_path_factory):
    """VS Code's capabilities, with initialization options for pictures added."""
    params = _initialize_params("visual-studio-code", tmp_path_factory.mktemp("lsp"))
    params.initialization_options.update(request.param)
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(params)
    lsp_client.options = request.param
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_initialization_options_choose_the_theme_and_turn_images_off(
    optioned_client: LanguageClient,
):
    uri = await open_document(optioned_client, PROGRAM, "options.ss")
    text = await hover_text(optioned_client, uri, "y = ")
    assert "y: [b n (H Dh)]" in text
    options = optioned_client.options
    found = images(text)
    if options.get("hoverImages", options.get("pictures", True)):
        ((image, _),) = found
        theme = options.get("theme", "dark")
        assert hex_colour(image.getpixel((1, 1))) == PALETTES[theme].background
    else:
        assert not found and "(H Dh): H = 2 blocks of Dh = 4" in text


async def test_an_images_alt_text_keeps_the_types_brackets(client: LanguageClient):
    program = "dim D = 4\n\nfn pos(x: [b D]) -> [b D]:\n    y = relu(x) + 1.0\n    return y\n"
    uri = await open_document(client, program, "alt.ss")
    text = await hover_text(client, uri, "y = ", program)
    if client.client_name.startswith("visual"):
        alt = text.split("![", 1)[1].split("](data:image/png", 1)[0]
        assert alt.startswith("\\[b D\\] \\[1, inf)"), alt
        assert alt.count("\\[") == 2 and alt.count("\\]") == 1, alt
    else:
        assert "data:image" not in text
