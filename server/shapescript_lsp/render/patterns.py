"""Drawings of a pattern operation's before and after: where each axis of the operands goes.

Each side of `b c (h p1) (w p2) -> b (h w) (p1 p2 c)` is drawn as a tensor: its last two
entries as a grid, the entries before them as a stack. A group is cut into blocks along its
side, the outer part's blocks in that part's colour, so the image shows its patch grid and
the result its rows of patches. Every axis name keeps one colour from before to after, and
one block the pattern moves (the first of the outer parts of the inputs' groups, or of the
output's when the inputs have none) is shaded on both sides.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Iterator
from html import escape

from shapescript.records import record
from shapescript_lsp.render.shapes import MAX_SIDE, MIN_SIDE, STEP, UNKNOWN_SIDE
from shapescript_lsp.render.themes import Palette, palette

FONT = 13
CHAR_W = 7.9
PAD = 12
LAYER_OFFSET = 9
MAX_LAYERS = 3
#: Size a part is drawn as when the checker doesn't know it in numbers.
NOMINAL = 4
#: Most lines drawn between a side's blocks, and between its cells.
MAX_LINES = 48
MAX_CELLS = 16
#: Most separate shaded pieces along one side.
MAX_PIECES = 64
#: Most blocks a side of the text drawing is cut into.
MAX_TEXT_BLOCKS = 8
#: Wider than this, the text drawings go one under the other.
TEXT_WIDTH = 120
MAX_CAPTION = 60

#: Axis colours, for light and for dark backgrounds.
LIGHT_AXES = (
    "#1d4ed8",
    "#b91c1c",
    "#047857",
    "#7e22ce",
    "#b45309",
    "#be185d",
    "#0e7490",
    "#4d7c0f",
)
DARK_AXES = ("#60a5fa", "#f87171", "#34d399", "#c084fc", "#fbbf24", "#f472b6", "#22d3ee", "#a3e635")
#: Opacity of the shading over the moved block, in the theme's text colour.
SHADE_OPACITY = "0.55"
#: Palette sizes tried for the PNG, the most colours first.
PNG_COLOURS = (64, 32, 16)


@record(frozen=True)
class Part:
    """One name or number of an entry; `size` is None when not known in numbers."""

    name: str | None
    size: int | None
    number: int | None = None

    @property
    def text(self) -> str:
        return self.name if self.name is not None else str(self.number)


@record(frozen=True)
class Entry:
    """One axis of a side as written: a name, a number, or a group of parts, outer first."""

    text: str
    parts: tuple[Part, ...]

    @property
    def size(self) -> int | None:
        sizes = [part.size for part in self.parts]
        return math.prod(sizes) if all(s is not None for s in sizes) else None  # type: ignore[misc]

    @property
    def grouped(self) -> bool:
        return len(self.parts) > 1


@record(frozen=True)
class Side:
    """One operand or the result: what it is (`x`, `result`) and its entries."""

    title: str
    entries: tuple[Entry, ...]

    @property
    def text(self) -> str:
        return " ".join(entry.text for entry in self.entries)


@record(frozen=True)
class PatternPicture:
    inputs: tuple[Side, ...]
    output: Side


# ---------------------------------------------------------------------- what moves


def axis_names(picture: PatternPicture) -> list[str]:
    """Every axis name, in the order it first appears: the order colours are given in."""
    names: list[str] = []
    for side in (*picture.inputs, picture.output):
        for entry in side.entries:
            for part in entry.parts:
                if part.name is not None and part.name not in names:
                    names.append(part.name)
    return names


def tracked(picture: PatternPicture) -> frozenset[str]:
    """The names held at their first index for the shaded block: in each of the inputs'
    groups (or the output's, when the inputs have none), the first name before its last part,
    as `h` in `(h p1)` and `H` in `(3 H Dh)`."""
    for sides in (picture.inputs, (picture.output,)):
        names = {
            name
            for side in sides
            for entry in side.entries
            if (name := _held_part(entry)) is not None
        }
        if names:
            return frozenset(names)
    return frozenset()


def _held_part(entry: Entry) -> str | None:
    for part in entry.parts[:-1]:
        if part.name is not None and part.size != 1:
            return part.name
    return None


def _nominal(part: Part) -> int:
    return part.size if part.size is not None and part.size > 0 else NOMINAL


def _flat_pieces(parts: tuple[Part, ...], held: frozenset[str]) -> list[tuple[int, int]] | None:
    """The flat index ranges where the held names are 0, or None when too scattered to draw."""
    if not parts:
        return [(0, 1)]
    inner = _flat_pieces(parts[1:], held)
    if inner is None:
        return None
    block = math.prod(_nominal(part) for part in parts[1:])
    first = _nominal(parts[0])
    fixed = parts[0].name in held
    if not fixed and inner == [(0, block)]:
        return [(0, first * block)]
    choices = [0] if fixed else range(first)
    if len(choices) * len(inner) > MAX_PIECES:
        return None
    return [(c * block + a, c * block + b) for c in choices for a, b in inner]


def region(entry: Entry, held: frozenset[str]) -> list[tuple[float, float]] | None:
    """The shaded block along an entry, as fractions of its length; None when it is all."""
    if not any(part.name in held for part in entry.parts):
        return None
    pieces = _flat_pieces(entry.parts, held)
    if pieces is None:
        return None
    total = math.prod(_nominal(part) for part in entry.parts)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(pieces):
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return [(start / total, end / total) for start, end in merged]


def _front_only(leading: tuple[Entry, ...], held: frozenset[str]) -> bool:
    """Whether the shaded block is in the stack's front grid only."""
    return any(part.name in held for entry in leading for part in entry.parts)


# ---------------------------------------------------------------------- captions


def entry_caption(entry: Entry) -> str:
    """`n`, `D = 8`, `(h p1) = 4×4 = 16`."""
    text = entry.text
    sizes = [part.size for part in entry.parts]
    if entry.grouped and all(s is not None for s in sizes):
        text += " = " + "×".join(str(s) for s in sizes)
    if (
        entry.size is not None
        and str(entry.size) != entry.text
        and not text.endswith(f"= {entry.size}")
    ):
        text += f" = {entry.size}"
    return _cut(text)


def _cut(text: str, limit: int = MAX_CAPTION) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _stack_caption(leading: tuple[Entry, ...]) -> str:
    text = "stack of " + " × ".join(entry.text for entry in leading)
    sizes = [entry.size for entry in leading]
    if all(s is not None for s in sizes) and any(str(e.size) != e.text for e in leading):
        text += " = " + str(math.prod(sizes))  # type: ignore[arg-type]
    return _cut(text)


def _held_caption(held: frozenset[str], picture: PatternPicture) -> str:
    names = [name for name in axis_names(picture) if name in held]
    return "shaded: " + ", ".join(f"{name} = 0" for name in names) + ", before and after"


def _places(picture: PatternPicture) -> dict[str, list[str]]:
    """Where each name is on each side: `axis 3, outer of (h p1)`, or `-` when absent."""
    sides = (*picture.inputs, picture.output)
    places: dict[str, list[str]] = {name: ["-"] * len(sides) for name in axis_names(picture)}
    for index, side in enumerate(sides):
        for position, entry in enumerate(side.entries):
            for rank, part in enumerate(entry.parts):
                if part.name is None:
                    continue
                where = f"axis {position + 1}"
                if entry.grouped:
                    role = (
                        "outer"
                        if rank == 0
                        else "inner"
                        if rank == len(entry.parts) - 1
                        else "middle"
                    )
                    where += f", {role} of {entry.text}"
                places[part.name][index] = where
    return places


# ---------------------------------------------------------------------- text drawing


def text_pattern(picture: PatternPicture) -> str:
    """The sides as text grids with → between them, then where each axis goes."""
    held = tracked(picture)
    panels = [_text_panel(side, held) for side in picture.inputs]
    output = _text_panel(picture.output, held)
    lines = _beside([*panels, output]) if _fits([*panels, output]) else _under(panels, output)
    lines.append("")
    places = _places(picture)
    sizes = _name_sizes(picture)
    width = max((len(_named(name, sizes)) for name in places), default=0)
    for name, where in places.items():
        before = " | ".join(where[:-1])
        lines.append(f"{_named(name, sizes).ljust(width)}  {before}  →  {where[-1]}")
    if held:
        lines.append("▒ " + _held_caption(held, picture))
    return "\n".join(line.rstrip() for line in lines)


def _name_sizes(picture: PatternPicture) -> dict[str, int | None]:
    sizes: dict[str, int | None] = {}
    for side in (*picture.inputs, picture.output):
        for entry in side.entries:
            for part in entry.parts:
                if part.name is not None and sizes.get(part.name) is None:
                    sizes[part.name] = part.size
    return sizes


def _named(name: str, sizes: dict[str, int | None]) -> str:
    size = sizes.get(name)
    return f"{name} = {size}" if size is not None and str(size) != name else name


def _fits(panels: list[list[str]]) -> bool:
    return sum(max(map(len, panel)) for panel in panels) + 5 * len(panels) <= TEXT_WIDTH


def _beside(panels: list[list[str]]) -> list[str]:
    height = max(len(panel) for panel in panels)
    widths = [max(map(len, panel)) for panel in panels]
    middle = min(height - 1, 3)
    lines = []
    for row in range(height):
        cells = []
        for index, panel in enumerate(panels):
            cells.append((panel[row] if row < len(panel) else "").ljust(widths[index]))
            if index < len(panels) - 1:
                joint = "  →  " if index == len(panels) - 2 else "  ,  "
                cells.append(joint if row == middle else " " * len(joint))
        lines.append("".join(cells))
    return lines


def _under(inputs: list[list[str]], output: list[str]) -> list[str]:
    lines: list[str] = []
    for panel in inputs:
        lines.extend(panel)
        lines.append("")
    lines.append("→")
    lines.extend(output)
    return lines


def _text_blocks(entry: Entry) -> int:
    if not entry.grouped:
        return 1
    count = _nominal(entry.parts[0])
    return count if 1 < count <= MAX_TEXT_BLOCKS else 1


def _covered(units: int, pieces: list[tuple[float, float]] | None) -> set[int]:
    """The units (of `units` along a side) a shaded block touches; all of them when None."""
    if pieces is None:
        return set(range(units))
    hit = set()
    for start, end in pieces:
        first = min(units - 1, int(start * units))
        last = max(first, math.ceil(end * units) - 1)
        hit.update(range(first, min(last, units - 1) + 1))
    return hit


def _text_panel(side: Side, held: frozenset[str]) -> list[str]:
    lines = [_cut(f"{side.title}: {side.text}" if side.text else f"{side.title}: []")]
    entries = side.entries
    if not entries:
        return [*lines, "┌─┐", "└─┘", "one number"]
    columns = entries[-1]
    rows = entries[-2] if len(entries) >= 2 else None
    leading = entries[:-2]
    shade = bool(held) and any(part.name in held for entry in entries for part in entry.parts)
    col_blocks = _text_blocks(columns)
    width = max(6, round(_side(columns) / 8))
    col_width = max(2, (width - col_blocks + 1) // col_blocks)
    row_blocks = _text_blocks(rows) if rows is not None else 1
    row_height = 1
    if rows is not None and row_blocks == 1:
        row_height = max(1, min(4, round(_side(rows) / 40)))
    col_units = _covered(col_blocks, region(columns, held))
    row_units = _covered(row_blocks * row_height, region(rows, held) if rows else None)
    lines.append(entry_caption(columns))

    def edge(left: str, cut: str, right: str) -> str:
        return left + cut.join("─" * col_width for _ in range(col_blocks)) + right

    lines.append(edge("┌", "┬", "┐"))
    for block in range(row_blocks):
        if block:
            lines.append(edge("├", "┼", "┤"))
        for line in range(row_height):
            unit = block * row_height + line
            cells = [
                ("▒" if shade and unit in row_units and column in col_units else " ") * col_width
                for column in range(col_blocks)
            ]
            text = "│" + "│".join(cells) + "│"
            if rows is not None and block == 0 and line == 0:
                text += " " + entry_caption(rows)
            lines.append(text)
    lines.append(edge("└", "┴", "┘"))
    if leading:
        caption = _stack_caption(leading)
        if shade and _front_only(leading, held):
            caption += " (▒ in the first)"
        lines.append(caption)
    return lines


# ---------------------------------------------------------------------- SVG drawing


def _side(entry: Entry | None) -> float:
    if entry is None:
        return 22
    size = entry.size
    if size is None:
        return UNKNOWN_SIDE
    return min(MAX_SIDE, MIN_SIDE + STEP * math.log2(max(size, 1)))


def axis_colours(picture: PatternPicture, theme: str) -> dict[str, str]:
    """One colour per axis name, the same on every side."""
    hues = LIGHT_AXES if theme in ("light", "highContrastLight") else DARK_AXES
    return {name: hues[index % len(hues)] for index, name in enumerate(axis_names(picture))}


class _Canvas:
    """SVG elements in a theme's colours and the axes' colours."""

    def __init__(self, colours: Palette, axes: dict[str, str]) -> None:
        self.colours = colours
        self.axes = axes
        self.out: list[str] = []

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        fill: str,
        cls: str,
        stroke: str | None = None,
        extra: str = "",
    ) -> None:
        stroke = stroke or self.colours.stroke
        self.out.append(
            f'<rect class="{cls}" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"{extra}/>'
        )

    def lines(
        self,
        segments: list[tuple[float, float, float, float]],
        colour: str,
        width: float,
        cls: str,
        extra: str = "",
    ) -> None:
        """Several lines of one look as one path: cairosvg's time goes with the elements."""
        if not segments:
            return
        d = "".join(f"M{x1:.1f} {y1:.1f}L{x2:.1f} {y2:.1f}" for x1, y1, x2, y2 in segments)
        self.out.append(
            f'<path class="{cls}" d="{d}" fill="none" stroke="{colour}" '
            f'stroke-width="{width}"{extra}/>'
        )

    def text(
        self, x: float, y: float, cls: str, pieces: list[tuple[str, str]], extra: str = ""
    ) -> None:
        """Text made of (text, colour) pieces: the text colour's as plain text, the others
        (names in their axis's colour) as tspans, few of them, since each costs cairosvg."""
        merged: list[tuple[str, str]] = []
        for text, colour in pieces:
            if merged and merged[-1][1] == colour:
                merged[-1] = (merged[-1][0] + text, colour)
            elif text:
                merged.append((text, colour))
        body = "".join(
            escape(text)
            if colour == self.colours.text
            else f'<tspan fill="{colour}">{escape(text)}</tspan>'
            for text, colour in merged
        )
        self.out.append(
            f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" fill="{self.colours.text}"{extra}>'
            f"{body}</text>"
        )

    def coloured(self, text: str) -> list[tuple[str, str]]:
        """`text` cut into names (in their colours) and the rest (in the text colour)."""
        pieces: list[tuple[str, str]] = []
        word = ""
        for char in text + " ":
            if char.isalnum() or char == "_":
                word += char
                continue
            if word:
                pieces.append((word, self.axes.get(word, self.colours.text)))
                word = ""
            pieces.append((char, self.colours.text))
        pieces[-1] = (pieces[-1][0][:-1], pieces[-1][1])
        return pieces


def _panel_size(side: Side) -> tuple[float, float]:
    entries = side.entries
    if not entries:
        return PAD + 110, 90
    columns = entries[-1]
    rows = entries[-2] if len(entries) >= 2 else None
    layers = min(len(entries) - 2, MAX_LAYERS) if len(entries) > 2 else 0
    shift = layers * LAYER_OFFSET
    right = len(entry_caption(rows)) * CHAR_W + 8 if rows is not None else 0
    texts = [f"{side.title}: {side.text}", entry_caption(columns)]
    if len(entries) > 2:
        texts.append(_stack_caption(entries[:-2]) + " (shaded: first)")
    width = max(_side(columns) + shift + right, *(len(t) * CHAR_W for t in texts))
    height = 20 + 20 + shift + _side(rows) + (22 if len(entries) > 2 else 4)
    return width, height


def _draw_panel(canvas: _Canvas, side: Side, x: float, y: float, held: frozenset[str]) -> None:
    colours = canvas.colours
    canvas.text(x, y + 14, "side", canvas.coloured(f"{side.title}: {side.text}"))
    entries = side.entries
    if not entries:
        canvas.rect(x, y + 30, 32, 32, colours.fill, "grid")
        canvas.text(x + 42, y + 51, "caption", [("one number", colours.text)])
        return
    columns = entries[-1]
    rows = entries[-2] if len(entries) >= 2 else None
    leading = entries[:-2]
    layers = min(len(leading), MAX_LAYERS)
    shift = layers * LAYER_OFFSET
    grid_w, grid_h = _side(columns), _side(rows)
    gx, gy = x, y + 40 + shift
    canvas.text(gx + shift, gy - shift - 7, "columns", canvas.coloured(entry_caption(columns)))
    shade = any(part.name in held for entry in entries for part in entry.parts)
    front = _front_only(leading, held)
    for layer in range(layers, 0, -1):
        at = layer * LAYER_OFFSET
        canvas.rect(gx + at, gy - at, grid_w, grid_h, colours.layer, "layer")
    canvas.rect(gx, gy, grid_w, grid_h, colours.fill, "grid")
    _cuts(canvas, columns, gx, gy, grid_w, grid_h, vertical=True)
    if rows is not None:
        _cuts(canvas, rows, gx, gy, grid_w, grid_h, vertical=False)
        canvas.text(
            gx + grid_w + shift + 8,
            gy + grid_h / 2 + 4,
            "rows",
            canvas.coloured(entry_caption(rows)),
        )
    if shade:
        col_pieces = region(columns, held) or [(0.0, 1.0)]
        row_pieces = (region(rows, held) if rows is not None else None) or [(0.0, 1.0)]
        for c0, c1 in col_pieces:
            for r0, r1 in row_pieces:
                canvas.rect(
                    gx + c0 * grid_w,
                    gy + r0 * grid_h,
                    max(3.0, (c1 - c0) * grid_w),
                    max(3.0, (r1 - r0) * grid_h),
                    colours.text,
                    "tracked",
                    stroke=colours.accent,
                    extra=f' fill-opacity="{SHADE_OPACITY}"',
                )
    if leading:
        caption = _stack_caption(leading) + (" (shaded: first)" if shade and front else "")
        canvas.text(x, gy + grid_h + 18, "stack", canvas.coloured(caption))


def _cuts(
    canvas: _Canvas, entry: Entry, x: float, y: float, w: float, h: float, vertical: bool
) -> None:
    """Lines between an entry's blocks: a group's outer level thick and its next level thin,
    each in its part's colour; a plain axis's cells thin, when there are few."""
    length = w if vertical else h
    total = math.prod(_nominal(part) for part in entry.parts)
    levels = entry.parts[:2] if entry.grouped else entry.parts
    drawn: set[int] = set()
    for level, part in enumerate(levels):
        step = math.prod(_nominal(p) for p in entry.parts[level + 1 :])
        count = total // step
        if count < 2 or count > (MAX_LINES if entry.grouped and level == 0 else MAX_CELLS):
            continue
        if not entry.grouped and part.size is None:
            continue
        colour = canvas.axes.get(part.name or "", canvas.colours.faint)
        outer = entry.grouped and level == 0
        width, cls = (2.5, "block") if outer else (1, "cell")
        extra = ' stroke-dasharray="5 3"' if part.size is None else ""
        if not outer:
            extra += ' stroke-opacity="0.7"'
        segments = []
        for k in range(1, count):
            if k * step in drawn:
                continue
            drawn.add(k * step)
            at = length * k * step / total
            if vertical:
                segments.append((x + at, y, x + at, y + h))
            else:
                segments.append((x, y + at, x + w, y + at))
        canvas.lines(segments, colour, width, cls, extra)


def svg_pattern(picture: PatternPicture, theme: str = "dark") -> str:
    """The inputs, an arrow and the output, in the editor's theme."""
    colours = palette(theme)
    canvas = _Canvas(colours, axis_colours(picture, theme))
    held = tracked(picture)
    sides = [*picture.inputs, picture.output]
    sizes = [_panel_size(side) for side in sides]
    gap = 56
    x = PAD
    height = max(h for _, h in sizes)
    for index, (side, (w, _)) in enumerate(zip(sides, sizes, strict=True)):
        _draw_panel(canvas, side, x, PAD, held)
        x += w
        if index < len(sides) - 1:
            mark = "→" if index == len(sides) - 2 else ","
            canvas.text(
                x + gap / 2 - 8,
                PAD + 40 + height / 3,
                "arrow",
                [(mark, colours.text)],
                extra=' font-size="22"',
            )
            x += gap
    bottom = PAD + height
    if held:
        bottom += 18
        canvas.text(PAD, bottom, "legend", canvas.coloured(_held_caption(held, picture)))
        legend_w = len(_held_caption(held, picture)) * CHAR_W
        x = max(x, PAD + legend_w)
    return _svg(x + PAD, bottom + PAD, colours, canvas.out)


def _svg(width: float, height: float, colours: Palette, body: list[str]) -> str:
    width, height = math.ceil(width), math.ceil(height)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="{FONT}">'
        f'<rect class="background" x="0" y="0" width="{width}" height="{height}" '
        f'fill="{colours.background}"/>' + "".join(body) + "</svg>"
    )


