"""Values drawn as grids: what each picture shows, in SVG and in text."""

from __future__ import annotations

import math
import re

import pytest

from shapescript_lsp.pictures import grids


def _cells(svg: str) -> list[str]:
    return re.findall(r'class="cell" data-value="([^"]+)"', svg)


def test_a_slice_of_the_first_index_along_leading_axes_at_most_8_by_10():
    value = [[[row * 20 + column for column in range(12)] for row in range(9)], [[99] * 12] * 9]
    grid = grids.grid("x: [b n m]", value)
    assert len(grid.rows) == 8 and all(len(row) == 10 for row in grid.rows)
    assert (grid.low, grid.high) == (0, 149)
    assert "99" not in _cells(grids.svg([grid], 1))


def test_a_range_grid_says_its_smallest_and_largest_values():
    grid = grids.grid("x: [n D]", [[-1.58, 0.0], [1.93, 0.5]])
    svg = grids.svg([grid], 1)
    assert "−1.58 … 1.93" in svg
    assert _cells(svg) == ["-1.58", "0", "1.93", "0.5"]
    assert "(−1.58 … 1.93)" in grids.text([grid], 1)


def test_prob_rows_are_shaded_from_0_to_1_with_their_sums():
    rows = [[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]
    grid = grids.grid("p: [n C] Prob over C", rows, "prob")
    svg = grids.svg([grid], 1)
    assert re.findall(r'class="sum"[^>]*>([^<]+)<', svg) == ["Σ 1", "Σ 1"]
    assert "0 … 1" in svg
    shaded = grids.grid("p", [[0.7, 0.7]], "prob")
    fills = re.findall(r'class="cell"[^>]*fill="(#[0-9a-f]+)"', grids.svg([shaded], 1))
    ranged = grids.grid("p", [[0.1, 0.7]])
    ranged_fills = re.findall(r'class="cell"[^>]*fill="(#[0-9a-f]+)"', grids.svg([ranged], 1))
    assert fills[0] == fills[1] and fills[1] != ranged_fills[1], "a Prob cell's shade is its value"
    text = grids.text([grid], 1).splitlines()
    assert text[1].endswith("Σ 1") and text[2].endswith("Σ 1")


def test_an_index_is_drawn_one_hot():
    grid = grids.grid("i: [n] Index[C]", [2, 0], "onehot", classes=4)
    assert grid.rows == [[0, 0, 1, 0], [1, 0, 0, 0]]
    assert grids.text([grid], 1).splitlines()[1:] == ["· · █ ·", "█ · · ·"]


def test_minus_infinity_is_a_dashed_cell():
    grid = grids.grid("s: [n m]", [[0.5, -math.inf], [0.1, 0.2]])
    svg = grids.svg([grid], 1)
    assert svg.count('class="cell neginf"') == 1 and 'stroke-dasharray="3 2"' in svg
    assert grid.low == 0.1
    assert grids.text([grid], 1).splitlines()[1].split()[1] == "╌"


def test_the_inputs_and_the_result_are_separated_by_an_arrow():
    drawn = [grids.grid("x", [[1.0]]), grids.grid("y", [[2.0]])]
    assert grids.svg(drawn, 1).count('class="arrow"') == 1
    assert grids.text(drawn, 1).split("\n\n")[1] == "↓"


def test_outlined_cells_are_what_depends_on_what():
    grid = grids.grid("y", [[1.0, 2.0], [3.0, 4.0]], marks=frozenset({(1, 0)}))
    svg = grids.svg([grid], 1)
    assert re.findall(r'class="cell marked" data-value="([^"]+)"', svg) == ["3"]
    assert grids.text([grid], 1).splitlines()[1:] == ["· ░", "● █"]


def test_a_mask_says_true_and_false():
    grid = grids.grid("keep: [n m] Mask", [[True, False]], "mask")
    svg = grids.svg([grid], 1)
    assert ">true</text>" in svg and ">false</text>" in svg and "false … true" in svg
    assert grids.text([grid], 1).splitlines()[1] == "█ ·"


@pytest.mark.parametrize(
    ("theme", "background", "ink"),
    [("light", "#ffffff", "#1f1f1f"), ("dark", "#1f1f1f", "#e8e8e8")],
)
def test_a_picture_is_drawn_in_the_themes_colours_on_an_opaque_background(theme, background, ink):
    shaded = grids.grid("x: [n]", [[0.0, 1.0]], marks=frozenset({(0, 1)}))
    svg = grids.svg([shaded], 1, theme)
    assert f'fill="{background}"/>' in svg.split("<text", 1)[0]
    assert f'class="caption" x="10" y="24" font-size="13" fill="{ink}"' in svg
    low, high = re.findall(r'class="cell[^"]*"[^>]*fill="(#[0-9a-f]+)"', svg)
    lightness = [sum(int(colour[i : i + 2], 16) for i in (1, 3, 5)) for colour in (low, high)]
    # The largest value stands out from the background: darker on light, brighter on dark.
    assert (lightness[1] < lightness[0]) == (theme == "light")
    assert f'stroke="{grids.colours(theme).mark}"' in svg


def test_a_structure_s_background_is_hatched_and_drawn_apart_in_text():
    rows = [[0.5, 0.0, 0.0], [0.3, 0.7, 0.0], [0.2, 0.3, 0.5]]
    background = grids.above_diagonal(3, 3)
    assert background == {(0, 1), (0, 2), (1, 2)}
    grid = grids.grid("p: [n m] Prob over m", rows, "prob", background=background)
    svg = grids.svg([grid], 1)
    assert 'id="background-hatch"' in svg
    assert len(re.findall(r'class="cell background"', svg)) == 3
    assert 'id="background-hatch"' not in grids.svg([grids.grid("p", rows, "prob")], 1)
    lines = grids.text([grid], 1).splitlines()[1:]
    assert [line.split("   ")[0].split().count(grids.BACKGROUND) for line in lines] == [2, 1, 0]


def test_only_the_cells_shown_are_background():
    assert len(grids.above_diagonal(20, 20)) == sum(
        1 for r in range(grids.MAX_ROWS) for c in range(grids.MAX_COLUMNS) if c > r
    )
