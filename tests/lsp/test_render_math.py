"""Math in doc comments as Unicode text and as typeset SVG, over the subset of table 1."""

from __future__ import annotations

import pytest

from shapescript.check.analyses.math_comments import parse_math
from shapescript_lsp.render.math import math_svg, render_doc, unicode_math

CASES = [
    (r"\epsilon", "ε"),
    (r"\alpha + \beta \le \Omega", "α + β ≤ Ω"),
    (r"\frac{1}{\sqrt{D_h}}", "1/√Dₕ"),
    (r"\frac{1 + x}{2}", "(1 + x)/2"),
    (r"\sqrt[3]{x}", "∛x"),
    (r"x^2 + y_i", "x² + yᵢ"),
    (r"e^{-x}", "e⁻ˣ"),
    (r"-x + (-1)", "−x + (−1)"),
    (r"x - y", "x − y"),
    (r"\operatorname{softmax}(x)_i", "softmax(x)ᵢ"),
    (r"\sum_j e^{x_j}", "∑ⱼ e^(xⱼ)"),
    (r"[0, \infty)", "[0, ∞)"),
    (r"\mathbb{R}^{n \times d}", "ℝ^(n × d)"),
    (r"\mathit{end} \cdot \pi", "end ⋅ π"),
    (r"\hat{y} \approx \bar{x}", "ŷ ≈ x̄"),
    (r"\left( a \right]", "(a]"),
    (r"\log x + \max_i y", "log x + maxᵢ y"),
    (r"\cos(\pi t)", "cos(πt)"),
    (r"\begin{cases} x & x > 0 \\ 0 & \text{else} \end{cases}", "{ x, x > 0; 0, else }"),
    (r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}", "(a b; c d)"),
]


@pytest.mark.parametrize(("latex", "text"), CASES)
def test_unicode_text_of_the_subset(latex, text):
    assert unicode_math(parse_math(latex)) == text


def test_docs_keep_text_and_show_math_outside_the_subset_as_written():
    doc = "Scaled by $\\frac{1}{\\sqrt{D}}$; `$x$` is code; costs $3 and $4; $\\sofmax(x)$."
    shown = render_doc(doc)
    assert shown == "Scaled by 1/√D; `$x$` is code; costs $3 and $4; `$\\sofmax(x)$`."
    assert render_doc("Malformed $\\frac{1}{\\sqrt{D}$ here") == (
        "Malformed `$\\frac{1}{\\sqrt{D}$` here"
    )
    assert render_doc("no math") == "no math" and render_doc(None) == ""


def test_display_math_is_its_own_paragraph():
    assert render_doc("Above:\n$$x^2$$\nbelow") == "Above:\n\n\nx²\n\n\nbelow"


def test_images_are_typeset_glyphs_in_the_themes_colour():
    light, dark = math_svg(r"\frac{1}{\sqrt{D_h}}"), math_svg(r"\frac{1}{\sqrt{D_h}}", dark=True)
    assert light.startswith("<svg") and "<path" in light
    assert "#1e1e1e" in light and "#e8e8e8" in dark
    shown = render_doc("Scale $\\epsilon$.", images=True)
    assert shown.startswith("Scale ![ε](data:image/png;base64,") and "|width=" in shown


def test_images_are_transparent_around_the_glyphs():
    """The hover's background shows around the math: no white box on a light grey hover."""
    import base64
    import io
    import re

    from PIL import Image

    for dark in (False, True):
        shown = render_doc("Scale $\\frac{1}{D}$.", images=True, dark=dark)
        data = re.search(r"data:image/png;base64,([A-Za-z0-9+/=]+)", shown)
        assert data is not None, shown
        with Image.open(io.BytesIO(base64.b64decode(data.group(1)))) as image:
            rgba = image.convert("RGBA")
            corners = [
                rgba.getpixel((x, y)) for x in (0, rgba.width - 1) for y in (0, rgba.height - 1)
            ]
            glyphs = rgba.getchannel("A").getextrema()
        assert all(pixel[3] == 0 for pixel in corners), (dark, corners)
        assert glyphs[1] == 255, "the glyphs are opaque"