def png_uri(svg: str, limit: int) -> str | None:
    """The SVG at 2x as a PNG `data:` URI of few colours, which keeps a wide picture small;
    None when no rendering fits in `limit` characters or cairosvg can't run here."""
    try:
        import cairosvg
    except (ImportError, OSError):
        return None
    try:
        import PIL  # noqa: F401 (only whether it is here)
    except ImportError:
        candidates: Iterator[bytes] = iter([cairosvg.svg2png(bytestring=svg.encode(), scale=2)])
    else:
        candidates = _fewer_colours(_pixels(svg))
    for data in candidates:
        uri = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
        if len(uri) <= limit:
            return uri
    return None


def _pixels(svg: str):
    """The SVG drawn at 2x, as a Pillow RGB image read from cairo's own pixels: cairosvg's
    PNG would be compressed only to be read back."""
    from cairosvg.parser import Tree
    from cairosvg.surface import PNGSurface
    from PIL import Image

    surface = PNGSurface(Tree(bytestring=svg.encode("utf-8")), None, 96, scale=2).cairo
    surface.flush()
    size = (surface.get_width(), surface.get_height())
    data = bytes(surface.get_data())
    return Image.frombuffer("RGBA", size, data, "raw", "BGRA", surface.get_stride(), 1).convert(
        "RGB"
    )


def _fewer_colours(image) -> Iterator[bytes]:
    """The image as PNGs of fewer and fewer colours, each made only when the one before
    was too big."""
    from PIL import Image

    background = image.getpixel((0, 0))
    for colours in PNG_COLOURS:
        quantized = image.quantize(colors=colours, method=Image.Quantize.FASTOCTREE)
        # The fast quantizer moves colours a little: the background keeps its own.
        palette = quantized.getpalette()
        index = quantized.getpixel((0, 0))
        palette[3 * index : 3 * index + 3] = background
        quantized.putpalette(palette)
        buffer = io.BytesIO()
        quantized.save(buffer, "PNG")
        yield buffer.getvalue()
