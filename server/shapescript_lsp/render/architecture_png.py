"""The architecture drawing as a PNG `data:` URI for hovers: the theme's colors, 2x,
opaque, and few enough colors that a large model still fits in a hover."""

from __future__ import annotations

import base64
import io

from shapescript.architecture.nodes import Architecture
from shapescript_lsp.render.architecture_svg import architecture_svg
from shapescript_lsp.render.raster import image_from_svg, png_from_svg
from shapescript_lsp.render.themes import palette

COLORS = 48


def architecture_png(found: Architecture, theme: str) -> tuple[str, int] | None:
    """The PNG's `data:` URI and the width to show it at; None when it can't be drawn."""
    svg, width, _ = architecture_svg(found, theme)
    background = palette(theme).background
    image = image_from_svg(svg, background)
    if image is not None:
        return _encoded(_fewer_colors(image, background)), width
    uri = png_from_svg(svg, background)
    return (uri, width) if uri is not None else None


def _fewer_colors(image, background: str):
    """The picture with a palette of 48 colors, which PNG stores in far fewer bytes;
    the background keeps its exact color."""
    from PIL import Image

    small = image.quantize(colors=COLORS, method=Image.Quantize.FASTOCTREE)
    colors = small.getpalette() or []
    index = small.getpixel((0, 0))
    if isinstance(index, int) and len(colors) >= 3 * (index + 1):
        exact = [int(background[i : i + 2], 16) for i in (1, 3, 5)]
        colors[3 * index : 3 * index + 3] = exact
        small.putpalette(colors)
    return small


def _encoded(image) -> str:
    out = io.BytesIO()
    image.save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")
