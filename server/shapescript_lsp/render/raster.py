"""SVG to PNG `data:` URIs for hover images: at 2x, for sharp text, on an opaque background."""

from __future__ import annotations

import base64


def png_from_svg(svg: str, background: str) -> str | None:
    """The SVG at 2x on `background`, as a `data:` URI; None when cairosvg can't run here."""
    try:
        import cairosvg
    except (ImportError, OSError):
        return None
    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=2, background_color=background)
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
