"""Hovering a function's name shows what it does, run by the torch worker on an example.

Nothing runs unless pictures are allowed: the `python` given here is a script whose
running creates a file.
"""

from __future__ import annotations

import base64
import struct
import sys

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import markdown, open_document, position

PROGRAM = """\
dim D = 768
dim C = 10

fn classify(x: [n D], w: [D C]) -> [n C] Prob over C:
    return x @ w |> softmax(over=C)
"""


async def _hover(client: LanguageClient, uri: str, text: str, needle: str) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, needle, 0 if needle[0] in "|-" else len(needle) - 2),
        )
    )
    return markdown(hover)


def _drawing(text: str) -> str:
    """The function picture's text drawing: the hover's last text block."""
    return text.rsplit("```text\n", 1)[1].split("```", 1)[0]


async def test_nothing_runs_unless_pictures_are_allowed(client: LanguageClient, tmp_path):
    marker = tmp_path / "ran"
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")
    python.chmod(0o755)
    uri = await open_document(client, PROGRAM, "pictures_off.ss")
    client.protocol.notify("shapescript/setPython", {"python": str(python)})
    client.protocol.notify("shapescript/setPictures", {"enabled": False})
    assert "fn classify" in await _hover(client, uri, PROGRAM, "classify")
    assert not marker.exists()
    client.protocol.notify("shapescript/setPictures", {"enabled": True})
    client.protocol.notify("shapescript/setPython", {"python": None})
    assert "fn classify" in await _hover(client, uri, PROGRAM, "classify")
    assert not marker.exists()
    client.protocol.notify("shapescript/setPython", {"python": str(python)})
    text = await _hover(client, uri, PROGRAM, "classify")
    assert "fn classify" in text and "data:image" not in text
    assert marker.exists(), "with pictures allowed, the worker is started"


async def _picture(client: LanguageClient, text: str, name: str, needle: str) -> str:
    pytest.importorskip("torch")
    uri = await open_document(client, text, name)
    client.protocol.notify("shapescript/setPython", {"python": sys.executable})
    client.protocol.notify("shapescript/setPictures", {"enabled": True})
    for _ in range(10):
        shown = await _hover(client, uri, text, needle)
        if "still being computed" not in shown:
            return shown
    raise AssertionError("the picture never came")


@pytest.mark.slow
async def test_a_function_picture_shows_its_input_and_its_prob_rows_with_their_sums(
    client: LanguageClient,
):
    text = await _picture(client, PROGRAM, "classify.ss", "classify")
    if client.client_name.startswith("visual"):
        alt, rest = text.split("](data:image/png;base64,", 1)
        assert alt.endswith("x: [n D] → classify(…): [n C] Prob over C   (weights: w)")
        png = base64.b64decode(rest.split("|", 1)[0])
        width, height = struct.unpack(">II", png[16:24])
        assert width > 2 * height > 0
        assert len(text) < 100_000
        return
    drawing = _drawing(text)
    blocks = drawing.split("\n\n")
    assert blocks[0].startswith("x: [n D]   (−") and len(blocks[0].splitlines()) == 4
    assert blocks[1] == "↓"
    result = blocks[2].splitlines()
    assert result[0] == "classify(…): [n C] Prob over C   (weights: w)   (0 … 1)"
    assert len(result) == 4 and all(line.endswith("   Σ 1") for line in result[1:])
    assert all(len(line.split("   ")[0].split()) == 6 for line in result[1:])


MASKED = """\
fn hide(s: [n m], keep: [n m] Mask) -> [n m]:
    return masked_fill(s, !keep, -inf)
"""


@pytest.mark.slow
async def test_minus_infinity_where_the_mask_was_is_dashed(client: LanguageClient):
    text = await _picture(client, MASKED, "masked.ss", "hide")
    if client.client_name.startswith("visual"):
        assert "hide(…): [n m]" in text and "data:image/png" in text
        return
    drawing = _drawing(text)
    result = drawing.split("\n\n")[-1].splitlines()
    assert result[0].startswith("hide(…): [n m]")
    assert any("╌" in line for line in result[1:])


DEPENDS = """\
dim D = 768

fn mlp(x: [n D], w: [D D]) -> [n D]:
    return relu(x @ w)

fn running(x: [n D]) -> [n D]:
    return cumsum(x, over=n)
"""


def _rows(text: str, block: int) -> list[list[str]]:
    drawing = _drawing(text)
    return [line.split() for line in drawing.split("\n\n")[block].splitlines()[1:]]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "changes"),
    [
        ("mlp", [[], list(range(6)), []]),
        ("running", [[], [0], [0]]),
    ],
)
async def test_what_depends_on_what_is_outlined(client: LanguageClient, name, changes):
    text = await _picture(client, DEPENDS, f"depends_{name}.ss", f"fn {name}")
    if client.client_name.startswith("visual"):
        assert f"{name}(…): [n D]" in text and "data:image/png" in text
        return
    changed_input = [[c for c, cell in enumerate(row) if cell == "●"] for row in _rows(text, 0)]
    assert changed_input == [[], [0], []]
    result = [[c for c, cell in enumerate(row) if cell == "●"] for row in _rows(text, 2)]
    assert result == changes


CALLS = """\
dim C = 10

fn f(z: [n C], s: [n m], keep: [n m] Mask) -> [n C] Prob over C:
    hidden = s |> masked_fill(!keep, -inf)
    q = einsum(z, z: n C, k C -> n k)
    return z |> softmax(over=C)
"""


