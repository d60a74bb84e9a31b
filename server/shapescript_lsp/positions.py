"""Offsets in the text and LSP positions both ways, by LSP's own line rules.

LSP ends a line only at `\\n`, `\\r\\n` or a lone `\\r`, and counts characters in UTF-16
code units. Python's `str.splitlines` also breaks at form feeds, U+0085, U+2028 and
others, so nothing here uses it.
"""

from __future__ import annotations

import bisect
import re
import sys
import threading
from array import array
from itertools import accumulate

from lsprotocol import types

from shapescript.syntax.source import SourceFile, Span

_LINE_BREAK = re.compile(r"\r\n?|\n")
_CACHE_SIZE = 8
#: Line starts are kept as unsigned 32-bit numbers: 4 bytes a line rather than a list's
#: pointer and int object (36 bytes); a message, so a text, is at most 64 MiB.
_STARTS_TYPE = "I"
#: References to a text that only an index of the cache holds: its `text` slot and the
#: argument of `sys.getrefcount`.
_ONLY_THE_INDEX = 2


def utf16_length(text: str) -> int:
    """How many UTF-16 code units `text` takes."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def line_starts(text: str) -> array:
    """The offset where each line begins, by LSP's rules."""
    if "\r" in text:
        starts = array(_STARTS_TYPE, [0])
        starts.extend(match.end() for match in _LINE_BREAK.finditer(text))
        return starts
    starts = array(
        _STARTS_TYPE, accumulate((len(line) + 1 for line in text.split("\n")), initial=0)
    )
    starts.pop()
    return starts


class LineIndex:
    """A text's lines by LSP's rules, to turn offsets into positions and back."""

    __slots__ = ("text", "starts", "__weakref__")

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)

    def edited(self, start: int, end: int, new_text: str) -> LineIndex:
        """The index of the text with [start, end) replaced, rescanning only the lines
        around the edit (a line break next to the edit may join or split, as `\r` + `\n`)."""
        text = self.text[:start] + new_text + self.text[end:]
        starts = self.starts
        first = max(0, bisect.bisect_right(starts, start) - 2)
        last = bisect.bisect_right(starts, end) + 1
        delta = len(new_text) - (end - start)
        window_start = starts[first]
        window_end = starts[last] + delta if last < len(starts) else len(text)
        inside = array(
            _STARTS_TYPE,
            (window_start + offset for offset in line_starts(text[window_start:window_end])),
        )
        after = starts[last + 1 :]
        if delta:
            after = array(_STARTS_TYPE, [offset + delta for offset in after])
        index = LineIndex.__new__(LineIndex)
        index.text = text
        index.starts = starts[:first] + inside + after
        return index

    def line_end(self, line: int) -> int:
        """The offset where a line's text ends, before its line break."""
        if line + 1 >= len(self.starts):
            return len(self.text)
        end = self.starts[line + 1] - 1
        if self.text[end] == "\n" and end > self.starts[line] and self.text[end - 1] == "\r":
            end -= 1
        return end

    def position(self, offset: int) -> types.Position:
        """The LSP position of a character offset (clamped to the text)."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        offset = min(offset, self.line_end(line))
        return types.Position(line=line, character=utf16_length(self.text[start:offset]))

    def offset(self, line: int, character: int) -> int:
        """The character offset of an LSP position.

        A line past the end is the end of the text; a character past the end of its line
        is the end of that line, as LSP says. A character in the middle of a surrogate
        pair moves to the end of the pair.
        """
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        end = self.line_end(line)
        if character <= 0:
            return start
        if self.text[start:end].isascii():
            return min(start + character, end)
        units = 0
        for index in range(start, end):
            if units >= character:
                return index
            units += 2 if ord(self.text[index]) > 0xFFFF else 1
        return end


def remember(index: LineIndex) -> None:
    """Keep an index made elsewhere (by `LineIndex.edited`) for its text."""
    _indexes.put(index)


class _IndexCache:
    """The line indexes of the few texts in use, keyed by the text object itself."""

    def __init__(self) -> None:
        self._entries: dict[int, LineIndex] = {}
        self._lock = threading.Lock()

    def get(self, text: str) -> LineIndex:
        with self._lock:
            index = self._entries.get(id(text))
            if index is not None and index.text is text:
                return index
        index = LineIndex(text)
        self.put(index)
        return index

    def put(self, index: LineIndex) -> None:
        """Keep the index, letting go of those whose texts no one else holds any more (a
        big document's old versions: each its text and its lines)."""
        with self._lock:
            entries = self._entries
            for key, kept in list(entries.items()):
                if sys.getrefcount(kept.text) <= _ONLY_THE_INDEX:
                    del entries[key]
            if len(entries) >= _CACHE_SIZE:
                entries.pop(next(iter(entries)))
            entries[id(index.text)] = index


_indexes = _IndexCache()


def line_index(text: str) -> LineIndex:
    """The (cached) line index of a text."""
    return _indexes.get(text)


def position_of(source: SourceFile, offset: int) -> types.Position:
    """The LSP position (0-based line, UTF-16 character) of a character offset."""
    return line_index(source.text).position(offset)


def range_of(source: SourceFile, span: Span) -> types.Range:
    index = line_index(source.text)
    return types.Range(start=index.position(span.start), end=index.position(span.end))


def offset_of(source: SourceFile, position: types.Position) -> int:
    """The character offset of an LSP position, clamped to its line."""
    return line_index(source.text).offset(position.line, position.character)
