"""The fixes the checker attaches to diagnostics whose help names a concrete edit."""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Iterable, Iterator

from shapescript.diagnostics.diagnostic import Edit, Fix
from shapescript.syntax import ast
from shapescript.syntax.source import Span

#: Expressions that `to T` / `as T` can follow without parentheses.
_TIGHT = (
    ast.Name,
    ast.IntLit,
    ast.FloatLit,
    ast.BoolLit,
    ast.InfLit,
    ast.Call,
    ast.Index,
    ast.Member,
)


class NameIndex:
    """A fixed set of names grouped by length, for `closest`: made once for a file's
    names and asked for each misspelt one, it gives only the names whose length can be
    close enough, so a file of 50,000 names isn't read whole for every unknown name."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = frozenset(names)
        by_length: dict[int, list[str]] = {}
        for name in sorted(self.names):
            by_length.setdefault(len(name), []).append(name)
        self.by_length = by_length
        #: Each length's names one a line, made when first read (`sharing`); names with
        #: a line break in them are left out, to `loose`.
        self._lines: dict[int, tuple[list[str], str]] = {}
        self.loose = sorted(name for name in self.names if _SEPARATOR in name)

    def near(self, size: int) -> Iterator[str]:
        """The names whose length allows a ratio of 0.75 with a name of `size`
        characters: from 3/5 of it to 5/3 of it (see `closest`)."""
        for length in _lengths_near(size):
            yield from self.by_length.get(length, ())

    def sharing(self, name: str) -> Iterator[str]:
        """The names that can have a ratio of 0.75 with `name`: of a length that allows
        it (`near`), and with enough of their characters among the name's.

        The characters are counted as `closest` counts them, but a whole length's names
        at once: their lines lose the name's characters in one `str.translate`, and each
        line's length left is what that name doesn't share.
        """
        size = len(name)
        others = dict.fromkeys(map(ord, name))
        others.pop(ord(_SEPARATOR), None)
        for length in _lengths_near(size):
            # 8 * (length - left) >= 3 * (length + size), as a bound on what is left.
            most_left = (5 * length - 3 * size) // 8
            if most_left < 0 or length not in self.by_length:
                continue
            names, lines = self._lines_of(length)
            left = lines.translate(others).split(_SEPARATOR)
            yield from itertools.compress(names, map(most_left.__ge__, map(len, left)))
        yield from _sharing(name, self.loose)

    def _lines_of(self, length: int) -> tuple[list[str], str]:
        lines = self._lines.get(length)
        if lines is None:
            names = [name for name in self.by_length[length] if _SEPARATOR not in name]
            lines = self._lines[length] = (names, _SEPARATOR.join(names))
        return lines


#: What separates the names of one length in `NameIndex`'s lines.
_SEPARATOR = "\n"


def _lengths_near(size: int) -> range:
    """The lengths a name needs for a ratio of 0.75 with one of `size` characters."""
    return range(-(-3 * size // 5), 5 * size // 3 + 1)


def _sharing(name: str, candidates: Iterable[str]) -> list[str]:
    """The candidates of a length and with enough characters shared with `name` to have
    a ratio of 0.75 with it (see `closest`)."""
    # A ratio of at least 0.75 needs lengths within that ratio: the bound difflib's
    # real_quick_ratio checks, here without making a matcher for each candidate.
    size = len(name)
    close = [c for c in candidates if 8 * min(len(c), size) >= 3 * (len(c) + size)]
    # Likewise a ratio counts only the characters a candidate shares with the name; the
    # ones it doesn't are counted by `str.translate`, without a loop over characters.
    others = dict.fromkeys(map(ord, name))
    return [c for c in close if 8 * (len(c) - len(c.translate(others))) >= 3 * (len(c) + size)]


def closest(name: str, candidates, index: NameIndex | None = None) -> str | None:
    """The candidate a misspelt name is closest to, if one is close enough; the names of
    `index` are candidates too."""
    asked = (name, tuple(candidates), index)
    last_asked, last_found = _last[0]
    if last_asked == asked:
        return last_found
    close = _sharing(name, asked[1])
    if index is not None:
        close.extend(index.sharing(name))
    matches = difflib.get_close_matches(name, close, n=1, cutoff=0.75)
    found = matches[0] if matches else None
    _last[0] = (asked, found)
    return found


#: The last question `closest` answered, with its answer (one tuple, replaced whole, so
#: threads read a consistent pair): a diagnostic's help and its fix ask the same one.
_last: list[tuple] = [(None, None)]


def replace(span: Span, text: str, title: str) -> list[Fix]:
    """One fix that replaces a span's text."""
    return [Fix(title, (Edit(span, text),))]


