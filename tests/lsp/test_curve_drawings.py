"""The curve drawings themselves: the SVG's paths and labels, and the Braille text plot."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ElementTree

from shapescript_lsp.features.curve_math import Apply, Var, evaluate
from shapescript_lsp.render.curves import sample, svg_curve, text_curve

SVG = "{http://www.w3.org/2000/svg}"


def _points(path) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(r"[ML]([-\d.]+),([-\d.]+)", path.get("d"))]


def _by_class(root, name: str):
    (found,) = [element for element in root.iter() if element.get("class") == name]
    return found


def test_the_svg_draws_the_curve_solid_and_its_derivative_dashed():
    samples = sample(Apply("relu", (Var(),)), -4.0, 4.0)
    root = ElementTree.fromstring(svg_curve(samples, "range [0, ∞)"))
    curve, slope = _by_class(root, "curve"), _by_class(root, "slope")
    assert curve.get("stroke-dasharray") is None and slope.get("stroke-dasharray") == "5 4"
    points = _points(curve)
    assert len(points) == len(samples.xs)
    # relu: flat along y = 0 on the left half, rising on the right half to the top.
    zero_y = float(_by_class(root, "x-axis").get("y1"))
    left = [y for x, y in points if x < float(_by_class(root, "y-axis").get("x1")) - 1]
    assert left and all(abs(y - zero_y) < 0.05 for y in left)
    assert min(y for _, y in points) < zero_y - 100
    assert {_by_class(root, name).text for name in ("x-lo", "x-hi", "y-lo", "y-hi")} == {
        "−4",
        "4",
        "0",
    }
    assert _by_class(root, "caption").text == "range [0, ∞)"


def test_undefined_values_lift_the_pen():
    samples = sample(Apply("log", (Var(),)), -4.0, 4.0)
    assert math.isnan(evaluate(Apply("log", (Var(),)), -1.0))
    root = ElementTree.fromstring(svg_curve(samples, ""))
    d = _by_class(root, "curve").get("d")
    assert d.startswith("M") and d.count("M") == 1  # only the defined half, in one stroke
    xs = [x for x, _ in _points(_by_class(root, "curve"))]
    assert min(xs) > float(_by_class(root, "y-axis").get("x1"))


def test_dark_theme_changes_every_colour():
    samples = sample(Apply("tanh", (Var(),)), -4.0, 4.0)
    light, dark = svg_curve(samples, "", dark=False), svg_curve(samples, "", dark=True)
    assert 'fill="#ffffff"' in light and 'fill="#1e1e1e"' in dark


def test_the_text_plot_has_braille_labels_and_a_dashed_derivative():
    samples = sample(Apply("sigmoid", (Var(),)), -4.0, 4.0)
    plot = text_curve(samples, "range [0, 1]").splitlines()
    assert plot[0].startswith("0.982 ┤") and plot[7].startswith("    0 ┤")
    assert plot[8].split() == ["−4", "4"] and plot[9] == "range [0, 1]"
    grid = [line.split("┤", 1)[1] for line in plot[:8]]
    assert all(len(row) == 40 and all(0x2800 <= ord(c) <= 0x28FF for c in row) for row in grid)
    # sigmoid rises: its dots start at the bottom left and end at the top right.
    assert grid[7][0] != "⠀" and grid[0][-1] != "⠀" and grid[0][0] == "⠀"
