"""Drawings of a tensor's shape: a text picture for every editor, SVG for those with images.

The last two axes are the rows and columns of a grid whose sides grow with the log of
their sizes; the axes before them are copies stacked behind it, with a caption saying how
many. A grouped axis (`(H Dh)`, `16gh`) is drawn as its blocks.
"""

from __future__ import annotations

import math
from html import escape

from shapescript.check.algebra.sizes import Poly, format_size
from shapescript.check.algebra.types import REAL, Axis, TensorType, axis_text, domain_text
from shapescript.records import record
from shapescript_lsp.render.themes import Palette, palette

#: Side of an axis of size 1, pixels added per doubling, and the largest side.
MIN_SIDE = 26
STEP = 17
MAX_SIDE = 210
#: Side for a size the checker doesn't know in numbers.
UNKNOWN_SIDE = 90
#: Most stacked copies drawn behind the grid, and their offset.
MAX_LAYERS = 3
LAYER_OFFSET = 9
#: Most cells or blocks drawn along one side; beyond that the side is plain.
MAX_CELLS = 16
MAX_BLOCKS = 16
FONT = 13
CHAR_W = 7.9
MAX_CAPTION = 48
#: Most leading axes named in the stack's caption; beyond that the middle ones are `…`.
MAX_STACK_NAMES = 4
PAD = 12


@record(frozen=True)
class AxisLabel:
    """How an axis is shown: its text as written, its size in numbers when known, and the
    labels of its parts when it is a group."""

    text: str
    value: int | None
    size: str | None
    parts: tuple[AxisLabel, ...] = ()


def label_of(axis: Axis, dim_values: dict[str, int]) -> AxisLabel:
    name = axis_text(axis)
    value = axis.size.substitute({k: Poly.const(v) for k, v in dim_values.items()}).value
    size = str(value) if value is not None and str(value) != name else None
    if size is None and value is None and axis.name is not None and str(axis.size) != axis.name:
        size = format_size(axis.size)
    parts = tuple(label_of(part, dim_values) for part in axis.parts or ())
    return AxisLabel(name, value, size, parts)


def caption(label: AxisLabel) -> str:
    """`n`, `D = 8`, `(H Dh) = 2×4 = 8`."""
    text = label.text
    if label.parts and all(part.value is not None for part in label.parts):
        inner = "×".join(str(part.value) for part in label.parts)
        if inner != label.size:
            text += f" = {inner}"
    if label.size:
        text += f" = {label.size}"
    return _cut(text)


def _cut(text: str, limit: int = MAX_CAPTION) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def side(label: AxisLabel) -> float:
    """A side's length: log-scaled in the size, never under a readable minimum."""
    if label.value is None:
        return UNKNOWN_SIDE
    return min(MAX_SIDE, MIN_SIDE + STEP * math.log2(max(label.value, 1)))


def _stack_caption(leading: list[AxisLabel]) -> str:
    """`stack of b grids`, `stack of 4 × 3 = 12 grids`, `stack of b × 12 grids (b × H)`."""
    numbers = [str(label.value) if label.value is not None else label.text for label in leading]
    names = [label.text for label in leading]
    if len(leading) > MAX_STACK_NAMES:
        numbers = [*numbers[:2], "…", numbers[-1]]
        names = [*names[:2], "…", names[-1]]
    text = "stack of " + " × ".join(numbers)
    if len(leading) > 1 and all(label.value is not None for label in leading):
        text += f" = {math.prod(label.value for label in leading)}"
    text += " grids"
    if names != numbers:
        text += " (" + " × ".join(names) + ")"
    if len(leading) > MAX_STACK_NAMES:
        text += f", {len(leading)} axes"
    return _cut(text, 2 * MAX_CAPTION)


#: Blocks drawn, dashed, for a group whose count isn't known in numbers.
UNKNOWN_BLOCKS = 4


