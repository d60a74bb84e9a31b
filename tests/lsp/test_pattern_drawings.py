"""Pattern drawings: what the SVG and the text picture of a pattern's before → after show."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from shapescript.check.checker import check_text
from shapescript_lsp.features.context import item_at
from shapescript_lsp.features.pattern_hover import arrow_pattern, pattern_picture
from shapescript_lsp.render.patterns import (
    PatternPicture,
    png_uri,
    svg_pattern,
    text_pattern,
    tracked,
)
from shapescript_lsp.render.themes import PALETTES

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
    t = rearrange(x, b n D -> b D n)
    s = einsum(x, x: b n D, b m D -> b n m)
    return z

fn qkv(x: [b n D], w: [D 3*D]) -> [b H n Dh]:
    q, k, v = x @ w |> split(b n (3 H Dh) -> b H n Dh)
    return q
"""
CHECKED = check_text(PROGRAM)


def picture(needle: str, program: str = PROGRAM, checked=CHECKED) -> PatternPicture:
    """The picture of the first `->` at or after `needle`."""
    offset = program.index("->", program.index(needle)) + 1
    item = item_at(checked, offset)
    pattern, call = arrow_pattern(item, offset)
    return pattern_picture(checked, item, pattern, call)[0]


PATCHIFY = "-> b (h w)"
SPLIT = "-> b H n Dh"
MERGE = "-> b n (H Dh)"
TRANSPOSE = "-> b D n"
EINSUM = "-> b n m"


def parse(needle: str, theme: str = "dark") -> ET.Element:
    return ET.fromstring(svg_pattern(picture(needle), theme))


def by_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(SVG + tag) if cls in (e.get("class") or "").split()]


def text_of(element: ET.Element) -> str:
    return "".join(element.itertext())


def labels(root: ET.Element, cls: str) -> list[str]:
    return [text_of(e) for e in by_class(root, "text", cls)]


def colour_of(element: ET.Element, word: str) -> str:
    (span,) = [s for s in element.iter(SVG + "tspan") if s.text == word]
    return span.get("fill")


def lines(root: ET.Element, cls: str) -> list[dict[str, float | str]]:
    """Each line of the paths of a class: its ends and its colour."""
    found: list[dict[str, float | str]] = []
    for path in by_class(root, "path", cls):
        for x1, y1, x2, y2 in re.findall(r"M([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)", path.get("d")):
            ends = dict(zip(("x1", "y1", "x2", "y2"), map(float, (x1, y1, x2, y2)), strict=True))
            found.append({**ends, "stroke": path.get("stroke")})
    return found


def grids(root: ET.Element) -> list[ET.Element]:
    return by_class(root, "rect", "grid")


def test_the_sizes_of_the_names_come_from_types_dims_and_keywords():
    drawn = picture(PATCHIFY)
    (image,) = drawn.inputs
    assert image.title == "img" and image.text == "b c (h p1) (w p2)"
    sizes = [[part.size for part in entry.parts] for entry in image.entries]
    assert sizes == [[None], [3], [4, 4], [4, 4]]
    assert [entry.size for entry in drawn.output.entries] == [None, 16, 48]
    assert tracked(drawn) == {"h", "w"}


def test_a_patchify_draws_the_patch_grid_and_the_rows_of_patches():
    root = parse(PATCHIFY)
    image, result = grids(root)
    blocks = lines(root, "block")
    image_x = float(image.get("x"))
    inside = [b for b in blocks if image_x <= b["x1"] <= image_x + 250]
    vertical = [b for b in inside if b["x1"] == b["x2"]]
    horizontal = [b for b in inside if b["y1"] == b["y2"]]
    assert len(vertical) == 3 and len(horizontal) == 3
    assert labels(root, "columns") == ["(w p2) = 4×4 = 16", "(p1 p2 c) = 4×4×3 = 48"]
    assert labels(root, "rows") == ["(h p1) = 4×4 = 16", "(h w) = 4×4 = 16"]
    assert labels(root, "side") == ["img: b c (h p1) (w p2)", "result: b (h w) (p1 p2 c)"]
    first, row = by_class(root, "rect", "tracked")
    # The first patch, a quarter of each side, becomes the first of the 16 rows.
    assert float(first.get("width")) == pytest.approx(float(image.get("width")) / 4, abs=0.2)
    assert float(first.get("height")) == pytest.approx(float(image.get("height")) / 4, abs=0.2)
    assert float(row.get("width")) == pytest.approx(float(result.get("width")), abs=0.2)
    assert float(row.get("height")) == pytest.approx(float(result.get("height")) / 16, abs=0.2)
    assert labels(root, "legend") == ["shaded: h = 0, w = 0, before and after"]


def test_each_axis_keeps_its_colour_from_before_to_after():
    root = parse(PATCHIFY)
    before, after = by_class(root, "text", "side")
    for name in ("b", "c", "h", "w", "p1", "p2"):
        assert colour_of(before, name) == colour_of(after, name)
    colours = {colour_of(before, name) for name in ("b", "c", "h", "w", "p1", "p2")}
    assert len(colours) == 6
    (row_label,) = [e for e in by_class(root, "text", "rows") if "(h w)" in text_of(e)]
    assert colour_of(row_label, "h") == colour_of(before, "h")
    h_colour = colour_of(before, "h")
    thick_h = [b for b in lines(root, "block") if b["stroke"] == h_colour]
    assert len(thick_h) == 6  # between the 4 patch rows before, and the 4 groups of rows after


