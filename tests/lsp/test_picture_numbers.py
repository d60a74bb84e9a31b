"""Numbers in pictures take the digits they need: significant digits, or one power of ten
written once for a whole grid, never a row of 0.00 that hides what the colours show."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from shapescript_lsp.pictures import grids
from shapescript_lsp.render.numbers import grid_labels, significant
from tests.lsp.test_features import markdown, open_document, position

GPT = (Path(__file__).resolve().parents[2] / "examples" / "gpt.ss").read_text()


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (0.0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (-3.0, "−3"),
        (0.00412345, "0.00412"),
        (-0.00412345, "−0.00412"),
        (3.87, "3.87"),
        (3.8, "3.8"),
        (123.456, "123"),
        (12345.6, "12300"),
        (4.1e-7, "4.1×10⁻⁷"),
        (-2.5e-5, "−2.5×10⁻⁵"),
        (6.02e23, "6.02×10²³"),
        (9.999, "10"),
        (math.inf, "∞"),
        (-math.inf, "−∞"),
        (math.nan, "NaN"),
    ],
)
def test_one_number_takes_three_significant_digits(value: float, written: str):
    assert significant(value) == written


def test_tiny_values_share_one_power_of_ten_written_once():
    labels = grid_labels([-0.00412, 0.00387, 0.0001, -0.0])
    assert labels.factor == "×10⁻³"
    assert [labels.cell(v) for v in (-0.00412, 0.00387, 0.0001)] == ["−4.12", "3.87", "0.10"]
    assert labels.range(-0.00412, 0.00387) == "−4.12 … 3.87, all ×10⁻³"


def test_huge_values_share_one_power_of_ten():
    labels = grid_labels([125000.0, -3.5e5])
    assert labels.factor == "×10³"
    assert labels.cell(-3.5e5) == "−350"
    assert labels.range(-3.5e5, 125000.0) == "−350 … 125, all ×10³"


def test_ordinary_values_need_no_factor():
    labels = grid_labels([-1.25, 0.5, 3.875])
    assert labels.factor == ""
    assert labels.range(-1.25, 3.875) == "−1.25 … 3.88"
    assert grid_labels([0.25, -0.5]).range(-0.5, 0.25) == "−0.500 … 0.250"
    assert grid_labels([12.5, 40.26]).cell(40.26) == "40.3"


def test_whole_numbers_stay_whole_and_zeros_stay_zero():
    assert grid_labels([0.0, 3.0, 255.0]).range(0.0, 255.0) == "0 … 255"
    assert grid_labels([0.0, 0.0]).range(0.0, 0.0) == "0 … 0"


def test_equal_ends_and_values_that_arent_finite():
    labels = grid_labels([0.00237, 0.00237, math.nan, math.inf, -math.inf])
    assert labels.range(0.00237, 0.00237) == "2.37 … 2.37, all ×10⁻³"
    assert labels.cell(math.nan) == "NaN" and labels.cell(-math.inf) == "−∞"
    assert grid_labels([math.nan, math.inf]).range(math.nan, math.inf) == "NaN … ∞"


def test_a_grid_of_small_values_is_labelled_with_their_digits():
    drawn = grids.grid("out", [[-0.00412, 0.00387], [0.001, -0.002]])
    assert grids.range_text(drawn) == "−4.12 … 3.87, all ×10⁻³"
    svg = grids.svg([drawn], 0)
    assert ">−4.12<" in svg and ">3.87<" in svg and ">1.00<" in svg
    assert "0.00<" not in svg


@pytest.mark.slow
@pytest.mark.parametrize("name", ["attention", "mlp"])
async def test_gpt_pictures_are_labelled_with_numbers_that_arent_all_zero(
    client: LanguageClient, name: str
):
    pytest.importorskip("torch")
    uri = await open_document(client, GPT, f"gpt_numbers_{name}.ss")
    client.protocol.notify("shapescript/setPython", {"python": sys.executable})
    # The text drawing shows its labels in both clients; VS Code's image draws the same.
    client.protocol.notify("shapescript/setPictures", {"enabled": True, "images": False})
    params = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=position(GPT, f"fn {name}", 4),
    )
    for _ in range(20):
        shown = markdown(await client.text_document_hover_async(params))
        if "still being computed" not in shown:
            break
    drawing = shown.rsplit("```text\n", 1)[1].split("```", 1)[0]
    captions = [block.splitlines()[0] for block in drawing.split("\n\n") if block != "↓"]
    result = captions[-1]
    assert result.startswith(f"{name}(…): [b n D]"), result
    ranges = [caption.rsplit("   (", 1)[1].rstrip(")") for caption in captions]
    for written in ranges:
        low, high = written.split(", all ")[0].split(" … ")
        assert (low, high) != ("0", "0") and "0.00" not in (low, high) and low != "−0.00", written
    assert any(", all ×10" in written for written in ranges), ranges