def _blocks(label: AxisLabel) -> int:
    """How many blocks a group is drawn as: its first part's size, when known and small."""
    if not label.parts:
        return 0
    count = label.parts[0].value
    if count is None:
        return UNKNOWN_BLOCKS
    return count if 1 < count <= MAX_BLOCKS else 0


def _parts_caption(label: AxisLabel) -> str:
    if len(label.parts) < 2:
        return ""
    first, rest = label.parts[0], label.parts[1:]
    return _cut(f"{label.text}: {caption(first)} blocks of " + " × ".join(caption(p) for p in rest))


def over_index(labels: list[AxisLabel], over: str | None) -> int | None:
    """Which axis a stage works over: the last one named `over` (`[b H n n]` over the last n)."""
    found = [i for i, label in enumerate(labels) if over is not None and label.text == over]
    return found[-1] if found else None


# ---------------------------------------------------------------------- text drawing


def text_drawing(type_: TensorType, dim_values: dict[str, int], over: str | None = None) -> str:
    """A text picture of the shape for editors that can't show images: sides that grow with
    the sizes, groups split into their blocks, the stack's count and the `over` axis."""
    axes = type_.axes or ()
    if not axes:
        return "[] one number"
    labels = [label_of(axis, dim_values) for axis in axes]
    marked = over_index(labels, over)

    def mark(index: int) -> str:
        return " ◀ over" if index % len(labels) == marked else ""

    columns = labels[-1]
    width = max(6, round(side(columns) / 8))
    top = _text_edge(columns, width, "┌", "┬", "┐")
    if len(labels) == 1:
        lines = [caption(columns) + mark(-1), top, _text_row(columns, width)]
        lines.append(_text_edge(columns, width, "└", "┴", "┘"))
    else:
        rows = labels[-2]
        height = max(2, min(6, round(side(rows) / 30)))
        lines = [caption(columns) + mark(-1), top]
        for index in range(height):
            line = _text_row(columns, width)
            if index == 0:
                line += " " + caption(rows) + mark(-2)
            lines.append(line)
        lines.append(_text_edge(columns, width, "└", "┴", "┘"))
    for label in labels[-2:]:
        parts = _parts_caption(label)
        if parts:
            lines.append(parts)
    if len(labels) > 2:
        leading = labels[:-2]
        lines.append(_stack_caption(leading) + "".join(mark(i) for i in range(len(leading))))
    if type_.domain != REAL:
        lines.append(_cut("values: " + domain_text(type_.domain)))
    return "\n".join(lines)


