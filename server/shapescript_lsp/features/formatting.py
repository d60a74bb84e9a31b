"""`textDocument/formatting` and `rangeFormatting`: the formatter's layout as text edits."""

from __future__ import annotations

from lsprotocol import types

from shapescript.format import FormatError, format_text
from shapescript.format.edits import line_edits, touching
from shapescript.syntax.source import SourceFile, Span
from shapescript_lsp.positions import range_of


def formatting_edits(
    path: str, text: str, lines: tuple[int, int] | None = None
) -> list[types.TextEdit]:
    """The edits that lay the text out canonically, only those meeting the 0-based lines
    `lines` (first, last) when given; raises FormatError for a file left alone."""
    source = SourceFile(path, text)
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    formatted = bom + format_text(text[len(bom) :], path)
    edits = line_edits(text, formatted)
    if lines is not None:
        edits = touching(edits, *lines)
    return [
        types.TextEdit(range=range_of(source, Span(edit.start, edit.end)), new_text=edit.text)
        for edit in edits
    ]


__all__ = ["FormatError", "formatting_edits"]
