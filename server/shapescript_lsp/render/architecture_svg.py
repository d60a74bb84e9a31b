"""A model's architecture as an SVG, top to bottom, one box per layer or operation.

Text and lines are in `currentColor`, so a view can color them as its theme does; each
kind of layer has an accent (blue for linear layers, MLPs and embeddings, green for
activations, purple for norms, orange for attention and softmax, red for losses). Each
box is a `<g data-node="id">`, so a view can find the code it was drawn from. With a
theme, the same drawing is made for a PNG: text in the theme's color on its background.
Texts are measured at a generous glyph width: the drawing widens for the labels beside
the boxes, and a label too long for its box is cut with `…`, the whole of it in the
box's `<title>` (its tooltip).
"""

from __future__ import annotations

import math
from html import escape

from shapescript.architecture.nodes import Architecture, Node
from shapescript.architecture.text import box_label
from shapescript.records import record
from shapescript_lsp.render.themes import palette

ACCENTS = {
    "dark": {
        "blue": "#3794ff",
        "green": "#89d185",
        "purple": "#b180d7",
        "orange": "#d18616",
        "red": "#f14c4c",
    },
    "light": {
        "blue": "#1a85ff",
        "green": "#388a34",
        "purple": "#652d90",
        "orange": "#b85c00",
        "red": "#e51400",
    },
}
KIND_ACCENTS = {
    "linear": "blue",
    "mlp": "blue",
    "embedding": "blue",
    "position": "blue",
    "conv": "blue",
    "patch": "blue",
    "activation": "green",
    "norm": "purple",
    "attention": "orange",
    "softmax": "orange",
    "loss": "red",
}
MARGIN = 44
BOX_WIDTH = 400
SIDE_WIDTH = 280
INSET = 14
GAP = 18
PARAM_ROW = 18
FONT = "font-family=\"-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif\""
#: Average glyph widths, in ems, generous for the sans-serif fonts views fall back to.
GLYPH = 0.62
BOLD_GLYPH = 0.68
ELLIPSIS = "…"


def text_width(value: str, size: int = 12, weight: int = 400) -> float:
    """How wide a text may be drawn, at most."""
    return len(value) * size * (BOLD_GLYPH if weight > 400 else GLYPH)


def fitted(value: str, room: float, size: int = 12, weight: int = 400) -> str:
    """The text, cut with `…` to fit `room` pixels."""
    if text_width(value, size, weight) <= room:
        return value
    keep = max(0, int(room / text_width("x", size, weight)) - 1)
    return value[:keep].rstrip() + ELLIPSIS


@record
class Placed:
    """Where a box was drawn: its top, bottom and the middle of its left edge."""

    top: float
    bottom: float
    left: float


