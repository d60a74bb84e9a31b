"""Drawings of a function of one number: its curve, its derivative dashed, and the axes' ends.

`sample` evaluates a curve's tree on the plotted interval; `svg_curve` draws it for editors
with images and `text_curve` with Braille dots for the others.
"""

from __future__ import annotations

import math
from html import escape

from shapescript.records import record
from shapescript_lsp.features.curve_math import Tree, evaluate, slope
from shapescript_lsp.render.numbers import significant

SAMPLES = 161
#: Values past this are clipped, so that a pole (1/√x at 0) doesn't flatten the rest.
_CLIP = 10.0


@record(frozen=True)
class Samples:
    """The curve and its slope at evenly spaced xs; NaN where undefined."""

    xs: tuple[float, ...]
    ys: tuple[float, ...]
    slopes: tuple[float, ...]

    def limits(self) -> tuple[float, float]:
        """The plotted y interval: every finite value, clipped, always holding 0."""
        finite = [
            max(-_CLIP, min(_CLIP, value))
            for value in (*self.ys, *self.slopes)
            if math.isfinite(value)
        ]
        lo, hi = min([0.0, *finite]), max([0.0, *finite])
        if hi - lo < 1e-9:
            hi = lo + 1.0
        return lo, hi


def sample(tree: Tree, lo: float, hi: float, count: int = SAMPLES) -> Samples:
    xs = tuple(lo + (hi - lo) * index / (count - 1) for index in range(count))
    # A closed end of the domain (0 for Unit) is sampled just inside, so its slope exists.
    inner = tuple(min(max(x, lo + 1e-4), hi - 1e-4) for x in xs)
    ys = tuple(evaluate(tree, x) for x in xs)
    slopes = tuple(slope(tree, x) for x in inner)
    return Samples(xs, ys, slopes)


# ------------------------------------------------------------------------ SVG

_WIDTH, _HEIGHT = 320, 190
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 14, 14, 40


def _colours(dark: bool) -> dict[str, str]:
    if dark:
        return {
            "bg": "#1e1e1e",
            "axis": "#8a8a8a",
            "curve": "#4fc1ff",
            "slope": "#f0a35e",
            "text": "#e0e0e0",
        }
    return {
        "bg": "#ffffff",
        "axis": "#6e6e6e",
        "curve": "#0b62b5",
        "slope": "#c2410c",
        "text": "#1e1e1e",
    }


def svg_curve(
    samples: Samples,
    caption: str,
    dark: bool = False,
    marked: tuple[float, float] | None = None,
) -> str:
    """The curve (solid) and its derivative (dashed) with the ends of both axes labelled;
    the x interval `marked` (an input's range) shaded."""
    colour = _colours(dark)
    x_lo, x_hi = samples.xs[0], samples.xs[-1]
    y_lo, y_hi = samples.limits()
    plot_w = _WIDTH - _LEFT - _RIGHT
    plot_h = _HEIGHT - _TOP - _BOTTOM

    def px(x: float) -> float:
        return _LEFT + (x - x_lo) / (x_hi - x_lo) * plot_w

    def py(y: float) -> float:
        return _TOP + (y_hi - y) / (y_hi - y_lo) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect class="background" width="{_WIDTH}" height="{_HEIGHT}" fill="{colour["bg"]}"/>',
        f'<rect class="frame" x="{_LEFT}" y="{_TOP}" width="{plot_w}" height="{plot_h}" '
        f'fill="none" stroke="{colour["axis"]}" stroke-width="0.6"/>',
    ]
    shown = _clipped(marked, x_lo, x_hi)
    if shown is not None:
        left, right = px(shown[0]), px(shown[1])
        parts.append(
            f'<rect class="marked" x="{left:.1f}" y="{_TOP}" width="{right - left:.1f}" '
            f'height="{plot_h}" fill="{colour["curve"]}" fill-opacity="0.16"/>',
        )
        parts.append(
            f'<text class="marked-label" x="{(left + right) / 2:.1f}" y="{_TOP + 13}" '
            f'text-anchor="middle" font-size="11" fill="{colour["text"]}">input</text>'
        )
    if x_lo < 0 < x_hi:
        parts.append(_line("y-axis", px(0), _TOP, px(0), _TOP + plot_h, colour["axis"]))
    parts.append(_line("x-axis", _LEFT, py(0), _LEFT + plot_w, py(0), colour["axis"]))
    parts.append(_path("slope", samples.xs, samples.slopes, px, py, colour["slope"], dashed=True))
    parts.append(_path("curve", samples.xs, samples.ys, px, py, colour["curve"], dashed=False))
    label = f'fill="{colour["text"]}"'
    bottom = _TOP + plot_h + 15
    parts += [
        f'<text class="x-lo" x="{_LEFT}" y="{bottom}" text-anchor="middle" {label}>'
        f"{significant(x_lo)}</text>",
        f'<text class="x-hi" x="{_LEFT + plot_w}" y="{bottom}" text-anchor="middle" {label}>'
        f"{significant(x_hi)}</text>",
        f'<text class="y-hi" x="{_LEFT - 5}" y="{_TOP + 9}" text-anchor="end" {label}>'
        f"{_tick(y_hi)}</text>",
        f'<text class="y-lo" x="{_LEFT - 5}" y="{_TOP + plot_h}" text-anchor="end" {label}>'
        f"{_tick(y_lo)}</text>",
        f'<text class="caption" x="{_LEFT}" y="{_HEIGHT - 7}" {label}>{escape(caption)}</text>',
        *_legend(colour, label),
        "</svg>",
    ]
    return "".join(parts)


