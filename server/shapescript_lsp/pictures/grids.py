"""Values drawn as grids: one 2-D slice of each tensor, as SVG and as text.

A grid is shaded from its smallest value to its largest (which its caption says); a Prob
row from 0 to 1, with its sum at the row's end; an Index of one axis as a 1 where it
points among 0s; −∞ as a dashed cell. Outlined cells show what depends on what, and
hatched ones the background a structure promises (above a causal mask's diagonal).
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from shapescript.records import record
from shapescript_lsp.render.numbers import GridLabels, grid_labels, significant
from shapescript_lsp.render.themes import DEFAULT_THEME, Palette, palette

MAX_ROWS, MAX_COLUMNS = 8, 10
CELL_W, CELL_H = 46, 24
PAD = 10
CAPTION_H = 20
SUM_W = 56
#: About how wide a caption's character is, so captions don't run into the next grid.
CAPTION_CHAR_W = 7.5
SCALE = 2
SHADES = "·░▒▓█"
DEPENDS = "●"
#: A cell of the background a structure promises, in the text drawing.
BACKGROUND = "╱"
#: How values are shaded on a light and on a dark background: the smallest value's colour,
#: the largest's, and the ink of a number on a cell past the middle.
LIGHT_SHADING = ((238, 242, 250), (25, 70, 170), "#ffffff")
DARK_SHADING = ((38, 46, 58), (120, 185, 255), "#111111")


@record
class Grid:
    """A slice to draw: its caption, rows of values (None for −∞), how it is shaded
    ("range", "prob", "onehot" or "mask"), and the full range of the tensor's values."""

    caption: str
    rows: list[list[float | None]]
    shading: str = "range"
    low: float = 0.0
    high: float = 1.0
    #: Cells outlined: the input value changed, or the result values that changed.
    marks: frozenset[tuple[int, int]] = frozenset()
    #: Cells where the value's structure promises its background, hatched.
    background: frozenset[tuple[int, int]] = frozenset()

    def sums(self) -> list[float]:
        return [sum(value for value in row if value is not None) for row in self.rows]


def grid(
    caption: str,
    value: Any,
    shading: str = "range",
    classes: int = 0,
    marks: frozenset[tuple[int, int]] = frozenset(),
    background: frozenset[tuple[int, int]] = frozenset(),
) -> Grid:
    """The grid of a tensor's value (nested lists): index 0 along all but its last two axes,
    at most 8 rows and 10 columns. With `classes`, an index tensor is drawn one-hot;
    `background` are the cells a structure promises are its background."""
    rows = _slice(value)
    if shading == "onehot":
        picks = [int(v) for v in rows[0]] if len(rows) == 1 else [int(row[0]) for row in rows]
        rows = [[1.0 if column == pick else 0.0 for column in range(classes)] for pick in picks]
    rows = [[_finite(v) for v in row[:MAX_COLUMNS]] for row in rows[:MAX_ROWS]]
    values = [v for row in rows for v in row if v is not None]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    if shading in ("prob", "onehot", "mask"):
        low, high = 0.0, 1.0
    return Grid(caption, rows, shading, low, high, marks, background)


def above_diagonal(rows: int, columns: int) -> frozenset[tuple[int, int]]:
    """The cells of a grid whose column is above its row: a causal structure's background."""
    shown_rows, shown_columns = min(rows, MAX_ROWS), min(columns, MAX_COLUMNS)
    return frozenset((r, c) for r in range(shown_rows) for c in range(shown_columns) if c > r)


def slice_2d(value: Any) -> list[list[Any]]:
    """The rows `grid` draws: index 0 along all but the last two axes, at most 8 × 10."""
    return [row[:MAX_COLUMNS] for row in _slice(value)[:MAX_ROWS]]