class Drawing:
    """Lays the boxes out from top to bottom and writes the SVG's elements."""

    def __init__(self, found: Architecture, theme: str | None) -> None:
        self.found = found
        self.theme = theme
        shade = "light" if theme in ("light", "highContrastLight") else "dark"
        self.accents = ACCENTS[shade]
        self.ink = palette(theme).text if theme else "currentColor"
        self.parts: list[str] = []
        self.placed: dict[int, Placed] = {}
        self.y = 8.0
        self.operations = found.detail == "operations"
        #: The rightmost edge a text reaches, which the drawing's width takes in.
        self.right = 0.0

    def accent(self, node: Node) -> str | None:
        name = KIND_ACCENTS.get(node.kind)
        return self.accents[name] if name else None

    def draw(self) -> tuple[str, int, int]:
        for section in self.found.sections:
            self.header(section.function, f"{section.path.rsplit('/', 1)[-1]}:{section.line}")
            previous: Placed | None = None
            for node in section.nodes:
                previous = self.node(node, 0, previous)
            self.y += GAP
        width = max(MARGIN + BOX_WIDTH + SIDE_WIDTH, math.ceil(self.right) + 16)
        height = int(self.y)
        background = (
            f'<rect width="{width}" height="{height}" fill="{palette(self.theme).background}"/>'
            if self.theme
            else ""
        )
        svg = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" color="{self.ink}" {FONT} font-size="12">'
            f"{background}"
            '<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" '
            'markerHeight="7" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="currentColor"/>'
            "</marker></defs>" + "".join(self.parts) + "</svg>"
        )
        return svg, width, height

    def header(self, function: str, place: str) -> None:
        self.y += 14
        after = MARGIN + 8 + text_width(function, weight=600)
        self.parts.append(
            f'<g data-link="{escape(function)}"><text x="{MARGIN}" y="{self.y:.0f}" '
            f'font-size="12" font-weight="600" fill="currentColor">{escape(function)}</text>'
            f'<text x="{after:.0f}" y="{self.y:.0f}" font-size="12" opacity="0.7" '
            f'fill="currentColor">{escape(place)}</text></g>'
        )
        self.right = max(self.right, after + text_width(place))
        self.y += 12

    def node(self, node: Node, depth: int, previous: Placed | None) -> Placed:
        left = MARGIN + depth * INSET
        width = BOX_WIDTH - 2 * depth * INSET
        if previous is not None:
            self.arrow(left + width / 2, previous.bottom, self.y + GAP)
        self.y += GAP if previous is not None else 6
        if node.children:
            placed = self.frame(node, depth, left, width)
        elif node.kind == "residual" or node.arrow == "⊕":
            placed = self.residual(node, left, width)
        else:
            placed = self.box(node, left, width)
        self.placed[node.value] = placed
        return placed

    def arrow(self, x: float, top: float, bottom: float) -> None:
        self.parts.append(
            f'<line x1="{x:.1f}" y1="{top:.1f}" x2="{x:.1f}" y2="{bottom - 1:.1f}" '
            'stroke="currentColor" stroke-width="1.2" marker-end="url(#arrow)"/>'
        )

    def box(self, node: Node, left: float, width: float) -> Placed:
        top = self.y
        inside = [] if self.operations or node.kind == "field" else node.params
        small = node.kind in ("input", "output", "more", "dropout") or not node.type
        height = 28 if small else 40 + PARAM_ROW * len(inside)
        accent = self.accent(node)
        stroke = accent or "currentColor"
        fill = (
            f'fill="{accent}" fill-opacity="0.14"'
            if accent
            else 'fill="currentColor" fill-opacity="0.04"'
        )
        radius = 14 if node.kind in ("input", "output") else 6
        parts = [
            f'<g data-node="{node.id}" data-kind="{node.kind}">',
            f'<rect x="{left:.1f}" y="{top:.1f}" width="{width:.1f}" height="{height}" '
            f'rx="{radius}" {fill} stroke="{stroke}" stroke-width="1.3"/>',
        ]
        label = box_label(node)
        room = width - 24
        shortened = False
        if small:
            type_ = fitted(node.type, room / 2 if label else room)
            label_room = room - (text_width(type_) + 12 if type_ else 0)
            shown = fitted(label, label_room, weight=600)
            parts.append(self.text(left + 12, top + 18, shown, weight=600))
            parts.append(self.text(left + width - 12, top + 18, type_, anchor="end", faint=True))
        else:
            shown = fitted(label, room, weight=600)
            parts.append(self.text(left + 12, top + 18, shown, weight=600))
            type_ = fitted(node.type, room, size=11)
            parts.append(self.text(left + 12, top + 33, type_, faint=True, size=11))
            for index, held in enumerate(inside):
                row = top + 40 + index * PARAM_ROW
                parts.append(self.shape(left + 14, row, held.shape, stroke))
                written = f"{held.name} {held.type}"
                cut = fitted(written, width - 56, size=11)
                parts.append(self.text(left + 44, row + 12, cut, size=11))
                shortened = shortened or cut != written
        if shortened or shown != label or type_ != node.type:
            whole = [label, node.type] + [f"{held.name} {held.type}" for held in inside]
            parts.insert(1, f"<title>{escape(' · '.join(part for part in whole if part))}</title>")
        read = node.params if self.operations else []
        side = [f"← {held.as_written} {held.type}" for held in read]
        side += [f"← {held.name} {held.type}" for held in node.beside]
        for index, line in enumerate(side):
            x = left + width + 12
            parts.append(self.text(x, top + 18 + index * 15, line, size=11, faint=True))
            self.right = max(self.right, x + text_width(line, 11))
        parts.append("</g>")
        self.parts.extend(parts)
        self.y = top + height
        return Placed(top, top + height, left)

    def residual(self, node: Node, left: float, width: float) -> Placed:
        top = self.y
        x = left + width / 2
        cy = top + 12
        source = next(
            (
                self.placed[value]
                for value in node.inputs
                if value in self.placed and self.placed[value].bottom < top - GAP
            ),
            None,
        )
        parts = [f'<g data-node="{node.id}" data-kind="residual">']
        if source is not None:
            lane = max(8.0, source.left - 22)
            parts.append(
                f'<path d="M{source.left:.1f},{(source.top + source.bottom) / 2:.1f} '
                f'H{lane:.1f} V{cy:.1f} H{x - 13:.1f}" fill="none" stroke="currentColor" '
                'stroke-width="1.2" marker-end="url(#arrow)"/>'
            )
        parts.append(
            f'<circle cx="{x:.1f}" cy="{cy:.1f}" r="11" fill="none" stroke="currentColor" '
            'stroke-width="1.3"/>'
            f'<path d="M{x - 6:.1f},{cy:.1f} H{x + 6:.1f} M{x:.1f},{cy - 6:.1f} V{cy + 6:.1f}" '
            'stroke="currentColor" stroke-width="1.5"/>'
        )
        label = f"+ {node.added}" if node.added else box_label(node)
        parts.append(self.text(x + 20, cy + 4, label, faint=True))
        parts.append(self.text(left + width - 12, cy + 4, node.type, anchor="end", faint=True))
        parts.append("</g>")
        self.parts.extend(parts)
        self.y = top + 24
        return Placed(top, top + 24, left)

    def frame(self, node: Node, depth: int, left: float, width: float) -> Placed:
        top = self.y
        index = len(self.parts)
        self.y += 26
        previous: Placed | None = None
        for child in node.children:
            previous = self.node(child, depth + 1, previous)
        self.y += 10
        height = self.y - top
        title = box_label(node).replace(f" ({node.function})", "")
        named = bool(node.function) and node.function != title
        room = width - 24 - (text_width(node.function) + 12 if named else 0)
        shown = fitted(title, room, weight=600)
        frame = [
            f'<g data-node="{node.id}" data-kind="frame">',
            f"<title>{escape(title)}</title>" if shown != title else "",
            f'<rect x="{left:.1f}" y="{top:.1f}" width="{width:.1f}" height="{height:.1f}" '
            'rx="8" fill="currentColor" fill-opacity="0.03" stroke="currentColor" '
            'stroke-opacity="0.55" stroke-dasharray="5 3"/>',
            self.text(left + 12, top + 17, shown, weight=600),
        ]
        if named:
            frame.append(
                f'<text x="{left + width - 12:.1f}" y="{top + 17:.1f}" text-anchor="end" '
                f'fill="currentColor" opacity="0.7" data-link="{escape(node.function)}">'
                f"{escape(node.function)}</text>"
            )
        frame.append("</g>")
        self.parts[index:index] = frame
        return Placed(top, self.y, left)

    def shape(self, x: float, y: float, shape: tuple[int, ...] | None, stroke: str) -> str:
        """A small rectangle with the proportions of a param's last two axes."""
        rows, columns = 1, 1
        if shape:
            columns = shape[-1]
            rows = shape[-2] if len(shape) >= 2 else 1
        biggest = max(rows, columns, 1)
        w = max(3.0, 24 * columns / biggest)
        h = max(3.0, 14 * rows / biggest)
        return (
            f'<rect x="{x + (24 - w) / 2:.1f}" y="{y + (14 - h) / 2:.1f}" width="{w:.1f}" '
            f'height="{h:.1f}" fill="{stroke}" fill-opacity="0.3" stroke="{stroke}" '
            'stroke-width="0.8"/>'
        )

    def text(
        self,
        x: float,
        y: float,
        value: str,
        weight: int = 400,
        anchor: str = "start",
        faint: bool = False,
        size: int = 12,
    ) -> str:
        extra = ' opacity="0.75"' if faint else ""
        bold = f' font-weight="{weight}"' if weight != 400 else ""
        end = f' text-anchor="{anchor}"' if anchor != "start" else ""
        return (
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="currentColor"'
            f"{bold}{end}{extra}>{escape(value)}</text>"
        )


def architecture_svg(found: Architecture, theme: str | None = None) -> tuple[str, int, int]:
    """The drawing, its width and its height; `theme` colors it for a PNG."""
    return Drawing(found, theme).draw()
