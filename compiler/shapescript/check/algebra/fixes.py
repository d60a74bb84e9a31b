"""The fixes the checker attaches to diagnostics whose help names a concrete edit."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator

from shapescript.diagnostics.diagnostic import Edit, Fix
from shapescript.records import record
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
        #: Each length's names as columns of bytes, made when first read (`_columns_of`).
        self._columns: dict[int, _Columns] = {}
        #: What `closest` answered, by the misspelt name and the other candidates: an
        #: index is kept from one analysis to the next while the names are the same, and
        #: a re-checked body asks again about the unknown names it still has.
        self.answers: dict[tuple[str, tuple[str, ...]], str | None] = {}

    def near(self, size: int) -> Iterator[str]:
        """The names whose length allows a ratio of 0.75 with a name of `size`
        characters: from 3/5 of it to 5/3 of it (see `closest`)."""
        for length in _lengths_near(size):
            yield from self.by_length.get(length, ())

    def sharing(self, name: str) -> Iterator[str]:
        """The names that can have a ratio of 0.75 with `name`: of a length that allows
        it (`near`), and with enough of their characters among the name's.

        The characters are counted as `closest` counts them, but a whole length's names
        at once: the names' characters at each position are one string of bytes, whose
        `bytes.translate` marks those among the name's, and the marks of every position
        add up as the bytes of one integer, one byte a name.
        """
        size = len(name)
        marks = _marks(name)
        for length in _lengths_near(size):
            # 8 * (length - left) >= 3 * (length + size), as a bound on what is left.
            most_left = (5 * length - 3 * size) // 8
            if most_left < 0 or length not in self.by_length:
                continue
            columns = self._columns_of(length)
            names = columns.names
            if names:
                total = 0
                for column in columns.columns:
                    total += int.from_bytes(column.translate(marks), "little")
                shared = total.to_bytes(len(names), "little")
                enough = shared.translate(_at_least(length - most_left))
                at = enough.find(1)
                while at != -1:
                    yield names[at]
                    at = enough.find(1, at + 1)
            yield from _sharing(name, columns.others)

    def _columns_of(self, length: int) -> _Columns:
        found = self._columns.get(length)
        if found is None:
            names = self.by_length[length]
            plain = [name for name in names if name.isascii()] if length <= _MOST_LENGTH else []
            others = [name for name in names if not name.isascii()] if plain else names
            joined = "".join(plain).encode("ascii")
            columns = [joined[position::length] for position in range(length)]
            found = self._columns[length] = _Columns(plain, columns, others)
        return found


@record(frozen=True)
class _Columns:
    """The ASCII names of one length, and their characters at each position as bytes
    (one byte a name); and the other names of the length, compared one by one."""

    names: list[str]
    columns: list[bytes]
    others: list[str]


#: The longest names compared by columns: a name's count of shared characters is one
#: byte of a sum.
_MOST_LENGTH = 255


def _marks(name: str) -> bytes:
    """A `bytes.translate` table marking the ASCII characters of `name` with 1."""
    table = bytearray(256)
    for character in set(name):
        code = ord(character)
        if code < 128:
            table[code] = 1
    return bytes(table)


def _at_least(count: int) -> bytes:
    """A `bytes.translate` table marking the bytes of at least `count` with 1."""
    found = _AT_LEAST.get(count)
    if found is None:
        found = _AT_LEAST[count] = bytes(int(value >= count) for value in range(256))
    return found


_AT_LEAST: dict[int, bytes] = {}


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
    answers = index.answers if index is not None else None
    if answers is not None and (found := answers.get(asked[:2], _NOT_ASKED)) is not _NOT_ASKED:
        _last[0] = (asked, found)
        return found  # type: ignore[return-value]
    close = _sharing(name, asked[1])
    if index is not None:
        close.extend(index.sharing(name))
    matches = difflib.get_close_matches(name, close, n=1, cutoff=0.75)
    found = matches[0] if matches else None
    _last[0] = (asked, found)
    if answers is not None:
        if len(answers) >= _MOST_ANSWERS:
            answers.clear()
        answers[asked[:2]] = found
    return found


#: What `NameIndex.answers` gives for a question never asked.
_NOT_ASKED = object()
#: How many answers an index keeps: past it, they are forgotten all at once.
_MOST_ANSWERS = 256


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