def _slice(value: Any) -> list[list[Any]]:
    if not isinstance(value, list):
        return [[value]]
    while value and isinstance(value[0], list) and value[0] and isinstance(value[0][0], list):
        value = value[0]
    if value and isinstance(value[0], list):
        return value
    return [value]


def _finite(value: Any) -> float | None:
    number = float(value)
    if number == -math.inf:
        return None
    return number


def _level(grid_: Grid, value: float) -> float:
    if grid_.high == grid_.low:
        return 0.5
    return max(0.0, min(1.0, (value - grid_.low) / (grid_.high - grid_.low)))


def labels(grid_: Grid) -> GridLabels:
    """How the grid's numbers are written: a Prob's with two decimals, others with the
    digits their largest value needs, in one power of ten shown beside the range."""
    if grid_.shading == "prob":
        return GridLabels(0, 2)
    return grid_labels(value for row in grid_.rows for value in row if value is not None)


def _cell_text(grid_: Grid, value: float, written: GridLabels) -> str:
    if grid_.shading == "mask":
        return "true" if value else "false"
    return written.cell(value)


def range_text(grid_: Grid) -> str:
    if grid_.shading == "prob":
        return "0 … 1"
    if grid_.shading == "onehot":
        return "one-hot"
    if grid_.shading == "mask":
        return "false … true"
    return labels(grid_).range(grid_.low, grid_.high)


# ---------------------------------------------------------------------- SVG


@record(frozen=True)
class Colours:
    """A picture's colours in an editor theme."""

    background: str
    ink: str
    mark: str
    low: tuple[int, int, int]
    high: tuple[int, int, int]
    high_ink: str


def colours(theme: str) -> Colours:
    chosen: Palette = palette(theme)
    dark = theme in ("dark", "highContrast")
    low, high, high_ink = DARK_SHADING if dark else LIGHT_SHADING
    return Colours(chosen.background, chosen.text, chosen.accent, low, high, high_ink)


def svg(grids: list[Grid], arrow_after: int, theme: str = DEFAULT_THEME) -> str:
    """The grids side by side, an arrow after the first `arrow_after` (the inputs), in
    the colours of the editor's theme on an opaque background."""
    ink = colours(theme)
    parts: list[str] = []
    x = PAD
    height = 0
    for index, grid_ in enumerate(grids):
        if index == arrow_after and index > 0:
            parts.append(_arrow(x, PAD + CAPTION_H * 2 + CELL_H, ink))
            x += 40
        drawn, width, tall = _svg_grid(grid_, x, PAD, ink)
        parts.append(drawn)
        x += width + PAD * 2
        height = max(height, tall)
    width, height = x, height + PAD * 2
    if any(grid_.background for grid_ in grids):
        parts.insert(0, _hatch())
    body = "".join(parts)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * SCALE}" '
        f'height="{height * SCALE}" viewBox="0 0 {width} {height}" '
        f'font-family="DejaVu Sans, Arial, sans-serif">'
        f'<rect width="{width}" height="{height}" fill="{ink.background}"/>{body}</svg>'
    )


def _hatch() -> str:
    """The pattern background cells are hatched with: gray diagonals."""
    return (
        '<defs><pattern id="background-hatch" width="6" height="6" '
        'patternUnits="userSpaceOnUse"><path d="M0 6 L6 0" stroke="#888888" '
        'stroke-width="1.6"/></pattern></defs>'
    )


def _arrow(x: float, y: float, ink: Colours) -> str:
    return f'<text class="arrow" x="{x + 8}" y="{y}" font-size="22" fill="{ink.ink}">→</text>'


