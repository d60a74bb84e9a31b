"""Source files, byte-offset spans and the line index that turns offsets into lines."""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from shapescript.records import field, record

#: The spans made by `shared_span` so far, by their offsets.
_SPANS: dict[tuple[int, int], Span] = {}
#: Past this many, `_SPANS` is emptied: a long-running server keeps a bounded number.
SHARED_SPANS_KEPT = 1 << 16


def shared_span(cls: type[Span], pair: tuple[int, int]) -> Span:
    """The span of `pair`'s offsets, shared with every other span of the same offsets.

    Spans are relative to their chunk, so a file of many small functions makes the same
    few thousand again and again (a 1 MB file 430,000 spans, 21,000 of them different),
    and a span never changes, so the parser and the tokens make each once."""
    found = _SPANS.get(pair)
    if found is None:
        if len(_SPANS) >= SHARED_SPANS_KEPT:
            _SPANS.clear()
        found = _SPANS[pair] = tuple.__new__(cls, pair)
    return found


class Span(NamedTuple):
    """A half-open range of character offsets [start, end) in one source file.

    A named tuple rather than a dataclass: the parser makes one per node, and tuples are
    the cheapest immutable, hashable records Python has.
    """

    start: int
    end: int

    def cover(self, other: Span) -> Span:
        """The smallest span holding both spans."""
        return Span(min(self.start, other.start), max(self.end, other.end))

    def contains(self, offset: int) -> bool:
        return self.start <= offset <= self.end


_new_tuple = tuple.__new__


def make_span(start: int, end: int) -> Span:
    """`Span(start, end)` for hot paths: about twice as fast, since it doesn't go through
    the named tuple's `__new__` (a Python function called from C)."""
    return _new_tuple(Span, (start, end))


@record(frozen=True)
class Position:
    """A 1-based line and column (columns count Unicode code points)."""

    line: int
    column: int


#: Where lines end for positions: as in LSP and editors (and Python's universal
#: newlines), at `\n`, `\r\n` or a lone `\r`. What a lone `\r` means to the language is
#: the lexer's business: as the reference says, a carriage return between tokens is
#: ignored, so it doesn't end a statement.
_LINE_BREAK = re.compile(r"\r\n?|\n")


@record
class SourceFile:
    """The text of one `.ss` file (BOM removed) with a lazily built line index, whose
    lines end where the language server's do (see `_LINE_BREAK`)."""

    path: str
    text: str
    _line_starts: list[int] | None = field(default=None, repr=False)

    @classmethod
    def from_text(cls, path: str, text: str) -> SourceFile:
        if text.startswith("\ufeff"):
            text = text[1:]
        return cls(path, text)

    @property
    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            starts = [0]
            text = self.text
            if "\r" in text:
                starts += [match.end() for match in _LINE_BREAK.finditer(text)]
            else:
                index = text.find("\n")
                while index != -1:
                    starts.append(index + 1)
                    index = text.find("\n", index + 1)
            self._line_starts = starts
        return self._line_starts

    def _line_end(self, line: int) -> int:
        """The offset where a 1-based line's text ends, before its line break."""
        starts = self.line_starts
        if line >= len(starts):
            return len(self.text)
        end = starts[line] - 1
        if self.text[end] == "\n" and end > starts[line - 1] and self.text[end - 1] == "\r":
            end -= 1
        return end

    def position(self, offset: int) -> Position:
        """The 1-based line and column of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.line_starts, offset) - 1
        return Position(line + 1, offset - self.line_starts[line] + 1)

    def offset(self, line: int, column: int) -> int:
        """The character offset of a 1-based line and column (clamped to the text)."""
        starts = self.line_starts
        if line < 1:
            return 0
        if line > len(starts):
            return len(self.text)
        start = starts[line - 1]
        return min(start + max(column - 1, 0), self._line_end(line))

    def line_text(self, line: int) -> str:
        """The text of a 1-based line without its line break."""
        starts = self.line_starts
        if not 1 <= line <= len(starts):
            return ""
        return self.text[starts[line - 1] : self._line_end(line)]

    @property
    def line_count(self) -> int:
        return len(self.line_starts)
