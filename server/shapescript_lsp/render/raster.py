"""SVG to PNG `data:` URIs for hover images: at 2x, for sharp text, on an opaque background."""

from __future__ import annotations

import base64
import sys


def png_from_svg(svg: str, background: str | None) -> str | None:
    """The SVG at 2x on `background` (transparent for None), as a `data:` URI; None when
    cairosvg can't run here."""
    try:
        import cairosvg
    except (ImportError, OSError):
        return None
    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=2, background_color=background)
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def image_from_svg(svg: str, background: str):
    """The SVG at 2x on `background` as a Pillow RGB image, taken from cairo's pixels
    without encoding a PNG and decoding it again; None without cairosvg or Pillow."""
    try:
        from cairosvg.parser import Tree
        from cairosvg.surface import PNGSurface
        from PIL import Image
    except (ImportError, OSError):
        return None
    surface = PNGSurface(
        Tree(bytestring=svg.encode("utf-8")), None, 96, scale=2, background_color=background
    )
    pixels = surface.cairo
    pixels.flush()
    size = (pixels.get_width(), pixels.get_height())
    # cairo's ARGB32 is a native-endian word per pixel; on an opaque background, alpha
    # is always full, so the bytes read as BGRX (little-endian) or XRGB (big-endian).
    order = "BGRX" if sys.byteorder == "little" else "XRGB"
    return Image.frombuffer(
        "RGB", size, bytes(pixels.get_data()), "raw", order, pixels.get_stride(), 1
    )