def _svg_grid(grid_: Grid, x: float, y: float, ink: Colours) -> tuple[str, float, float]:
    columns = max((len(row) for row in grid_.rows), default=1)
    sums = grid_.shading == "prob"
    width = max(columns * CELL_W + (SUM_W if sums else 0), len(grid_.caption) * CAPTION_CHAR_W)
    out = [
        f'<text class="caption" x="{x}" y="{y + 14}" font-size="13" fill="{ink.ink}">'
        f"{escape(grid_.caption)}</text>",
        f'<text class="range" x="{x}" y="{y + CAPTION_H + 12}" font-size="11" '
        f'fill="{ink.ink}">{escape(range_text(grid_))}</text>',
    ]
    top = y + CAPTION_H * 2
    written = labels(grid_)
    for r, row in enumerate(grid_.rows):
        for c, value in enumerate(row):
            cx, cy = x + c * CELL_W, top + r * CELL_H
            if value is None:
                out.append(
                    f'<rect class="cell neginf" x="{cx + 1}" y="{cy + 1}" width="{CELL_W - 2}" '
                    f'height="{CELL_H - 2}" fill="{ink.background}" stroke="{ink.ink}" '
                    f'stroke-dasharray="3 2"/>'
                    f'<text x="{cx + CELL_W / 2}" y="{cy + 16}" font-size="11" fill="{ink.ink}" '
                    f'text-anchor="middle">−∞</text>'
                )
                continue
            level = _level(grid_, value)
            fill = "#" + "".join(
                f"{round(a + (b - a) * level):02x}" for a, b in zip(ink.low, ink.high, strict=True)
            )
            number = ink.high_ink if level > 0.55 else ink.ink
            mark = f' stroke="{ink.mark}" stroke-width="3"' if (r, c) in grid_.marks else ""
            kind = "cell marked" if mark else "cell"
            out.append(
                f'<rect class="{kind}" data-value="{value:.4g}" x="{cx + 2}" y="{cy + 2}" '
                f'width="{CELL_W - 4}" height="{CELL_H - 4}" fill="{fill}"{mark}/>'
                f'<text x="{cx + CELL_W / 2}" y="{cy + 16}" font-size="11" fill="{number}" '
                f'text-anchor="middle">{_cell_text(grid_, value, written)}</text>'
            )
    for r, c in sorted(grid_.background):
        cx, cy = x + c * CELL_W, top + r * CELL_H
        out.append(
            f'<rect class="cell background" x="{cx + 1}" y="{cy + 1}" width="{CELL_W - 2}" '
            f'height="{CELL_H - 2}" fill="url(#background-hatch)" '
            f'stroke="#888888" stroke-dasharray="3 2"/>'
        )
    for r, total in enumerate(grid_.sums() if sums else []):
        out.append(
            f'<text class="sum" x="{x + columns * CELL_W + 6}" y="{top + r * CELL_H + 16}" '
            f'font-size="12" fill="{ink.ink}">Σ {significant(round(total, 2))}</text>'
        )
    return "".join(out), width, CAPTION_H * 2 + len(grid_.rows) * CELL_H


# ---------------------------------------------------------------------- text


def text(grids: list[Grid], arrow_after: int) -> str:
    """The grids one under the other, in shade characters (● for an outlined cell), with
    an arrow line between the inputs and the result."""
    blocks = []
    for index, grid_ in enumerate(grids):
        if index == arrow_after and index > 0:
            blocks.append("↓")
        blocks.append(_text_grid(grid_))
    return "\n\n".join(blocks)


def _text_grid(grid_: Grid) -> str:
    lines = [f"{grid_.caption}   ({range_text(grid_)})"]
    sums = grid_.sums()
    for r, row in enumerate(grid_.rows):
        cells = []
        for c, value in enumerate(row):
            if (r, c) in grid_.marks:
                cells.append(DEPENDS)
                continue
            if (r, c) in grid_.background:
                cells.append(BACKGROUND)
                continue
            if value is None:
                cells.append("╌")
                continue
            cells.append(SHADES[min(len(SHADES) - 1, int(_level(grid_, value) * len(SHADES)))])
        line = " ".join(cells)
        if grid_.shading == "prob":
            line += f"   Σ {significant(round(sums[r], 2))}"
        lines.append(line)
    return "\n".join(lines)