def spelling(name: str, candidates, span: Span, index: NameIndex | None = None) -> list[Fix]:
    """The did-you-mean fix for a misspelt name at `span`, if a close name exists among
    `candidates` and `index`."""
    match = closest(name, candidates, index)
    if match is None:
        return []
    return replace(span, match, f"Change `{name}` to `{match}`")


#: The text of an expression that `to T` / `as T` can follow without parentheses.
_TIGHT_TEXT = re.compile(r"[^\W\d]\w*(\.[^\W\d]\w*)*|\d+(\.\d+)?")


def suffixed(expr: ast.Expr | Span, suffix: str, title: str, text: str | None = None) -> list[Fix]:
    """A fix that writes `suffix` (such as `to f32` or `as Unit`) after an expression,
    in parentheses unless the expression (or its `text`, for a bare span) binds tighter
    than `to` and `as`."""
    tight_text = text is not None and _TIGHT_TEXT.fullmatch(text) is not None
    if isinstance(expr, _TIGHT) or (isinstance(expr, Span) and tight_text):
        end = expr.end if isinstance(expr, Span) else expr.span.end
        return [Fix(title, (Edit(Span(end, end), f" {suffix}"),))]
    span = expr if isinstance(expr, Span) else expr.span
    return [
        Fix(
            title,
            (
                Edit(Span(span.start, span.start), "("),
                Edit(Span(span.end, span.end), f") {suffix}"),
            ),
        )
    ]


def inserted(offset: int, text: str, title: str) -> list[Fix]:
    """One fix that inserts text at an offset."""
    return [Fix(title, (Edit(Span(offset, offset), text),))]


def conversions(expr: ast.Expr | Span, suffixes, text: str | None = None) -> list[Fix]:
    """One fix per `to T` or `as T` a help suggests writing after the expression."""
    found = []
    for suffix in suffixes:
        verb = "Convert" if suffix.startswith("to ") else "Assert"
        found += suffixed(expr, suffix, f"{verb} with `{suffix}`", text)
    return found


#: What `log` of each function is better written as.
_LOG_OF = {"softmax": "log_softmax", "sigmoid": "log_sigmoid"}
EPSILON = "1e-6"


def plus_epsilon(span: Span) -> list[Fix]:
    """Add a small positive number to an expression, in parentheses."""
    edits = (
        Edit(Span(span.start, span.start), "("),
        Edit(Span(span.end, span.end), f" + {EPSILON})"),
    )
    return [Fix(f"Add {EPSILON}", edits)]


def stable_log(node: ast.Call) -> list[Fix]:
    """`log(softmax(...))` as `log_softmax(...)`, or else a small number added inside `log`."""
    if len(node.args) != 1 or node.args[0].name is not None:
        return []
    inner = node.args[0].value
    if (
        isinstance(inner, ast.Call)
        and isinstance(inner.callee, ast.Name)
        and inner.callee.name in _LOG_OF
        and inner.span.end == node.span.end - 1
    ):
        better = _LOG_OF[inner.callee.name]
        edits = (
            Edit(Span(node.span.start, inner.callee.span.end), better),
            Edit(Span(node.span.end - 1, node.span.end), ""),
        )
        return [Fix(f"Use `{better}`", edits)]
    return plus_epsilon(inner.span)
