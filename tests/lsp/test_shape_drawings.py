"""Shape drawings: what the SVG and the text picture show, without a server."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from shapescript.check.algebra.types import TensorType
from shapescript.check.checker import check_text
from shapescript_lsp.render.shapes import MIN_SIDE, svg_drawing, text_drawing
from shapescript_lsp.render.themes import PALETTES, THEMES, theme_name

SVG = "{http://www.w3.org/2000/svg}"
PROGRAM = """\
dim D = 8
dim H = 2
dim Dh = D / H
dim V = 768

fn f(a: [n 1], b: [n D], c: [n 64], d: [n V], x: [b n (H Dh)], img: [4 3 16gh 16gw]) = a
"""
CHECKED = check_text(PROGRAM)


def type_of(name: str) -> TensorType:
    return CHECKED.type_at(re.search(rf"\b{name}: \[", PROGRAM).start())


def parse(name: str, theme: str = "dark", over: str | None = None) -> ET.Element:
    return ET.fromstring(svg_drawing(type_of(name), CHECKED.dim_values, theme, over))


def by_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(SVG + tag) if cls in (e.get("class") or "").split()]


def grid_width(name: str) -> float:
    (grid,) = by_class(parse(name), "rect", "grid")
    return float(grid.get("width"))


def texts(root: ET.Element) -> dict[str, str]:
    return {e.get("class"): e.text for e in root.iter(SVG + "text")}


def test_sides_grow_with_the_log_of_the_sizes_from_a_readable_minimum() -> None:
    widths = [grid_width(name) for name in "abcd"]
    assert widths == sorted(widths) and len(set(widths)) == 4
    assert widths[0] == MIN_SIDE
    assert widths[3] / widths[1] < 768 / 8 / 10


def test_the_grid_is_labelled_with_names_and_sizes() -> None:
    labels = texts(parse("d"))
    assert labels["columns"] == "V = 768" and labels["rows"] == "n"
    root = parse("b")
    assert texts(root)["columns"] == "D = 8"
    assert len(by_class(root, "line", "cell")) == 7


def test_a_group_is_drawn_as_its_blocks_and_its_parts_named() -> None:
    root = parse("x")
    assert texts(root)["columns"] == "(H Dh) = 2×4 = 8"
    assert texts(root)["parts"] == "(H Dh): H = 2 blocks of Dh = 4"
    assert len(by_class(root, "line", "block")) == 1


def test_16gh_is_drawn_as_strips_of_16_and_the_stack_says_how_many() -> None:
    root = parse("img")
    blocks = by_class(root, "line", "block")
    assert blocks and all(line.get("stroke-dasharray") for line in blocks)
    assert texts(root)["stack"] == "stack of 4 × 3 = 12 grids"
    assert len(by_class(root, "rect", "layer")) == 2
    assert [e.text for e in by_class(root, "text", "parts")] == [
        "16gh: gh blocks of 16",
        "16gw: gw blocks of 16",
    ]


def test_the_over_axis_is_marked() -> None:
    root = parse("x", over="n")
    assert len(by_class(root, "line", "over")) == 1
    assert texts(root)["over"] == "over n"
    assert not by_class(parse("x"), "line", "over")


def test_the_background_is_opaque_in_the_theme() -> None:
    for theme, colours in PALETTES.items():
        root = parse("x", theme)
        (background,) = by_class(root, "rect", "background")
        assert background.get("fill") == colours.background
        assert background.get("width") == root.get("width")
        assert {e.get("fill") for e in by_class(root, "text", "rows")} == {colours.text}


def test_the_text_drawing_shows_sizes_groups_and_the_stack() -> None:
    assert text_drawing(type_of("x"), CHECKED.dim_values, over="n") == "\n".join(
        [
            "(H Dh) = 2×4 = 8",
            "┌────┬────┐",
            "│    │    │ n ◀ over",
            "│    │    │",
            "│    │    │",
            "└────┴────┘",
            "(H Dh): H = 2 blocks of Dh = 4",
            "stack of b grids",
        ]
    )
    assert "V = 768" in text_drawing(type_of("d"), CHECKED.dim_values)


def test_huge_shapes_stay_small() -> None:
    axes = " ".join(f"a{i}" for i in range(60))
    program = "dim Big = 1000000000000\n" + f"fn g(x: [{axes} Big Big]) = x\n"
    checked = check_text(program)
    type_ = checked.type_at(program.index("x: [") + 1)
    svg = svg_drawing(type_, checked.dim_values)
    assert len(svg) < 5000
    assert float(ET.fromstring(svg).get("width")) < 1000
    assert len(text_drawing(type_, checked.dim_values)) < 1000
    stack = text_drawing(type_, checked.dim_values).splitlines()[-1]
    assert stack == "stack of a0 × a1 × … × a59 grids, 60 axes"


def test_theme_names_from_clients() -> None:
    assert [theme_name(kind) for kind in (1, 2, 3, 4)] == list(THEMES)
    assert theme_name("high-contrast") == "highContrast"
    assert theme_name("sepia") == theme_name(None) == "dark"


def test_the_stack_counts_in_numbers_and_names_and_over_marks_the_last_axis() -> None:
    program = "dim H = 12\nfn f(q: [b H n n]) = q\n"
    checked = check_text(program)
    type_ = checked.type_at(program.index("q: ["))
    drawing = text_drawing(type_, checked.dim_values, over="n").splitlines()
    assert drawing[0] == "n ◀ over" and "◀" not in "".join(drawing[1:])
    assert drawing[-1] == "stack of b × 12 grids (b × H)"
    root = ET.fromstring(svg_drawing(type_, checked.dim_values, over="n"))
    (mark,) = by_class(root, "line", "over")
    assert mark.get("y1") == mark.get("y2")


def test_a_domain_is_named_under_the_picture() -> None:
    program = "fn f(p: [b C] Prob over C, x: [b C]) = p\n"
    checked = check_text(program)
    prob = ET.fromstring(svg_drawing(checked.type_at(program.index("p: [")), {}))
    plain = ET.fromstring(svg_drawing(checked.type_at(program.index("x: [")), {}))
    assert texts(prob)["domain"] == "values: Prob over C"
    assert "domain" not in texts(plain)
