"""A picture's SVG as a PNG `data:` URI small enough for VS Code's hovers."""

from __future__ import annotations

import base64
import io

#: VS Code drops a hover's Markdown longer than this.
HOVER_LIMIT = 100_000
#: Room left in the limit for the hover's text around the image.
TEXT_ROOM = 6_000
#: Palette sizes tried, the most colors first: values are shaded in few steps anyway.
PALETTES = (64, 32, 16)


def png_uri(svg: str, limit: int = HOVER_LIMIT - TEXT_ROOM) -> str | None:
    """The smallest rendering that fits, at 2× then at 1×; None when none fits or
    cairosvg can't run here."""
    try:
        import cairosvg
        from PIL import Image
    except (ImportError, OSError):
        return None
    for scale in (1.0, 0.5):
        png = cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=scale)
        image = Image.open(io.BytesIO(png)).convert("RGB")
        for colors in PALETTES:
            buffer = io.BytesIO()
            image.quantize(colors=colors).save(buffer, "PNG", optimize=True)
            uri = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
            if len(uri) <= limit:
                return uri
    return None