def test_heads_split_are_blocks_before_and_a_stack_after():
    root = parse(SPLIT)
    assert labels(root, "columns")[0] == "(H Dh) = 2×24 = 48"
    (block,) = lines(root, "block")
    assert block["stroke"] == colour_of(by_class(root, "text", "side")[0], "H")
    assert labels(root, "stack") == ["stack of b", "stack of b × H (shaded: first)"]
    assert len(by_class(root, "rect", "layer")) == 1 + 2
    head, front = by_class(root, "rect", "tracked")
    before, after = grids(root)
    assert float(head.get("width")) == pytest.approx(float(before.get("width")) / 2, abs=0.2)
    assert float(front.get("width")) == pytest.approx(float(after.get("width")), abs=0.2)


def test_heads_merged_back_are_the_same_picture_reversed():
    root = parse(MERGE)
    assert labels(root, "stack") == ["stack of b × H (shaded: first)", "stack of b"]
    assert labels(root, "columns")[1] == "(H Dh) = 2×24 = 48"
    assert len(lines(root, "block")) == 1
    assert labels(root, "legend") == ["shaded: H = 0, before and after"]


def test_a_split_shades_the_first_head_of_each_of_its_results():
    drawn = picture("split(")
    assert tracked(drawn) == {"H"}
    root = ET.fromstring(svg_pattern(drawn))
    assert labels(root, "side")[1] == "each of 3 results: b H n Dh"
    before, _ = grids(root)
    heads = by_class(root, "rect", "tracked")[:-1]
    assert len(heads) == 3
    width = float(before.get("width"))
    starts = [float(head.get("x")) - float(before.get("x")) for head in heads]
    assert starts == pytest.approx([0, width / 3, 2 * width / 3], abs=0.2)
    assert [float(head.get("width")) for head in heads] == pytest.approx([width / 6] * 3, abs=0.2)


def test_a_transpose_has_no_shading_and_moves_the_labels():
    root = parse(TRANSPOSE)
    assert not by_class(root, "rect", "tracked") and not labels(root, "legend")
    assert labels(root, "columns") == ["D = 48", "n"]
    assert labels(root, "rows") == ["n", "D = 48"]


def test_einsum_draws_each_operand_then_the_result():
    root = parse(EINSUM)
    assert len(grids(root)) == 3
    assert labels(root, "arrow") == [",", "→"]
    assert labels(root, "side") == ["x: b n D", "x: b m D", "result: b n m"]


@pytest.mark.parametrize("theme", sorted(PALETTES))
def test_the_background_is_opaque_in_the_theme(theme: str):
    root = parse(PATCHIFY, theme)
    (background,) = by_class(root, "rect", "background")
    assert background.get("fill") == PALETTES[theme].background


def test_the_themes_give_the_axes_different_colours():
    light, dark = parse(PATCHIFY, "light"), parse(PATCHIFY, "dark")
    first = by_class(light, "text", "side")[0]
    second = by_class(dark, "text", "side")[0]
    assert colour_of(first, "h") != colour_of(second, "h")


def test_the_text_drawing_shows_the_grid_the_moved_block_and_where_each_axis_goes():
    text = text_pattern(picture(PATCHIFY))
    lines = text.splitlines()
    grid_line = next(line for line in lines if "(h p1) = 4×4 = 16" in line)
    assert "→" in grid_line and "(h w) = 4×4 = 16" in grid_line
    assert grid_line.startswith("│▒▒│  │  │  │")
    assert sum(line.startswith("├──┼──┼──┼──┤") for line in lines) == 3
    assert "h = 4   axis 3, outer of (h p1)  →  axis 2, outer of (h w)" in text
    assert "p1 = 4  axis 3, inner of (h p1)  →  axis 3, outer of (p1 p2 c)" in text
    assert "c = 3   axis 2  →  axis 3, inner of (p1 p2 c)" in text
    assert "▒ shaded: h = 0, w = 0, before and after" in text


def test_the_text_drawing_of_heads():
    text = text_pattern(picture(SPLIT))
    assert "x: b n (H Dh)" in text and "result: b H n Dh" in text
    assert "│▒▒▒▒▒▒▒│       │ n  →  │▒▒▒▒▒▒▒▒▒▒▒▒▒│ n" in text
    assert "stack of b × H (▒ in the first)" in text
    assert "H = 2    axis 3, outer of (H Dh)  →  axis 2" in text


def test_wide_text_drawings_go_one_under_the_other():
    names = " ".join(f"axis_{i}" for i in range(12))
    program = f"fn f(x: [{names} a b]) = rearrange(x, {names} a b -> {names} b a)\n"
    checked = check_text(program)
    text = text_pattern(picture(f"-> {names}", program, checked))
    assert "\n→\n" in text


def test_a_huge_pattern_stays_under_the_hover_limit():
    names = " ".join(f"a{i}" for i in range(60))
    program = (
        "dim Big = 1000000000000\n"
        f"fn f(x: [{names} Big 64]) = rearrange(x, {names} Big (g 16) -> {names} g Big 16)\n"
    )
    checked = check_text(program)
    svg = svg_pattern(picture(f"-> {names}", program, checked))
    uri = png_uri(svg, 90_000)
    assert uri is not None and len(uri) <= 90_000
