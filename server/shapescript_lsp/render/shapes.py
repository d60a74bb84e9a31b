"""Drawings of a tensor's shape: a text picture for every editor, SVG for those with images.

The last two axes are the rows and columns of a rectangle; the axes before them are
drawn as copies stacked behind it.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from shapescript.check.sizes import format_size
from shapescript.check.types import Axis, TensorType, axis_text


@dataclass(frozen=True, slots=True)
class AxisLabel:
    """How an axis is labelled: its name and, when known, its size in numbers."""

    text: str
    size: str | None


def _label(axis: Axis, dim_values: dict[str, int]) -> AxisLabel:
    name = axis_text(axis)
    value = axis.size.substitute({k: _const(v) for k, v in dim_values.items()}).value
    size = str(value) if value is not None and str(value) != name else None
    if size is None and axis.name is not None and str(axis.size) != axis.name:
        size = format_size(axis.size)
    return AxisLabel(name, size)


def _const(value: int):
    from shapescript.check.sizes import Poly

    return Poly.const(value)


def _caption(label: AxisLabel) -> str:
    return f"{label.text} = {label.size}" if label.size else label.text


def text_drawing(type_: TensorType, dim_values: dict[str, int]) -> str:
    """A small text picture of the shape, for editors that can't show images."""
    axes = type_.axes or ()
    if not axes:
        return "[] one number"
    labels = [_label(axis, dim_values) for axis in axes]
    if len(labels) == 1:
        return "▭▭▭▭▭▭▭▭  " + _caption(labels[0])
    rows, columns = labels[-2], labels[-1]
    width = max(10, len(_caption(columns)) + 2)
    lines = [
        " " + _caption(columns).center(width + 2),
        "┌" + "─" * width + "┐",
        "│" + " " * width + "│ " + _caption(rows),
        "│" + " " * width + "│",
        "└" + "─" * width + "┘",
    ]
    if len(labels) > 2:
        lines.append(" × " + " × ".join(_caption(label) for label in labels[:-2]))
    return "\n".join(lines)


def svg_drawing(type_: TensorType, dim_values: dict[str, int], dark: bool = False) -> str:
    """The same picture as SVG: stacked rectangles for the leading axes, labels outside."""
    axes = type_.axes or ()
    labels = [_label(axis, dim_values) for axis in axes]
    stroke = "#c8c8c8" if dark else "#404040"
    fill = "#3a6ea5" if dark else "#9cc3e6"
    text_colour = "#e0e0e0" if dark else "#202020"
    leading = labels[:-2] if len(labels) > 2 else []
    depth = min(len(leading), 3)
    box_w, box_h = 160, 90 if len(labels) >= 2 else 24
    offset = 10
    width = box_w + depth * offset + 150
    height = box_h + depth * offset + 70
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="monospace" font-size="13">'
    ]
    x0, y0 = 20 + depth * offset, 30
    for layer in range(depth, -1, -1):
        x = x0 - layer * offset
        y = y0 + layer * offset
        parts.append(
            f'<rect x="{x}" y="{y}" width="{box_w}" height="{box_h}" fill="{fill}" '
            f'fill-opacity="{0.35 if layer else 0.8}" stroke="{stroke}" stroke-width="1.5"/>'
        )
    front_x, front_y = x0 - depth * offset, y0 + depth * offset
    if labels:
        columns = labels[-1]
        parts.append(
            f'<text x="{x0 + box_w / 2}" y="{y0 - 8}" text-anchor="middle" '
            f'fill="{text_colour}">{escape(_caption(columns))}</text>'
        )
    if len(labels) >= 2:
        rows = labels[-2]
        parts.append(
            f'<text x="{x0 + box_w + 8}" y="{y0 + box_h / 2 + 4}" '
            f'fill="{text_colour}">{escape(_caption(rows))}</text>'
        )
    if leading:
        caption = " × ".join(_caption(label) for label in leading)
        parts.append(
            f'<text x="{front_x}" y="{front_y + box_h + 20}" '
            f'fill="{text_colour}">× {escape(caption)}</text>'
        )
    if not labels:
        parts.append(f'<text x="20" y="40" fill="{text_colour}">[] one number</text>')
    parts.append("</svg>")
    return "".join(parts)


def png_data_uri(svg: str) -> str | None:
    """The SVG rasterised to a PNG `data:` URI, or None when cairosvg can't run here."""
    import base64

    try:
        import cairosvg
    except (ImportError, OSError):
        return None
    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"))
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
