"""Hovering `$...$` math in any comment, `#` or `##`: the math typeset, and as text."""

from __future__ import annotations

from lsprotocol import types

from shapescript.check.program import Checked
from shapescript.syntax.source import Span
from shapescript_lsp.positions import range_of
from shapescript_lsp.render.math import math_markdown


def math_at(checked: Checked, offset: int):
    """The piece of math in a comment whose delimiters hold `offset`, or None."""
    for math in checked.math:
        if math.start <= offset < math.end:
            return math
    return None


def math_hover(
    checked: Checked, offset: int, images: bool, dark: bool, html: bool = False
) -> types.Hover | None:
    """The hover on math in a comment: its image where the client shows images (HTML, set
    on the text's baseline, where the hover may hold HTML), and its text form."""
    math = math_at(checked, offset)
    if math is None:
        return None
    value = math_markdown(math, images, dark, html=html)
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value),
        range=range_of(checked.source, Span(math.start, math.end)),
    )