@pytest.mark.slow
async def test_a_stage_into_softmax_shows_its_rows_summing_to_one(client: LanguageClient):
    text = await _picture(client, CALLS, "stage_softmax.ss", "|> softmax")
    assert "[n C]  →  [n C] Prob over C" in text
    if client.client_name.startswith("visual"):
        assert "stage_input: [n C] → |> softmax(over=C): [n C] Prob over C" in text
        return
    drawing = _drawing(text)
    result = drawing.split("\n\n")[-1].splitlines()
    assert result[0] == "|> softmax(over=C): [n C] Prob over C   (0 … 1)"
    assert all(line.endswith("   Σ 1") for line in result[1:])


@pytest.mark.slow
async def test_the_arrow_of_an_einsum_shows_what_depends_on_what(client: LanguageClient):
    text = await _picture(client, CALLS, "einsum_arrow.ss", "-> n k")
    assert "[n C]  →  [n k]" in text
    if client.client_name.startswith("visual"):
        assert "einsum(z, z: n C, k C -> n k): [n k]" in text and "data:image/png" in text
        return
    result = [[c for c, cell in enumerate(row) if cell == "●"] for row in _rows(text, 2)]
    assert result == [[1], [0, 1, 2], [1]]


CONVERSION = """\
fn scores(x: [n m] u8, keep: [n m] Mask) -> [n m]:
    u = x to Unit
    a = keep to Additive
    return u + a
"""


def _range(caption: str) -> tuple[float, float]:
    low, high = caption.rsplit("(", 1)[1].rstrip(")").split(" … ")
    return float(low.replace("−", "-")), float(high.replace("−", "-"))


@pytest.mark.slow
async def test_hovering_to_shows_the_bytes_before_and_the_unit_values_after(
    client: LanguageClient,
):
    text = await _picture(client, CONVERSION, "to_unit.ss", "u = x to")
    assert "[n m] u8  →  [n m] Unit" in text
    if client.client_name.startswith("visual"):
        assert "x: [n m] u8 → x to Unit: [n m] Unit" in text and "data:image/png" in text
        return
    before, arrow, after = _drawing(text).split("\n\n")
    assert arrow == "↓"
    assert before.startswith("x: [n m] u8") and after.startswith("x to Unit: [n m] Unit")
    low, high = _range(before.splitlines()[0])
    assert 1 <= high <= 255 and low == int(low)
    unit_low, unit_high = _range(after.splitlines()[0])
    assert abs(unit_low - low / 255) < 0.01 and abs(unit_high - high / 255) < 0.01
    assert before.splitlines()[1:] == after.splitlines()[1:], "x / 255 keeps the shading"


@pytest.mark.slow
async def test_hovering_to_additive_dashes_where_the_mask_was_false(client: LanguageClient):
    text = await _picture(client, CONVERSION, "to_additive.ss", "a = keep to")
    if client.client_name.startswith("visual"):
        assert "keep to Additive: [n m] Additive" in text and "data:image/png" in text
        return
    before, _, after = _drawing(text).split("\n\n")
    mask = [line.split() for line in before.splitlines()[1:]]
    added = [line.split() for line in after.splitlines()[1:]]
    assert mask and all(len(row) == 5 for row in mask)
    assert [[cell == "╌" for cell in row] for row in added] == [
        [cell == "·" for cell in row] for row in mask
    ]


MODEL = """\
dim D = 768
dim C = 10

model Mlp:
    param w1: [D D] = normal(std=0.02)
    param b1: [D] = zeros
    param w2: [D C] = uniform(-0.1, 0.1)

fn forward(m: Mlp, x: [n D]) -> [n C]:
    h = relu(x @ m.w1 + m.b1)
    return h @ m.w2

fn dropped(m: Mlp, x: [n D], mode: Mode) -> [n C] = forward(m, x) |> dropout(0.5, mode)
"""


@pytest.mark.slow
async def test_a_function_that_takes_a_model_runs_with_init_seed_0_and_changes_only_its_row(
    client: LanguageClient,
):
    text = await _picture(client, MODEL, "model_forward.ss", "fn forward")
    if client.client_name.startswith("visual"):
        assert "x: [n D] → forward(…): [n C]   (weights: m)" in text and "data:image/png" in text
        return
    caption = _drawing(text).split("\n\n")[2].splitlines()[0]
    assert caption.startswith("forward(…): [n C]   (weights: m)")
    result = [[c for c, cell in enumerate(row) if cell == "●"] for row in _rows(text, 2)]
    assert result == [[], list(range(6)), []]


@pytest.mark.slow
async def test_a_function_that_takes_a_mode_runs_with_eval(client: LanguageClient):
    forward = await _picture(client, MODEL, "model_mode.ss", "fn forward")
    dropped = await _picture(client, MODEL, "model_mode.ss", "fn dropped")
    if client.client_name.startswith("visual"):
        assert "dropped(…): [n C]   (weights: m)" in dropped and "data:image/png" in dropped
        return
    # Eval's dropout keeps every value: the same picture as forward's.
    assert _rows(dropped, 2) == _rows(forward, 2)
    assert _drawing(dropped).split("\n\n")[2].splitlines()[0].startswith("dropped(…): [n C]")
