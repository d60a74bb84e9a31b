"""Offsets in the text and LSP positions (lines and UTF-16 code units) both ways."""

from __future__ import annotations

from lsprotocol import types

from shapescript.syntax.source import SourceFile, Span


def _utf16_length(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def position_of(source: SourceFile, offset: int) -> types.Position:
    """The LSP position (0-based line, UTF-16 character) of a character offset."""
    point = source.position(offset)
    line_start = source.line_starts[point.line - 1]
    return types.Position(
        line=point.line - 1, character=_utf16_length(source.text[line_start:offset])
    )


def range_of(source: SourceFile, span: Span) -> types.Range:
    return types.Range(start=position_of(source, span.start), end=position_of(source, span.end))


def offset_of(source: SourceFile, position: types.Position) -> int:
    """The character offset of an LSP position, clamped to its line."""
    starts = source.line_starts
    if position.line >= len(starts):
        return len(source.text)
    line_start = starts[position.line]
    line_end = (
        starts[position.line + 1] - 1 if position.line + 1 < len(starts) else len(source.text)
    )
    line = source.text[line_start:line_end]
    if line.isascii():
        return line_start + min(position.character, len(line))
    units = 0
    for index, char in enumerate(line):
        if units >= position.character:
            return line_start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return line_end
