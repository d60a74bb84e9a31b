"""The architecture drawing as a PNG `data:` URI for hovers: the theme's colors, 2x,
opaque, and few enough colors that a large model still fits in a hover."""

from __future__ import annotations

import base64
import io

from shapescript.architecture.nodes import Architecture
from shapescript_lsp.render.architecture_svg import architecture_svg
from shapescript_lsp.render.raster import png_from_svg
from shapescript_lsp.render.themes import palette

COLORS = 32


def architecture_png(found: Architecture, theme: str) -> tuple[str, int] | None:
    """The PNG's `data:` URI and the width to show it at; None when it can't be drawn."""
    svg, width, _ = architecture_svg(found, theme)
    uri = png_from_svg(svg, palette(theme).background)
    if uri is None:
        return None
    return _fewer_colors(uri, palette(theme).background), width


def _fewer_colors(uri: str, background: str) -> str:
    """The same picture with a palette of 32 colors, which PNG stores in a third the bytes;
    the background keeps its exact color."""
    try:
        from PIL import Image
    except ImportError:
        return uri
    prefix, _, data = uri.partition(",")
    image = Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")
    small = image.quantize(colors=COLORS, method=Image.Quantize.FASTOCTREE)
    colors = small.getpalette() or []
    index = small.getpixel((0, 0))
    if isinstance(index, int) and len(colors) >= 3 * (index + 1):
        exact = [int(background[i : i + 2], 16) for i in (1, 3, 5)]
        colors[3 * index : 3 * index + 3] = exact
        small.putpalette(colors)
    out = io.BytesIO()
    small.save(out, "PNG")
    return prefix + "," + base64.b64encode(out.getvalue()).decode("ascii")