def _clipped(
    marked: tuple[float, float] | None, lo: float, hi: float
) -> tuple[float, float] | None:
    """The part of `marked` inside [lo, hi], or None when there is none to draw."""
    if marked is None:
        return None
    left, right = max(marked[0], lo), min(marked[1], hi)
    return (left, right) if left < right else None


def _legend(colour: dict[str, str], label: str) -> list[str]:
    """A short solid line for the function and a dashed one for its derivative."""
    y = _HEIGHT - 11
    x = _WIDTH - _RIGHT - 118
    return [
        f'<line class="legend-curve" x1="{x}" y1="{y}" x2="{x + 18}" y2="{y}" '
        f'stroke="{colour["curve"]}" stroke-width="2.4"/>',
        f'<text x="{x + 22}" y="{y + 4}" {label}>f(x)</text>',
        f'<line class="legend-slope" x1="{x + 58}" y1="{y}" x2="{x + 76}" y2="{y}" '
        f'stroke="{colour["slope"]}" stroke-width="1.6" stroke-dasharray="5 4"/>',
        f'<text x="{x + 80}" y="{y + 4}" {label}>f′(x)</text>',
    ]


def _tick(value: float) -> str:
    return significant(value)


def _line(name: str, x1: float, y1: float, x2: float, y2: float, colour: str) -> str:
    return (
        f'<line class="{name}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
        f'stroke="{colour}" stroke-width="0.8"/>'
    )


def _path(name, xs, ys, px, py, colour: str, dashed: bool) -> str:
    commands: list[str] = []
    pen_up = True
    for x, y in zip(xs, ys, strict=True):
        if not math.isfinite(y) or abs(y) > _CLIP:
            pen_up = True
            continue
        commands.append(f"{'M' if pen_up else 'L'}{px(x):.1f},{py(y):.1f}")
        pen_up = False
    dash = ' stroke-dasharray="5 4"' if dashed else ""
    width = 1.6 if dashed else 2.4
    return (
        f'<path class="{name}" d="{" ".join(commands)}" fill="none" stroke="{colour}" '
        f'stroke-width="{width}"{dash} stroke-linejoin="round"/>'
    )


# ------------------------------------------------------------------------ text

_COLUMNS, _ROWS = 40, 8
_DOTS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))


def text_curve(samples: Samples, caption: str, marked: tuple[float, float] | None = None) -> str:
    """The curve in Braille dots, its derivative dotted every other column pair; the x
    interval `marked` (an input's range) underlined with ━ below the x axis."""
    y_lo, y_hi = samples.limits()
    width, height = _COLUMNS * 2, _ROWS * 4
    cells = [[0] * _COLUMNS for _ in range(_ROWS)]

    def plot(values: tuple[float, ...], dashed: bool) -> None:
        for column in range(width):
            if dashed and column % 4 >= 2:
                continue
            index = round(column * (len(values) - 1) / (width - 1))
            value = values[index]
            if not math.isfinite(value) or abs(value) > _CLIP:
                continue
            row = round((y_hi - value) / (y_hi - y_lo) * (height - 1))
            cells[row // 4][column // 2] |= _DOTS[row % 4][column % 2]

    plot(samples.ys, dashed=False)
    plot(samples.slopes, dashed=True)
    top, bottom = _tick(y_hi), _tick(y_lo)
    margin = max(len(top), len(bottom))
    lines = []
    for index, row in enumerate(cells):
        label = top if index == 0 else bottom if index == _ROWS - 1 else ""
        lines.append(f"{label.rjust(margin)} ┤" + "".join(chr(0x2800 + bits) for bits in row))
    x_lo, x_hi = significant(samples.xs[0]), significant(samples.xs[-1])
    axis = x_lo + " " * max(1, _COLUMNS - len(x_lo) - len(x_hi) + 1) + x_hi
    lines.append(" " * (margin + 1) + axis)
    shown = _clipped(marked, samples.xs[0], samples.xs[-1])
    if shown is not None:
        span = samples.xs[-1] - samples.xs[0]
        first = round((shown[0] - samples.xs[0]) / span * (_COLUMNS - 1))
        last = round((shown[1] - samples.xs[0]) / span * (_COLUMNS - 1))
        lines.append(" " * (margin + 2 + first) + "━" * (last - first + 1))
    lines.append(caption)
    lines.append("solid: the function, dashed: its derivative")
    return "\n".join(lines)