def _segments(label: AxisLabel, width: int) -> list[int]:
    """The widths of a side's blocks in characters: one for a plain axis, equal ones for a group."""
    blocks = _blocks(label)
    if not blocks:
        return [width]
    return [max(1, (width - blocks + 1) // blocks)] * blocks


def _text_edge(label: AxisLabel, width: int, left: str, cut: str, right: str) -> str:
    return left + cut.join("─" * n for n in _segments(label, width)) + right


def _text_row(label: AxisLabel, width: int) -> str:
    return "│" + "│".join(" " * n for n in _segments(label, width)) + "│"


# ---------------------------------------------------------------------- SVG drawing


def svg_drawing(
    type_: TensorType,
    dim_values: dict[str, int],
    theme: str = "dark",
    over: str | None = None,
) -> str:
    """The picture as SVG on an opaque background in the editor's theme."""
    colours = palette(theme)
    labels = [label_of(axis, dim_values) for axis in type_.axes or ()]
    out: list[str] = []
    if not labels:
        width, height = 150, 56
        out.append(_rect(PAD, PAD, 32, 32, colours.fill, colours.stroke, "grid"))
        out.append(_text(PAD + 42, PAD + 21, "[] one number", colours.text, "caption"))
        return _svg(width, height, colours, out)
    columns = labels[-1]
    rows = labels[-2] if len(labels) >= 2 else None
    leading = labels[:-2]
    layers = min(len(leading), MAX_LAYERS)
    grid_w = side(columns)
    grid_h = side(rows) if rows is not None else 22
    shift = layers * LAYER_OFFSET
    gx, gy = PAD, PAD + 20 + shift
    right_text = caption(rows) if rows is not None else ""
    below: list[tuple[str, str]] = []
    for label in (rows, columns):
        if label is not None and _parts_caption(label):
            below.append((_parts_caption(label), "parts"))
    if leading:
        below.append((_stack_caption(leading), "stack"))
    marked = over_index(labels, over)
    over_label = labels[marked] if marked is not None else None
    if over_label is not None:
        below.append((f"over {caption(over_label)}", "over"))
    if type_.domain != REAL:
        below.append((_cut("values: " + domain_text(type_.domain)), "domain"))
    column_text = caption(columns)
    width = max(
        gx + grid_w + shift + 8 + len(right_text) * CHAR_W + PAD,
        gx + shift + len(column_text) * CHAR_W + PAD,
        *(PAD + len(text) * CHAR_W + PAD for text, _ in below),
    )
    grid_bottom = gy + grid_h
    height = grid_bottom + 8 + 17 * len(below) + PAD
    for layer in range(layers, 0, -1):
        x, y = gx + layer * LAYER_OFFSET, gy - layer * LAYER_OFFSET
        out.append(_rect(x, y, grid_w, grid_h, colours.layer, colours.stroke, "layer"))
    out.append(_rect(gx, gy, grid_w, grid_h, colours.fill, colours.stroke, "grid"))
    out.extend(_cells(columns, gx, gy, grid_w, grid_h, vertical=True, colours=colours))
    if rows is not None:
        out.extend(_cells(rows, gx, gy, grid_w, grid_h, vertical=False, colours=colours))
    if over_label is not None:
        out.extend(_over_mark(over_label, columns, rows, gx, gy, grid_w, grid_h, colours))
    out.append(_text(gx + shift, gy - shift - 7, column_text, colours.text, "columns"))
    if rows is not None:
        out.append(
            _text(gx + grid_w + shift + 8, gy + grid_h / 2 + 4, right_text, colours.text, "rows")
        )
    y = grid_bottom + 8 + 14
    for text, kind in below:
        colour = colours.accent if kind == "over" else colours.text
        out.append(_text(PAD, y, text, colour, kind))
        y += 17
    return _svg(width, height, colours, out)


def _cells(
    label: AxisLabel,
    x: float,
    y: float,
    w: float,
    h: float,
    vertical: bool,
    colours: Palette,
) -> list[str]:
    """Cell lines along one side when the size is small, block lines for a group's blocks."""
    out = []
    length = w if vertical else h
    blocks = _blocks(label)
    if blocks:
        positions = [length * k / blocks for k in range(1, blocks)]
        cls, colour, stroke = "block", colours.stroke, 2
        dash = ' stroke-dasharray="5 3"' if label.parts[0].value is None else ""

    elif label.value is not None and 1 < label.value <= MAX_CELLS:
        positions = [length * k / label.value for k in range(1, label.value)]
        cls, colour, stroke, dash = "cell", colours.faint, 1, ""
    else:
        return out
    for at in positions:
        if vertical:
            x1 = x2 = x + at
            y1, y2 = y, y + h
        else:
            y1 = y2 = y + at
            x1, x2 = x, x + w
        out.append(
            f'<line class="{cls}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{colour}" stroke-width="{stroke}"{dash}/>'
        )
    return out


def _over_mark(
    label: AxisLabel,
    columns: AxisLabel,
    rows: AxisLabel | None,
    x: float,
    y: float,
    w: float,
    h: float,
    colours: Palette,
) -> list[str]:
    """A thick accent edge along the side of the axis a stage works over."""
    if label is columns:
        line = (x, y + h + 4, x + w, y + h + 4)
    elif label is rows:
        line = (x - 5, y, x - 5, y + h)
    else:
        return []
    x1, y1, x2, y2 = line
    return [
        f'<line class="over" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
        f'stroke="{colours.accent}" stroke-width="3"/>'
    ]


def _rect(x: float, y: float, w: float, h: float, fill: str, stroke: str, cls: str) -> str:
    return (
        f'<rect class="{cls}" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
    )


def _text(x: float, y: float, text: str, colour: str, cls: str) -> str:
    return f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" fill="{colour}">{escape(text)}</text>'


def _svg(width: float, height: float, colours: Palette, body: list[str]) -> str:
    width, height = math.ceil(width), math.ceil(height)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="{FONT}">'
        f'<rect class="background" x="0" y="0" width="{width}" height="{height}" '
        f'fill="{colours.background}"/>' + "".join(body) + "</svg>"
    )


#: The room between two drawings that an arrow from one to the other takes.
ARROW_GAP = 44
#: Text drawings side by side up to this many characters a line; wider ones stack.
TEXT_BESIDE = 100


def svg_before_after(before: str, after: str, theme: str = "dark") -> str:
    """Two drawings side by side on one background, centred on a line, with an arrow
    between them at that line's height."""
    colours = palette(theme)
    (w1, h1), (w2, h2) = _svg_size(before), _svg_size(after)
    width, height = w1 + ARROW_GAP + w2, max(h1, h2)
    middle = height / 2
    x1, x2 = w1 + 8, w1 + ARROW_GAP - 8
    body = [
        before.replace("<svg ", f'<svg x="0" y="{(height - h1) / 2:.1f}" ', 1),
        after.replace("<svg ", f'<svg x="{w1 + ARROW_GAP}" y="{(height - h2) / 2:.1f}" ', 1),
        f'<path class="arrow" d="M{x1},{middle:.1f} H{x2 - 2}" stroke="{colours.text}" '
        f'stroke-width="1.6" fill="none"/>',
        f'<path class="arrow-head" d="M{x2 - 7},{middle - 5:.1f} L{x2},{middle:.1f} '
        f'L{x2 - 7},{middle + 5:.1f} Z" fill="{colours.text}"/>',
    ]
    return _svg(width, height, colours, body)


def text_before_after(before: str, after: str) -> str:
    """Two text drawings side by side, centred on a line, with `→` between them on that
    line; one above the other, `↓` between, when that is too wide."""
    first, second = before.splitlines(), after.splitlines()
    left = max((len(line) for line in first), default=0)
    right = max((len(line) for line in second), default=0)
    if left + 5 + right > TEXT_BESIDE:
        return f"{before}\n\n↓\n\n{after}"
    rows = max(len(first), len(second))
    first = _centred(first, rows)
    second = _centred(second, rows)
    middle = (rows - 1) // 2
    lines = [
        f"{a.ljust(left)}{'  →  ' if index == middle else '     '}{b}".rstrip()
        for index, (a, b) in enumerate(zip(first, second, strict=True))
    ]
    return "\n".join(lines)


def _centred(lines: list[str], rows: int) -> list[str]:
    above = (rows - len(lines)) // 2
    return [""] * above + lines + [""] * (rows - len(lines) - above)


def _svg_size(svg: str) -> tuple[int, int]:
    start = svg.index('height="') + 8
    return svg_width(svg), int(svg[start : svg.index('"', start)])


def svg_width(svg: str) -> int:
    """The width the SVG asks for, in CSS pixels: the size an editor should show it at."""
    start = svg.index('width="') + 7
    return int(svg[start : svg.index('"', start)])


def png_data_uri(svg: str, scale: float = 2.0) -> str | None:
    """The SVG rasterised to a PNG `data:` URI at `scale` × for sharp text on HiDPI screens,
    or None when cairosvg can't run here."""
    import base64

    try:
        import cairosvg
    except (ImportError, OSError):
        return None
    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=scale)
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
