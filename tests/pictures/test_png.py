"""Function pictures as PNGs: sharp when small, and always within VS Code's hover limit."""

from __future__ import annotations

import base64
import random
import struct

import pytest

from shapescript_lsp.features.function_pictures import markdown
from shapescript_lsp.pictures import grids

pytest.importorskip("cairosvg")


def _grids(count: int) -> list[grids.Grid]:
    rng = random.Random(0)
    values = [[[[rng.gauss(0, 1) for _ in range(12)] for _ in range(9)]] for _ in range(count)]
    return [grids.grid(f"x{index}: [b n m]", value) for index, value in enumerate(values)]


def _size(text: str) -> tuple[int, int]:
    png = base64.b64decode(text.split("base64,", 1)[1].split("|", 1)[0])
    return struct.unpack(">II", png[16:24])


def test_a_small_picture_is_drawn_at_twice_its_size():
    text = markdown(_grids(2), 1, images=True)
    shown = int(text.rsplit("|width=", 1)[1].rstrip(")"))
    assert _size(text)[0] == 2 * shown


@pytest.mark.parametrize("count", [4, 8, 12])
def test_a_hover_image_stays_under_vs_codes_limit(count):
    text = markdown(_grids(count), count - 1, images=True)
    assert len(text) < 100_000
    assert "data:image/png" in text or text.startswith("```text")
