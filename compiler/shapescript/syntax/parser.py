"""The recursive-descent parser: tokens to a syntax tree, reporting every syntax error.

The parser never raises. Inside, a failed production raises `_Abort`, which the
statement and item loops catch: they skip to the end of the line and past the block
indented under it, put an error node in the tree, and go on.
"""

from __future__ import annotations

import bisect
import gc
import re
from typing import Any

from shapescript.cancellation import IsCancelled, stop_if
from shapescript.deep import run_deep
from shapescript.diagnostics.diagnostic import Diagnostic, Edit, Fix, Label
from shapescript.records import field, record
from shapescript.syntax import ast, nodes
from shapescript.syntax.doc_comments import attach_doc_comments
from shapescript.syntax.lexer import LexResult, lex
from shapescript.syntax.limits import MAX_NESTING, MAX_TREE_DEPTH, NODES_PER_TOKEN, too_deep
from shapescript.syntax.source import SourceFile, Span, shared_span
from shapescript.syntax.tokens import (
    DEDENT,
    DTYPES,
    EOF,
    FLOAT,
    GROUPED_SIZE,
    INDENT,
    INT,
    NAME,
    NEWLINE,
    STRING,
    UNKNOWN_SIZE,
    Comment,
    Token,
    describe,
)

PATTERN_OPERATIONS = frozenset({"rearrange", "reduce", "repeat", "einsum", "split"})

_BINARY_PRECEDENCE = {
    "or": 1,
    "and": 2,
    "==": 3,
    "!=": 3,
    "<": 3,
    "<=": 3,
    ">": 3,
    ">=": 3,
    "+": 4,
    "-": 4,
    "*": 5,
    "/": 5,
    "%": 5,
    "@": 5,
}
_COMPARISON_PRECEDENCE = 3
_SIZE_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}
_DECLARATION_KEYWORDS = frozenset({"dim", "domain", "fn", "extern", "import"})
_BLOCK_DECLARATIONS = frozenset({"model", "data", "logs"})
#: The names that may start a declaration (see `_Parser._looks_like_declaration`).
_DECLARATION_WORDS = _BLOCK_DECLARATIONS | {"export"}


class _Abort(Exception):
    """Unwinds to the enclosing statement or item after a syntax error was reported."""


@record
class ParseResult:
    module: ast.Module
    diagnostics: list[Diagnostic]
    source: SourceFile
    #: The chunks and what parsing each gave, for the next parse of an edited file.
    chunks: Chunks | None = None
    #: The comments as `comments` gives them, or the chunks to read them from when first
    #: asked for (a keystroke's parse would otherwise move every comment after the edit).
    comments_or_chunks: list[tuple[int, Comment]] | Chunks = field(
        default_factory=list, repr=False, compare=False
    )

    @property
    def comments(self) -> list[tuple[int, Comment]]:
        """Every comment, with the start of its chunk (its span counts from there)."""
        found = self.comments_or_chunks
        if isinstance(found, Chunks):
            found = self.comments_or_chunks = [
                (start, comment)
                for start, chunk in zip(found.starts, found.parses, strict=True)
                for comment in chunk.comments
            ]
        return found


@record
class Chunks:
    """A file's chunks in order: where each starts, what parsing it gave, and the index
    of its first item in `module.items` and of its first comment in `comments`; also the
    chunks that gave diagnostics, as (index, start) pairs, the indexes of those with a
    `$` in a comment's text (which may hold math), and of those whose first comment line
    goes on with the block of comment lines that ends the chunk before (`_joins_before`).
    The lists are never changed once made: a parse may share them with the previous one."""

    starts: list[int]
    parses: list[ChunkParse]
    first_items: list[int]
    first_comments: list[int]
    with_diagnostics: list[tuple[int, int]]
    with_dollars: list[int] = field(default_factory=list)
    joined: list[int] = field(default_factory=list)


@record
class ChunkParse:
    """The items of one chunk, with spans relative to the chunk's start."""

    items: list[ast.Item]
    diagnostics: list[Diagnostic]
    comments: list[Comment] = field(default_factory=list)
    #: What later passes found from this chunk alone, relative to its start, by the
    #: pass's name (made when first needed): the chunk is reused while its text is
    #: unchanged, and this with it.
    derived: dict[str, Any] | None = field(default=None, repr=False, compare=False)


#: A chunk's start: a line at column 0 that begins with a name or keyword (not `else`),
#: with the comment lines directly above it. Each match is a line start followed by a
#: comment or a name; it takes the comment lines there without giving any back (so a
#: long comment block is read once, not once per line), then the item's first character
#: if there is one. A literal newline lets the regex engine skip ahead, where `^` with
#: re.M tries every position.
_CHUNK_START = re.compile(r"\n(?=#|(?!else\b)[^\W\d])(?:#[^\n]*\n)*+(?P<item>(?!else\b)[^\W\d])?")
#: The comment lines at the start of a file, and the first item's first character: the
#: first chunk starts at 0 whatever comes before its item.
_FIRST_CHUNK = re.compile(r"(?:#[^\n]*\n)*+(?:(?!else\b)[^\W\d])?")


def split_chunks(text: str) -> list[int]:
    """Where each top-level chunk starts: a line at column 0 that begins with a name or
    keyword (but not `else`), moved up over the comment lines directly above it."""
    starts = [0]
    append = starts.append
    for match in _CHUNK_START.finditer(text, max(_FIRST_CHUNK.match(text).end() - 1, 0)):
        if match.start("item") != -1:
            append(match.start() + 1)
    return starts


def parse(
    source: SourceFile,
    *,
    notebook: bool = False,
    previous: ParseResult | None = None,
    cancelled: IsCancelled | None = None,
) -> ParseResult:
    """Parse one file (or notebook cell). Never raises; errors come back as diagnostics.

    The file is split into top-level chunks, each parsed on its own with spans relative to
    its start (`module.bases` gives each item's chunk start). Chunks whose text is
    unchanged since `previous` are reused, so an edit re-parses only its own chunk.
    `cancelled` is asked before each chunk parsed anew (see `shapescript.cancellation`).
    """
    return run_deep(_parse_file, source, notebook, previous, cancelled)


def _parse_file(
    source: SourceFile,
    notebook: bool,
    previous: ParseResult | None,
    cancelled: IsCancelled | None,
) -> ParseResult:
    text = source.text
    if not _reusable(previous, notebook):
        previous = None
    # Parsing allocates many small objects that all stay alive, so the cyclic collector
    # would only scan them again and again; pausing it makes parsing about a quarter faster.
    collecting = gc.isenabled()
    gc.disable()
    try:
        if previous is None:
            starts = split_chunks(text)
            span = (0, len(starts), 0)
        else:
            starts, span = _rechunk(previous, text)
        middle = _parse_middle(source, notebook, starts, span, previous, cancelled)
        layout, items, bases = _join(previous, middle, text, starts, span)
    finally:
        if collecting:
            # Everything made meanwhile is still in the youngest generation, so the
            # first allocation after enabling would scan all of it; it has no
            # reference cycles to find, so it is moved out of the collector's way.
            gc.freeze()
            gc.enable()
    diagnostics = [
        shift_diagnostic(d, start)
        for index, start in layout.with_diagnostics
        for d in layout.parses[index].diagnostics
    ]
    diagnostics.sort(key=lambda d: (d.primary.span.start, d.code))
    module = nodes.Module(items, Span(0, len(text)), notebook, bases)
    return ParseResult(module, diagnostics, source, layout, layout)


def split_chunks_after(old: str, old_starts: list[int], text: str) -> list[int]:
    """`split_chunks(text)`, given those of `old`, an earlier text of the file."""
    prefix = _common_prefix(old, text)
    suffix = _common_suffix(old, text, min(len(old), len(text)) - prefix)
    return _starts_after(old_starts, text, prefix, suffix, len(text) - len(old))[0]


def _starts_after(
    old_starts: list[int], text: str, prefix: int, suffix: int, delta: int
) -> tuple[list[int], int, int]:
    """`split_chunks(text)`, given the chunk starts of an earlier text that `text` begins
    with `prefix` characters of and ends with `suffix` of: only the text from two chunks
    before the first change up to the first chunk after the last change found again (an
    edit on a big file scans one chunk, not the whole file). Also gives where the
    earlier text's starts, moved, begin in the new ones, and their index in the earlier
    ones (the ends of both lists when none are)."""
    # A chunk's match reads from the newline before its start to the next chunk's start
    # at most: one whose match ends before the change is found alike in both texts, and
    # the scan goes on from it as the full scan does.
    index = bisect.bisect_right(old_starts, prefix) - 2
    if index < 1:
        starts = [0]
        scan_from = max(_FIRST_CHUNK.match(text).end() - 1, 0)
    else:
        starts = old_starts[:index]
        scan_from = old_starts[index] - 1
    unchanged_from = len(text) - suffix
    append = starts.append
    for match in _CHUNK_START.finditer(text, scan_from):
        if match.start("item") == -1:
            continue
        start = match.start() + 1
        if match.start() >= unchanged_from:
            # The same match as the earlier text's there, on the same text after it: the
            # rest are the earlier text's, moved.
            place = bisect.bisect_left(old_starts, start - delta)
            if place < len(old_starts) and old_starts[place] == start - delta:
                moved_from = len(starts)
                later = old_starts[place:]
                starts.extend([old + delta for old in later] if delta else later)
                return starts, moved_from, place
        append(start)
    return starts, len(starts), len(old_starts)


#: How many characters `_common_prefix` and `_common_suffix` compare at a time: a copy
#: this size stays in the processor's cache, where one of half a big file would not.
_BLOCK = 1 << 14


def _common_prefix(old: str, new: str) -> int:
    """How many characters the two texts start with in common. A block of `old` at a
    time is copied and compared in place with `new`, so each character of the common
    part is copied once; the block that differs is halved down to the character."""
    limit = min(len(old), len(new))
    low = 0
    while low + _BLOCK <= limit and new.startswith(old[low : low + _BLOCK], low):
        low += _BLOCK
    high = min(low + _BLOCK, limit)
    while high - low > 32:
        middle = (low + high) // 2
        if new.startswith(old[low:middle], low):
            low = middle
        else:
            high = middle
    while low < high and old[low] == new[low]:
        low += 1
    return low


def _common_suffix(old: str, new: str, limit: int) -> int:
    """How many characters the two texts end with in common, at most `limit` (as
    `_common_prefix`, from the ends)."""
    old_end, new_end = len(old), len(new)
    low = 0
    while low + _BLOCK <= limit and new.startswith(
        old[old_end - low - _BLOCK : old_end - low], new_end - low - _BLOCK
    ):
        low += _BLOCK
    high = min(low + _BLOCK, limit)
    while high - low > 32:
        middle = (low + high) // 2
        if new.startswith(old[old_end - middle : old_end - low], new_end - middle):
            low = middle
        else:
            high = middle
    while low < high and old[old_end - low - 1] == new[new_end - low - 1]:
        low += 1
    return low


def _rechunk(previous: ParseResult, text: str) -> tuple[list[int], tuple[int, int, int]]:
    """The chunk starts of `text`, an edit of the previous parse's, and which chunks to
    parse: the first, the first after it that is the previous parse's own chunk by
    place, and that chunk's index in the previous parse (see `_parse_middle`). The
    previous chunks before the first changed character are kept, and those after the
    last where the chunks start at the same places, moved by the edit; when none are
    kept by place, every chunk is to be parsed."""
    old = previous.source.text
    old_starts = previous.chunks.starts
    prefix = _common_prefix(old, text)
    suffix = _common_suffix(old, text, min(len(old), len(text)) - prefix)
    delta = len(text) - len(old)
    starts, moved_from, moved_old = _starts_after(old_starts, text, prefix, suffix, delta)
    everything = (0, len(starts), len(old_starts))
    # Chunks that end by the first change; the chunk holding it is parsed again. Those
    # before the scan's first are the previous parse's starts, copied.
    first = max(bisect.bisect_right(starts, prefix) - 1, 0)
    kept = min(max(bisect.bisect_right(old_starts, prefix) - 2, 0), first + 1)
    if starts[kept : first + 1] != old_starts[kept : first + 1]:
        return starts, everything
    # Chunks that start after the last change (past the newline before them too). Those
    # from `moved_from` on are the previous parse's, moved, by the scan.
    last = bisect.bisect_left(starts, len(text) - suffix + 1)
    old_last = bisect.bisect_left(old_starts, len(old) - suffix + 1)
    if moved_from - last != moved_old - old_last or any(
        new - delta != old
        for new, old in zip(starts[last:moved_from], old_starts[old_last:moved_old], strict=True)
    ):
        return starts, everything
    return starts, (first, last, old_last)


def _reusable(previous: ParseResult | None, notebook: bool) -> bool:
    return (
        previous is not None
        and previous.chunks is not None
        and previous.module.notebook == notebook
    )


def _parse_middle(
    source: SourceFile,
    notebook: bool,
    starts: list[int],
    span: tuple[int, int, int],
    previous: ParseResult | None,
    cancelled: IsCancelled | None,
) -> list[ChunkParse]:
    """The chunks from `first` to `last` (`span`, with the index `last` had in the
    previous parse), reusing one of the previous parse's chunks between the same two
    with the same text (moved by the edit, or pasted), each at most once."""
    first, last, old_last = span
    text = source.text
    ends = starts[first + 1 : last + 1]
    if last == len(starts):
        ends.append(len(text))
    by_text: dict[str, ChunkParse] = {}
    if _reusable(previous, notebook) and last - first > 1:
        by_text = _chunks_by_text(previous, first, old_last)
    parsed = []
    for start, end in zip(starts[first:last], ends, strict=True):
        chunk_text = text[start:end]
        chunk = by_text.pop(chunk_text, None)
        if chunk is None:
            stop_if(cancelled)
            chunk = _parse_chunk(source.path, chunk_text, notebook)
        parsed.append(chunk)
    return parsed


def _chunks_by_text(previous: ParseResult, first: int, last: int) -> dict[str, ChunkParse]:
    """The previous parse's chunks from `first` to `last`, by their text."""
    old = previous.source.text
    layout = previous.chunks
    ends = layout.starts[first + 1 : last + 1]
    if last == len(layout.starts):
        ends.append(len(old))
    found: dict[str, ChunkParse] = {}
    for start, end, chunk in zip(
        layout.starts[first:last], ends, layout.parses[first:last], strict=True
    ):
        found.setdefault(old[start:end], chunk)
    return found


def _join(
    previous: ParseResult | None,
    middle: list[ChunkParse],
    text: str,
    starts: list[int],
    span: tuple[int, int, int],
) -> tuple[Chunks, list[ast.Item], list[int]]:
    """The new parse's chunks, items and bases: the previous parse's before `first` as
    they were, the `middle` chunks, and the previous parse's from `old_last` on, moved
    by the edit."""
    first, last, old_last = span
    own = _middle_lists(middle, starts, first)
    if previous is None or (first == 0 and last == len(starts)):
        own.first_items.append(len(own.items))
        own.first_comments.append(own.comment_count)
        layout = Chunks(
            starts,
            middle,
            own.first_items,
            own.first_comments,
            own.with_diagnostics,
            own.with_dollars,
            _joined(text, starts, middle, 1, len(starts)),
        )
        return layout, own.items, own.bases
    return _join_edit(previous, own, text, starts, span)


@record
class _Middle:
    """What `_join` needs of the chunks parsed anew: as `Chunks` and `Module` hold it,
    with the counts before each chunk counted from the first of them."""

    parses: list[ChunkParse]
    items: list[ast.Item] = field(default_factory=list)
    bases: list[int] = field(default_factory=list)
    first_items: list[int] = field(default_factory=list)
    first_comments: list[int] = field(default_factory=list)
    comment_count: int = 0
    with_diagnostics: list[tuple[int, int]] = field(default_factory=list)
    with_dollars: list[int] = field(default_factory=list)


def _middle_lists(middle: list[ChunkParse], starts: list[int], first: int) -> _Middle:
    own = _Middle(middle)
    items, bases = own.items, own.bases
    ends = first + len(middle)
    for index, (start, chunk) in enumerate(zip(starts[first:ends], middle, strict=True), first):
        own.first_items.append(len(items))
        own.first_comments.append(own.comment_count)
        # A chunk's items share its start, the same int object: see `_moved_bases`.
        if len(chunk.items) == 1:
            items.append(chunk.items[0])
            bases.append(start)
        else:
            items.extend(chunk.items)
            bases.extend([start] * len(chunk.items))
        if chunk.comments:
            own.comment_count += len(chunk.comments)
            if any("$" in comment.text for comment in chunk.comments):
                own.with_dollars.append(index)
        if chunk.diagnostics:
            own.with_diagnostics.append((index, start))
    return own


def _join_edit(
    previous: ParseResult,
    own: _Middle,
    text: str,
    starts: list[int],
    span: tuple[int, int, int],
) -> tuple[Chunks, list[ast.Item], list[int]]:
    """`_join` after an edit: the previous parse's lists are copied whole (a keystroke's
    parse of a big file copies lists, it doesn't loop over their items) with the middle
    chunks' entries put in place of theirs, and the lists that the edit leaves as they
    were are the previous parse's own (no one changes them)."""
    first, last, old_last = span
    layout, module = previous.chunks, previous.module
    head, old_tail = layout.first_items[first], layout.first_items[old_last]
    items = module.items.copy()
    items[head:old_tail] = own.items
    parses = layout.parses.copy()
    parses[first:old_last] = own.parses
    bases = module.bases[:head]
    bases += own.bases
    chunk_shift = last - old_last
    delta = starts[last] - layout.starts[old_last] if last < len(starts) else 0
    if last < len(starts):
        bases += _moved_bases(previous, old_last, starts, last)
    item_shift = len(own.items) - (old_tail - head)
    first_items = _patched(layout.first_items, first, old_last, own.first_items, head, item_shift)
    comment_head = layout.first_comments[first]
    comment_shift = own.comment_count - (layout.first_comments[old_last] - comment_head)
    first_comments = _patched(
        layout.first_comments, first, old_last, own.first_comments, comment_head, comment_shift
    )
    with_diagnostics = [pair for pair in layout.with_diagnostics if pair[0] < first]
    with_diagnostics += own.with_diagnostics
    with_diagnostics += [
        (index + chunk_shift, start + delta)
        for index, start in layout.with_diagnostics
        if index >= old_last
    ]
    dollars = layout.with_dollars
    dollars_from = bisect.bisect_left(dollars, first)
    dollars_to = bisect.bisect_left(dollars, old_last)
    if chunk_shift == 0 and dollars[dollars_from:dollars_to] == own.with_dollars:
        with_dollars = dollars
    else:
        with_dollars = dollars[:dollars_from] + own.with_dollars
        with_dollars += [index + chunk_shift for index in dollars[dollars_to:]]
    # Whether a chunk's first comment goes on from the chunk before depends on both: the
    # chunks from `first` to `last` are looked at again, each with the one before it.
    joined = layout.joined
    joined_from = bisect.bisect_left(joined, first)
    joined_to = bisect.bisect_right(joined, old_last)
    found = _joined(text, starts, parses, max(first, 1), min(last + 1, len(starts)))
    if chunk_shift or joined[joined_from:joined_to] != found:
        joined = joined[:joined_from] + found
        joined += [index + chunk_shift for index in layout.joined[joined_to:]]
    chunks = Chunks(
        starts, parses, first_items, first_comments, with_diagnostics, with_dollars, joined
    )
    return chunks, items, bases


def _patched(
    counts: list[int], first: int, old_last: int, middle: list[int], head: int, shift: int
) -> list[int]:
    """A list of counts before each chunk (and a total last), the previous parse's with
    the chunks from `first` to `old_last` replaced by those counted in `middle` from
    `head`, and the later ones moved by `shift`: the previous list itself when that
    changes nothing (an edit inside one item)."""
    counted = [head + count for count in middle] if head else middle
    if shift == 0 and len(counted) == old_last - first and counts[first:old_last] == counted:
        return counts
    later = counts[old_last:]
    return counts[:first] + counted + ([count + shift for count in later] if shift else later)


def _joined(
    text: str, starts: list[int], parses: list[ChunkParse], first: int, end: int
) -> list[int]:
    """The chunks from `first` to `end` whose first comment goes on with the block of
    comment lines that ends the chunk before (see `_joins_before`)."""
    return [
        index
        for index in range(first, end)
        if parses[index].comments
        and parses[index].comments[0].span.start == 0
        and _joins_before(text, starts, parses, index)
    ]


def _joins_before(text: str, starts: list[int], parses: list[ChunkParse], index: int) -> bool:
    """Whether chunk `index`, which starts with a comment, starts with a line that goes on
    with the comment lines that end the chunk before: both lines hold only a comment, of
    the same kind (doc or plain). A block of comment lines is otherwise within a chunk."""
    before = parses[index - 1].comments
    if not before:
        return False
    last, first = before[-1], parses[index].comments[0]
    return (
        not last.after_code
        and last.is_doc == first.is_doc
        and text.count("\n", starts[index - 1] + last.span.start, starts[index]) == 1
    )


def _moved_bases(previous: ParseResult, old_last: int, starts: list[int], last: int) -> list[int]:
    """The bases of the previous parse's items from its chunk `old_last` on, moved to
    where those chunks start now (from `last` on in `starts`). Where each of those chunks
    has one item (as is usual), its items' bases are its chunks' starts: the same int
    objects, since both lists are made from the same starts, so comparing them takes an
    identity check each, and the new ones are the new starts themselves."""
    layout = previous.chunks
    later = previous.module.bases[layout.first_items[old_last] :]
    if later == layout.starts[old_last:]:
        return starts[last:]
    delta = starts[last] - layout.starts[old_last]
    return [base + delta for base in later]


#: `SourceFile` and `ChunkParse` as their classes make them, by plain functions (see
#: `shapescript.syntax.nodes`): one of each per chunk.
_new_source = nodes.maker(SourceFile)
_new_chunk_parse = nodes.maker(ChunkParse)


def _parse_chunk(path: str, text: str, notebook: bool) -> ChunkParse:
    source = _new_source(path, text)
    lexed = lex(source, notebook=notebook)
    parser = _Parser(source, lexed.tokens, notebook)
    parser.quiet_regions = lexed.unclosed_regions
    module = parser.parse_module()
    if len(lexed.tokens) * NODES_PER_TOKEN > MAX_TREE_DEPTH:
        _replace_too_deep_items(module, parser.diagnostics)
    diagnostics = lexed.diagnostics + _off_lexed_lines(parser.diagnostics, lexed, source)
    diagnostics.extend(attach_doc_comments(module, lexed.comments, source))
    return _new_chunk_parse(module.items, diagnostics, lexed.comments)


def _off_lexed_lines(
    diagnostics: list[Diagnostic], lexed: LexResult, source: SourceFile
) -> list[Diagnostic]:
    """The parser's diagnostics but those on a line the lexer already reported an error
    on: after a bad character or bracket, the parser's complaint is its knock-on."""
    if not lexed.diagnostics or not diagnostics:
        return diagnostics
    lexed_lines = {source.position(d.primary.span.start).line for d in lexed.diagnostics}
    return [d for d in diagnostics if source.position(d.primary.span.start).line not in lexed_lines]


def _replace_too_deep_items(module: ast.Module, diagnostics: list[Diagnostic]) -> None:
    """Turn each item whose tree is deeper than the limit into an error node (E0209)."""
    for index, item in enumerate(module.items):
        deepest = too_deep(item)
        if deepest is None:
            continue
        module.items[index] = nodes.ErrorItem(item.span)
        diagnostics.append(
            Diagnostic(
                "E0209",
                f"this declaration is more than {MAX_TREE_DEPTH} levels deep",
                Label(deepest.span, "too deep from here on"),
                help="split the expression: bind parts of it to names first",
            )
        )


def shift_span(span: Span, offset: int) -> Span:
    return Span(span.start + offset, span.end + offset)


def shift_diagnostic(diagnostic: Diagnostic, offset: int) -> Diagnostic:
    """A copy of a diagnostic with every span moved by `offset` characters."""
    if offset == 0:
        return diagnostic
    return Diagnostic(
        diagnostic.code,
        diagnostic.message,
        Label(shift_span(diagnostic.primary.span, offset), diagnostic.primary.message),
        [Label(shift_span(label.span, offset), label.message) for label in diagnostic.secondary],
        list(diagnostic.notes),
        diagnostic.help,
        diagnostic.path,
        [fix.moved(offset) for fix in diagnostic.fixes],
    )


def parse_text(text: str, path: str = "<text>", *, notebook: bool = False) -> ParseResult:
    return parse(SourceFile.from_text(path, text), notebook=notebook)


#: `make_span` without its call, a span shared with every other of the same offsets
#: (`source.shared_span`): a span is made for nearly every node and token.
_new_span = shared_span


class _Parser:
    def __init__(self, source: SourceFile, tokens: list[Token], notebook: bool) -> None:
        self.source = source
        self.tokens = tokens
        self.pos = 0
        self.notebook = notebook
        self.diagnostics: list[Diagnostic] = []
        self._error_offsets: set[int] = set()
        self._placeholders: list[ast.Placeholder] = []
        self.quiet_regions: list[Span] = []
        self.in_function = False
        self.nesting = 0
        #: Whether an assert's condition is being parsed, the one place `%` may appear.
        self.in_assert = False

    # ------------------------------------------------------------ token helpers

    def peek(self, offset: int = 0) -> Token:
        index = self.pos + offset
        tokens = self.tokens
        return tokens[index] if index < len(tokens) else tokens[-1]

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def at(self, kind: str) -> bool:
        return self.tokens[self.pos].kind == kind

    def at_word(self, word: str) -> bool:
        token = self.tokens[self.pos]
        return token.kind == NAME and token.text == word

    def advance(self) -> Token:
        token = self.tokens[self.pos]
        if token.kind != EOF:
            self.pos += 1
        return token

    def previous_end(self) -> int:
        return self.tokens[self.pos - 1].end if self.pos > 0 else 0

    def expect(self, kind: str, what: str) -> Token:
        token = self.tokens[self.pos]
        if token.kind == kind:
            self.pos += 1
            return token
        self.fail_expected(what)
        raise AssertionError("unreachable")

    def expect_name(self, what: str) -> Token:
        return self.expect(NAME, what)

    # ------------------------------------------------------------ reporting

    def report(
        self,
        code: str,
        message: str,
        span: Span,
        label: str = "",
        *,
        help: str | None = None,
        token: Token | None = None,
        fixes: list[Fix] | None = None,
    ) -> None:
        """Record a diagnostic unless one is already at this place or the token is invented."""
        if token is not None and token.synthetic:
            return
        if span.start in self._error_offsets:
            return
        for region in self.quiet_regions:
            if region.start <= span.start <= region.end:
                return
        self._error_offsets.add(span.start)
        self.diagnostics.append(
            Diagnostic(code, message, Label(span, label), help=help, fixes=list(fixes or []))
        )

    def fail(self, code: str, message: str, span: Span, label: str = "", *, help=None, token=None):
        self.report(code, message, span, label, help=help, token=token)
        raise _Abort

    def fail_expected(self, what: str, help: str | None = None) -> None:
        token = self.tok
        self.fail(
            "E0201",
            f"expected {what}, found {describe(token)}",
            token.span,
            f"expected {what}",
            help=help,
            token=token,
        )

    def enter(self) -> None:
        """One level deeper into brackets, blocks or lambdas; E0209 past the limit."""
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            self.nesting -= 1
            token = self.tok
            self.fail(
                "E0209",
                f"brackets, blocks and lambdas are nested more than {MAX_NESTING} levels deep",
                token.span,
                "too deep here",
                help="bind the inner parts to names, or move them into functions of their own",
            )

    # ------------------------------------------------------------ recovery

    def skip_block(self) -> None:
        """Skip an INDENT ... DEDENT block (with any blocks nested in it)."""
        depth = 0
        while not self.at(EOF):
            kind = self.advance().kind
            if kind == INDENT:
                depth += 1
            elif kind == DEDENT:
                depth -= 1
                if depth <= 0:
                    return

    def synchronize(self, start: int) -> None:
        """Skip to the end of the line that failed and past the block indented under it.

        `start` is the token index where the failed statement or item began; when the
        error came after its line ended, only the block under it is left to skip.
        """
        tokens = self.tokens
        if self.pos > start and tokens[self.pos - 1].kind == NEWLINE and not self.at(NEWLINE):
            if self.at(INDENT):
                self.skip_block()
            return
        while not self.at(NEWLINE) and not self.at(EOF) and not self.at(DEDENT):
            self.pos += 1
        if self.at(NEWLINE):
            self.pos += 1
        if self.at(INDENT):
            self.skip_block()
        if self.pos == start and not self.at(EOF):
            self.pos += 1

    def flush_placeholders(self) -> None:
        for placeholder in self._placeholders:
            if not placeholder.in_stage:
                self.report(
                    "E0205",
                    "`_` can only be an argument of a call in a pipe stage",
                    placeholder.span,
                    "not an argument of a pipe stage",
                    help="pipe the value in: `x |> add(y, _)`, or pass it by name",
                )
        self._placeholders.clear()

    # ------------------------------------------------------------ module and items

    def parse_module(self) -> ast.Module:
        items: list[ast.Item] = []
        tokens = self.tokens
        while True:
            token = tokens[self.pos]
            kind = token.kind
            if kind == EOF:
                break
            if kind == NEWLINE or kind == DEDENT:
                self.pos += 1
                continue
            if kind == INDENT:
                self.report_unexpected_indent()
                continue
            start = token.start
            start_index = self.pos
            try:
                item = self.parse_item()
            except _Abort:
                self.synchronize(start_index)
                item = nodes.ErrorItem(_new_span(Span, (start, self.previous_end())))
            if self._placeholders:
                self.flush_placeholders()
            if item is not None:
                items.append(item)
        return nodes.Module(items, _new_span(Span, (0, len(self.source.text))), self.notebook)

    def report_unexpected_indent(self) -> None:
        token = self.tok
        self.report(
            "E0202",
            "unexpected indentation",
            token.span,
            "this line is indented more than the one before it",
            help="only the line after a `:` that ends a fn, for, if, else, model, data or logs "
            "line starts a block; to continue an expression, use brackets or start the line "
            "with `|>`",
        )
        self.skip_block()

    def parse_item(self) -> ast.Item | None:
        token = self.tokens[self.pos]
        kind = token.kind
        if kind == "dim":
            return self.parse_dim()
        if kind == "domain":
            return self.parse_domain()
        if kind == "fn":
            return self.parse_fn(export=False, start=token.start)
        if kind == "extern":
            return self.parse_extern()
        if kind == "import":
            return self.parse_import()
        if kind == NAME:
            following = self.peek(1)
            word = token.text
            if word == "assert" and not self.notebook and self._assert_ahead():
                # In a notebook cell a top-level assert is one of the cell's statements.
                return self.parse_assert()
            if word == "export" and following.kind == "fn":
                self.advance()
                return self.parse_fn(export=True, start=token.start)
            if word == "export" and following.kind == "extern":
                self.fail(
                    "E0201",
                    "`export extern fn` isn't a declaration",
                    _new_span(Span, (token.start, following.end)),
                    "an extern fn can't be exported",
                    help="export a `fn` that calls the extern fn instead",
                )
            if following.kind == NAME:
                if word == "model":
                    return self.parse_model()
                if word == "data":
                    return self.parse_data()
                if word == "logs":
                    return self.parse_logs()
                if word == "devices":
                    return self.parse_devices()
        if self.notebook:
            stmt = self.parse_stmt()
            return nodes.StmtItem(stmt, stmt.span)
        self.fail(
            "E0207",
            f"expected a declaration, found {describe(token)}",
            token.span,
            "statements can only be inside a function",
            help="at the top level a file holds devices, dim, domain, fn, extern fn, import, "
            "assert, model, data and logs declarations",
            token=token,
        )
        return None

    def expect_line_end(self) -> None:
        kind = self.tokens[self.pos].kind
        if kind == NEWLINE:
            self.pos += 1
            return
        if kind == EOF or kind == DEDENT:
            return
        if self.at("->"):
            self.report_pattern_outside(self.tok.span)
            raise _Abort
        self.fail_expected("the end of the line", self._lone_carriage_return_help())

    def _lone_carriage_return_help(self) -> str | None:
        """Help for a token after a lone `\\r`, which editors show on a line of its own."""
        if self.pos == 0:
            return None
        gap = self.source.text[self.tokens[self.pos - 1].span.end : self.tok.span.start]
        if "\r" not in gap.replace("\r\n", ""):
            return None
        return (
            "a lone carriage return (\\r) doesn't end a line in ShapeScript, though editors "
            "show a new line there: save the file with \\n or \\r\\n line endings"
        )

    def parse_dim(self) -> ast.DimDecl | ast.AliasDecl:
        start = self.advance().start
        name = self.expect_name("the dim's name")
        self.expect("=", "`=` and the dim's value")
        if self.at("["):
            shape = self.parse_shape()
            self.expect_line_end()
            return nodes.AliasDecl(
                name.text, name.span, shape, _new_span(Span, (start, shape.span.end))
            )
        value = self.parse_size_expr()
        end = self.previous_end()
        self.expect_line_end()
        return nodes.DimDecl(name.text, name.span, value, _new_span(Span, (start, end)))

    def parse_domain(self) -> ast.DomainDecl:
        start = self.advance().start
        name = self.expect_name("the domain's name")
        self.expect("=", "`=` and an interval such as `[0, 1]`")
        opener = self.tok
        if opener.kind not in ("[", "("):
            self.fail_expected("an interval such as `[0, 1]` or `(0, inf)`")
        self.advance()
        lo = self.parse_expr()
        self.expect(",", "`,` between the interval's ends")
        hi = self.parse_expr()
        closer = self.tok
        if closer.kind not in ("]", ")"):
            self.fail_expected("`]` or `)` to close the interval")
        self.advance()
        interval = nodes.Interval(
            lo,
            hi,
            opener.kind == "[",
            closer.kind == "]",
            _new_span(Span, (opener.start, closer.end)),
        )
        self.expect_line_end()
        return nodes.DomainDecl(
            name.text, name.span, interval, _new_span(Span, (start, closer.end))
        )

    def parse_fn(self, *, export: bool, start: int) -> ast.FnDecl:
        tokens = self.tokens
        self.pos += 1
        name = tokens[self.pos]
        if name.kind != NAME:
            self.fail_expected("the function's name")
        self.pos += 1
        params = self.parse_params()
        return_type = None
        if tokens[self.pos].kind == "->":
            self.pos += 1
            return_type = self.parse_type()
        if tokens[self.pos].kind == ":":
            self.pos += 1
            self.in_function = True
            try:
                body = self.parse_suite()
            finally:
                self.in_function = False
            return nodes.FnDecl(
                name.text,
                name.span,
                params,
                return_type,
                body,
                None,
                _new_span(Span, (start, self.previous_end())),
                export=export,
            )
        if self.at("="):
            self.advance()
            if self.at(NEWLINE):
                self.fail_expected(
                    "the body after `=` on the same line",
                    help="a one-line body follows `=` on its line; for a longer body, end the "
                    "signature with `:` and indent the body under it",
                )
            expr = self.parse_expr()
            end = self.previous_end()
            self.expect_line_end()
            return nodes.FnDecl(
                name.text,
                name.span,
                params,
                return_type,
                None,
                expr,
                _new_span(Span, (start, end)),
                export=export,
            )
        what = "`:` or `=` after the signature" if return_type else "`->`, `:` or `=`"
        self.fail_expected(
            what, help="write `: ` and an indented block, or `= expr` for a one-line body"
        )
        raise AssertionError("unreachable")

    def parse_params(self) -> list[ast.Param]:
        self.expect("(", "`(` and the parameters")
        tokens = self.tokens
        params: list[ast.Param] = []
        while tokens[self.pos].kind != ")":
            params.append(self.parse_param())
            kind = tokens[self.pos].kind
            if kind == ",":
                self.pos += 1
            elif kind != ")":
                self.fail_expected("`,` or `)` after a parameter")
        self.pos += 1
        return params

    def parse_param(self) -> ast.Param:
        tokens = self.tokens
        token = tokens[self.pos]
        start = token.start
        mut = False
        if token.kind == NAME and token.text == "mut" and tokens[self.pos + 1].kind == NAME:
            self.pos += 1
            mut = True
        name = tokens[self.pos]
        if name.kind != NAME:
            self.fail_expected("a parameter name")
        self.pos += 1
        type_ = None
        default = None
        if tokens[self.pos].kind == ":":
            self.pos += 1
            type_ = self.parse_type()
        if tokens[self.pos].kind == "=":
            self.pos += 1
            default = self.parse_expr()
        return nodes.Param(
            name.text,
            _new_span(Span, (name.start, name.end)),
            type_,
            default,
            _new_span(Span, (start, tokens[self.pos - 1].end)),
            mut,
        )

    def parse_extern(self) -> ast.ExternFnDecl:
        start = self.advance().start
        self.expect("fn", "`fn` after `extern`")
        name = self.expect_name("the function's name")
        params = self.parse_params()
        return_type = None
        if self.at("->"):
            self.advance()
            return_type = self.parse_type()
        self.expect("=", "`=` and the Python function's dotted name as a string")
        path_token = self.expect(STRING, 'the Python function\'s dotted name, as "torch.exp"')
        path = nodes.StringLit(str(path_token.value), path_token.span)
        self.expect_line_end()
        return nodes.ExternFnDecl(
            name.text,
            name.span,
            params,
            return_type,
            path,
            _new_span(Span, (start, path_token.end)),
        )

    def parse_dotted(self, what: str) -> tuple[list[str], Span]:
        first = self.expect_name(what)
        if self.tokens[self.pos].kind != ".":
            return [first.text], _new_span(Span, (first.start, first.end))
        parts = [first.text]
        end = first.end
        while self.at(".") and self.peek(1).kind == NAME:
            self.advance()
            part = self.advance()
            parts.append(part.text)
            end = part.end
        return parts, _new_span(Span, (first.start, end))

    def parse_import(self) -> ast.ImportPythonDecl | ast.ImportDecl:
        start = self.advance().start
        if self.at_word("python") and self.peek(1).kind == NAME:
            self.advance()
            parts, parts_span = self.parse_dotted("a Python module name")
            self.expect_line_end()
            return nodes.ImportPythonDecl(
                parts, _new_span(Span, (start, parts_span.end)), parts_span
            )
        parts, parts_span = self.parse_dotted("a module name")
        alias = None
        alias_span = None
        end = parts_span.end
        if self.at("as"):
            self.advance()
            alias_token = self.expect_name("the name to bind the module to")
            alias, alias_span, end = alias_token.text, alias_token.span, alias_token.end
        self.expect_line_end()
        return nodes.ImportDecl(parts, alias, _new_span(Span, (start, end)), parts_span, alias_span)

    def parse_block_header(self, what: str) -> Token:
        self.advance()
        name = self.expect_name(f"the {what}'s name")
        self.expect(":", f"`:` after the {what}'s name")
        self.expect(NEWLINE, "the end of the line after `:`")
        if not self.at(INDENT):
            self.fail_expected(f"an indented block of the {what}'s fields")
        self.advance()
        return name

    def parse_members(self, parse_one, what: str) -> list:
        """Parse the lines of a model, data or logs block, recovering line by line."""
        members = []
        tokens = self.tokens
        while True:
            kind = tokens[self.pos].kind
            if kind == DEDENT or kind == EOF:
                break
            if kind == NEWLINE:
                self.pos += 1
                continue
            if kind == INDENT:
                self.report_unexpected_indent()
                continue
            start_index = self.pos
            try:
                members.append(parse_one())
            except _Abort:
                self.synchronize(start_index)
        if self.at(DEDENT):
            self.advance()
        return members

    def parse_model(self) -> ast.ModelDecl:
        start = self.tok.start
        name = self.parse_block_header("model")
        fields = self.parse_members(self.parse_model_field, "model")
        return nodes.ModelDecl(
            name.text, name.span, fields, _new_span(Span, (start, self.previous_end()))
        )

    def parse_model_field(self) -> ast.FieldDecl:
        tokens = self.tokens
        token = tokens[self.pos]
        if (
            token.kind == NAME
            and token.text not in ("param", "buffer")
            and tokens[self.pos + 1].kind == ":"
        ):
            return self.parse_nested_model_field()
        if token.kind != NAME or token.text not in ("param", "buffer"):
            self.fail(
                "E0201",
                f"expected `param` or `buffer`, found {describe(token)}",
                token.span,
                "a model's block holds only fields",
                help="write each field as `param name: [D C] = normal(std=0.02)`",
                token=token,
            )
        self.pos += 1
        name = tokens[self.pos]
        if name.kind != NAME:
            self.fail_expected("the field's name")
        self.pos += 1
        if tokens[self.pos].kind != ":":
            self.fail_expected("`:` and the field's type")
        self.pos += 1
        type_ = self.parse_type()
        init = None
        if tokens[self.pos].kind == "=":
            self.pos += 1
            init = self.parse_expr()
        end = tokens[self.pos - 1].end
        self.expect_line_end()
        return nodes.FieldDecl(
            token.text, name.text, name.span, type_, init, _new_span(Span, (token.start, end))
        )

    def parse_nested_model_field(self) -> ast.FieldDecl:
        """`attn: Attention` or `h: [L] Block`: a field that holds models, kind "model"."""
        tokens = self.tokens
        name = tokens[self.pos]
        self.pos += 2
        type_ = self.parse_type()
        init = None
        if tokens[self.pos].kind == "=":
            self.pos += 1
            init = self.parse_expr()
        end = tokens[self.pos - 1].end
        self.expect_line_end()
        return nodes.FieldDecl(
            "model", name.text, name.span, type_, init, _new_span(Span, (name.start, end))
        )

    def parse_data(self) -> ast.DataDecl:
        start = self.tok.start
        name = self.parse_block_header("data record")
        fields = self.parse_members(self.parse_data_field, "data record")
        return nodes.DataDecl(
            name.text, name.span, fields, _new_span(Span, (start, self.previous_end()))
        )

    def parse_data_field(self) -> ast.DataField:
        name = self.tok
        if name.kind != NAME:
            self.fail(
                "E0201",
                f"expected a field name, found {describe(name)}",
                name.span,
                "a data record's block holds only fields",
                help="write each field as `name: [D]`",
                token=name,
            )
        self.advance()
        self.expect(":", "`:` and the field's type")
        type_ = self.parse_type()
        end = self.previous_end()
        self.expect_line_end()
        return nodes.DataField(name.text, name.span, type_, _new_span(Span, (name.start, end)))

    def parse_logs(self) -> ast.LogsDecl:
        start = self.tok.start
        name = self.parse_block_header("logs record")
        metrics = self.parse_members(self.parse_metric, "logs record")
        return nodes.LogsDecl(
            name.text, name.span, metrics, _new_span(Span, (start, self.previous_end()))
        )

    def parse_metric(self) -> ast.Metric:
        name = self.tok
        if name.kind != NAME:
            self.fail(
                "E0201",
                f"expected a metric name, found {describe(name)}",
                name.span,
                "a logs record's block holds only metrics",
                help="write each metric as `loss: [] mean`",
                token=name,
            )
        self.advance()
        self.expect(":", "`:` and the metric's type")
        type_ = self.parse_type()
        combine = None
        combine_span = None
        if self.at(NAME):
            word = self.advance()
            combine, combine_span = word.text, word.span
        elif type_.words and type_.dtype is None:
            last = type_.words[-1]
            if last.arg is None and last.over is None:
                type_.words.pop()
                combine, combine_span = last.name, last.span
                type_.span = _new_span(Span, (type_.span.start, self._type_end(type_)))
        end = self.previous_end()
        self.expect_line_end()
        return nodes.Metric(
            name.text, name.span, type_, combine, combine_span, _new_span(Span, (name.start, end))
        )

    @staticmethod
    def _type_end(type_: ast.TypeExpr) -> int:
        if type_.words:
            return type_.words[-1].span.end
        if type_.shape is not None:
            return type_.shape.span.end
        return type_.span.start

    def parse_devices(self) -> ast.DevicesDecl:
        start = self.advance().start
        device = self.expect_name("a device such as `cpu` or `cuda`")
        numbers = None
        end = device.end
        if self.at("["):
            self.advance()
            numbers = []
            while self.at(INT):
                numbers.append(int(self.advance().value))
            end = self.expect("]", "device numbers and `]`").end
        self.expect_line_end()
        options: list[ast.DeviceOption] = []
        if self.at(INDENT):
            self.advance()
            while not self.at(DEDENT) and not self.at(EOF):
                if self.at(NEWLINE):
                    self.advance()
                    continue
                if self.at(INDENT):
                    self.report_unexpected_indent()
                    continue
                first = self.tok
                words = []
                while not self.at(NEWLINE) and not self.at(EOF) and not self.at(DEDENT):
                    words.append(self.advance().text)
                options.append(
                    nodes.DeviceOption(words, _new_span(Span, (first.start, self.previous_end())))
                )
            if self.at(DEDENT):
                self.advance()
        return nodes.DevicesDecl(
            device.text, device.span, numbers, options, _new_span(Span, (start, end))
        )

    # ------------------------------------------------------------ statements

    def parse_suite(self) -> list[ast.Stmt]:
        """`:` was consumed: NEWLINE, INDENT, statements, DEDENT."""
        self.enter()
        try:
            return self._parse_suite()
        finally:
            self.nesting -= 1

    def _parse_suite(self) -> list[ast.Stmt]:
        self.expect(NEWLINE, "the end of the line after `:`")
        if not self.at(INDENT):
            self.fail_expected("an indented block")
        self.advance()
        body: list[ast.Stmt] = []
        tokens = self.tokens
        while True:
            token = tokens[self.pos]
            kind = token.kind
            if kind == DEDENT or kind == EOF:
                break
            if kind == NEWLINE:
                self.pos += 1
                continue
            if kind == INDENT:
                self.report_unexpected_indent()
                continue
            start = token.start
            start_index = self.pos
            try:
                body.append(self.parse_stmt())
            except _Abort:
                self.synchronize(start_index)
                body.append(nodes.ErrorStmt(_new_span(Span, (start, self.previous_end()))))
            if self._placeholders:
                self.flush_placeholders()
        if tokens[self.pos].kind == DEDENT:
            self.pos += 1
        return body

    def _looks_like_declaration(self) -> bool:
        token = self.tok
        if token.kind in _DECLARATION_KEYWORDS:
            return True
        if token.kind != NAME:
            return False
        following = self.peek(1)
        if token.text == "export" and following.kind == "fn":
            return True
        return (
            token.text in _BLOCK_DECLARATIONS
            and following.kind == NAME
            and self.peek(2).kind == ":"
        )

    def parse_stmt(self) -> ast.Stmt:
        tokens = self.tokens
        token = tokens[self.pos]
        kind = token.kind
        if kind == "return":
            if not self.in_function:
                self.fail(
                    "E0201",
                    "`return` outside a function",
                    token.span,
                    "there is no function to return from",
                    help="a notebook cell's statements run at the top level; show a value by "
                    "ending the cell with it",
                )
            self.pos += 1
            value = None
            kind = tokens[self.pos].kind
            if kind != NEWLINE and kind != EOF and kind != DEDENT:
                value = self.parse_expr()
            end = tokens[self.pos - 1].end
            self.expect_line_end()
            return nodes.Return(value, _new_span(Span, (token.start, end)))
        if kind == "for":
            return self.parse_for()
        if kind == "if":
            return self.parse_if()
        if kind == "else":
            self.fail(
                "E0201",
                "`else` without an `if` block before it",
                token.span,
                "unexpected `else`",
                help="`else:` goes on the line after the if block, indented like the `if`",
            )
        if (
            kind in _DECLARATION_KEYWORDS or (kind == NAME and token.text in _DECLARATION_WORDS)
        ) and self._looks_like_declaration():
            self.fail(
                "E0201",
                "a declaration can't be inside a function",
                token.span,
                "declarations belong at the top level",
                help="move it out of the function, to the top level of the file",
            )
        if kind == NAME:
            following = tokens[self.pos + 1].kind
            if following == "=" or following == ",":
                return self.parse_assign()
            if token.text == "assert" and self._assert_ahead():
                return self.parse_assert()
            if following == "." and self.peek(2).kind == NAME and self.peek(3).kind == "=":
                target = nodes.Name(token.text, token.span)
                self.advance()
                self.advance()
                field = self.advance()
                self.advance()
                value = self.parse_expr()
                end = self.previous_end()
                self.expect_line_end()
                return nodes.FieldAssign(
                    target, field.text, field.span, value, _new_span(Span, (token.start, end))
                )
        expr = self.parse_expr()
        if tokens[self.pos].kind == "=" and _is_field_path(expr):
            # `m.h[l].attn.w = e`: a field of a model that another model holds.
            self.advance()
            value = self.parse_expr()
            end = self.previous_end()
            self.expect_line_end()
            return nodes.FieldAssign(
                expr.target, expr.name, expr.name_span, value, _new_span(Span, (token.start, end))
            )
        end = tokens[self.pos - 1].end
        self.expect_line_end()
        return nodes.ExprStmt(expr, _new_span(Span, (token.start, end)))

    def _assert_ahead(self) -> bool:
        """Whether the name `assert` here starts an assert statement: `assert` is a keyword
        only at the start of a statement, followed on its line by a name, a number, `-`, or
        `(` after a space (`assert(x)` stays a call of a function named `assert`)."""
        word = self.tokens[self.pos]
        following = self.tokens[self.pos + 1]
        if following.kind in (NAME, INT, "-", "true", "false"):
            return True
        return following.kind == "(" and following.start > word.end

    def parse_assert(self) -> ast.Assert:
        keyword = self.advance()
        self.in_assert = True
        try:
            condition = self.parse_expr()
        finally:
            self.in_assert = False
        end = self.previous_end()
        self.expect_line_end()
        return nodes.Assert(condition, _new_span(Span, (keyword.start, end)), keyword.span)

    def parse_assign(self) -> ast.Assign:
        tokens = self.tokens
        start = tokens[self.pos].start
        targets = []
        while True:
            name = tokens[self.pos]
            if name.kind != NAME:
                self.fail_expected("a name to bind")
            self.pos += 1
            targets.append(nodes.Target(name.text, _new_span(Span, (name.start, name.end))))
            if tokens[self.pos].kind != ",":
                break
            self.pos += 1
        if tokens[self.pos].kind != "=":
            self.fail_expected("`=` after the names")
        self.pos += 1
        value = self.parse_expr()
        end = tokens[self.pos - 1].end
        self.expect_line_end()
        return nodes.Assign(targets, value, _new_span(Span, (start, end)))

    def parse_for(self) -> ast.For:
        start = self.advance().start
        var = self.expect_name("the loop variable")
        self.expect("in", "`in` after the loop variable")
        iterable = self.parse_expr()
        self.expect(":", "`:` at the end of the for line")
        body = self.parse_suite()
        return nodes.For(
            nodes.Target(var.text, var.span),
            iterable,
            body,
            _new_span(Span, (start, self.previous_end())),
        )

    def parse_if(self) -> ast.If:
        start = self.advance().start
        condition = self.parse_expr()
        self.expect(":", "`:` at the end of the if line")
        then_body = self.parse_suite()
        else_body = None
        else_span = None
        if self.at("else"):
            else_token = self.advance()
            else_span = else_token.span
            if self.at("if"):
                self.fail(
                    "E0201",
                    "there is no `else if`",
                    else_token.span.cover(self.tok.span),
                    "expected `:` after `else`",
                    help="nest an `if` inside the `else:` block",
                )
            self.expect(":", "`:` after `else`")
            else_body = self.parse_suite()
        return nodes.If(
            condition,
            then_body,
            else_body,
            _new_span(Span, (start, self.previous_end())),
            else_span,
        )

    # ------------------------------------------------------------ expressions

    def _lambda_ahead(self) -> bool:
        token = self.tokens[self.pos]
        kind = token.kind
        if kind == NAME or kind == "_":
            return self.tokens[self.pos + 1].kind == "=>"
        if kind == "(":
            close = token.partner
            return 0 <= close < len(self.tokens) - 1 and self.tokens[close + 1].kind == "=>"
        return False

    def parse_expr(self) -> ast.Expr:
        if self.nesting >= MAX_NESTING:
            self.enter()  # reports E0209 and raises
        self.nesting += 1
        try:
            # `_lambda_ahead`, without its call.
            tokens = self.tokens
            token = tokens[self.pos]
            kind = token.kind
            if kind == NAME or kind == "_":
                if tokens[self.pos + 1].kind == "=>":
                    return self.parse_lambda()
            elif kind == "(":
                close = token.partner
                if 0 <= close < len(tokens) - 1 and tokens[close + 1].kind == "=>":
                    return self.parse_lambda()
            start = token.start
            left = self.parse_binary(1)
            kind = tokens[self.pos].kind
            if kind == "..":
                self.pos += 1
                hi = self.parse_binary(1)
                left = nodes.Range(left, hi, _new_span(Span, (start, tokens[self.pos - 1].end)))
                kind = tokens[self.pos].kind
            if kind != "|>":
                return left
            return self._parse_pipe(left, start)
        finally:
            self.nesting -= 1

    def _parse_pipe(self, left: ast.Expr, start: int) -> ast.Pipe:
        """The stages after `left`, at a `|>`."""
        stages: list[ast.Expr | ast.ToStage] = []
        bars: list[Span] = []
        while self.at("|>"):
            bars.append(self.advance().span)
            if self.at("to"):
                to_start = self.advance().start
                type_ = self.parse_type()
                stages.append(
                    nodes.ToStage(type_, _new_span(Span, (to_start, self.previous_end())))
                )
                continue
            stage = self.parse_binary(1)
            stages.append(self.check_stage(stage, start))
        return nodes.Pipe(left, stages, _new_span(Span, (start, self.previous_end())), bars)

    def check_stage(self, stage: ast.Expr, pipe_start: int | None = None) -> ast.Expr:
        """A stage is a name, a member, or a call of one; mark its `_` arguments."""
        callee = stage.callee if isinstance(stage, ast.Call) else stage
        if not self._is_callable_path(callee):
            self.report(
                "E0204",
                "a pipe stage must be a function name, a call or `to T`",
                stage.span,
                "this isn't a function to pipe into",
                help="to use a pipeline's result, wrap it in parentheses: `(x |> f) + 1`, "
                "`(x |> f) as T`",
                fixes=self._pipeline_in_parentheses(stage, pipe_start),
            )
            return nodes.ErrorExpr(stage.span)
        if isinstance(stage, ast.Call):
            seen = 0
            for arg in stage.args:
                if isinstance(arg.value, ast.Placeholder):
                    seen += 1
                    if seen > 1:
                        self.report(
                            "E0205",
                            "a pipe stage can take `_` only once",
                            arg.value.span,
                            "second `_` in this stage",
                            help="the piped value goes in one place; name it with a binding "
                            "to use it twice",
                        )
                    arg.value.in_stage = True
            if isinstance(stage.callee, ast.Name) and stage.callee.name in ("map", "filter"):
                function = next((arg.value for arg in stage.args if arg.name is None), None)
                if isinstance(function, ast.Call) and self._is_callable_path(function.callee):
                    self.check_stage(function)
        return stage

    def _pipeline_in_parentheses(self, stage: ast.Expr, pipe_start: int | None) -> list[Fix]:
        """`x |> f + 1` as `(x |> f) + 1`: the pipeline closed after the stage's first
        operand, when that operand is a function to pipe into."""
        head = stage
        while isinstance(head, (ast.Binary, ast.Cast)):
            head = head.left if isinstance(head, ast.Binary) else head.operand
        callee = head.callee if isinstance(head, ast.Call) else head
        if pipe_start is None or head is stage or not self._is_callable_path(callee):
            return []
        edits = (
            Edit(Span(pipe_start, pipe_start), "("),
            Edit(Span(head.span.end, head.span.end), ")"),
        )
        return [Fix("Put the pipeline in parentheses", edits)]

    @staticmethod
    def _is_callable_path(expr: ast.Expr) -> bool:
        while isinstance(expr, ast.Member):
            expr = expr.target
        return isinstance(expr, ast.Name)

    def parse_lambda(self) -> ast.Lambda:
        start = self.tok.start
        params: list[ast.LambdaParam] = []
        if self.at("("):
            self.advance()
            while not self.at(")"):
                token = self.tok
                if token.kind not in (NAME, "_"):
                    self.fail_expected("a parameter name or `_`")
                self.advance()
                params.append(nodes.LambdaParam(token.text, token.span))
                if self.at(","):
                    self.advance()
                elif not self.at(")"):
                    self.fail_expected("`,` or `)`")
            self.advance()
        else:
            token = self.advance()
            params.append(nodes.LambdaParam(token.text, token.span))
        self.expect("=>", "`=>`")
        body = self.parse_expr()
        return nodes.Lambda(params, body, _new_span(Span, (start, self.previous_end())))

    def parse_binary(self, min_precedence: int) -> ast.Expr:
        tokens = self.tokens
        kind = tokens[self.pos].kind
        if kind == "-" or kind == "!":
            left = self.parse_unary()
        else:
            # `parse_unary` and `parse_cast` of an operand with neither, without their calls.
            left = self.parse_postfix()
            kind = tokens[self.pos].kind
            if kind == "as" or kind == "to":
                left = self._parse_casts(left)
        compared = False
        while True:
            op_token = tokens[self.pos]
            precedence = _BINARY_PRECEDENCE.get(op_token.kind)
            if precedence is None or precedence < min_precedence:
                return left
            self.pos += 1
            if op_token.kind == "%" and not self.in_assert:
                self.report(
                    "E0101",
                    "`%` is allowed only in an assert, to test divisibility",
                    op_token.span,
                    "not in an assert",
                    help="state that a size divides another as `assert D % h == 0`",
                )
            if precedence == _COMPARISON_PRECEDENCE:
                if compared:
                    self.report(
                        "E0206",
                        "comparisons don't chain",
                        op_token.span,
                        "second comparison",
                        help="compare twice and join them: `a < b and b < c`",
                    )
                compared = True
            right = self.parse_binary(precedence + 1)
            left = nodes.Binary(
                op_token.kind,
                left,
                right,
                _new_span(Span, (left.span.start, right.span.end)),
                op_token.span,
            )

    def parse_unary(self) -> ast.Expr:
        tokens = self.tokens
        token = tokens[self.pos]
        if token.kind != "-" and token.kind != "!":
            return self.parse_cast()
        operators: list[Token] = []
        while token.kind == "-" or token.kind == "!":
            operators.append(token)
            self.pos += 1
            token = tokens[self.pos]
        expr = self.parse_cast()
        for operator in reversed(operators):
            expr = nodes.Unary(
                operator.kind, expr, _new_span(Span, (operator.start, expr.span.end))
            )
        return expr

    def parse_cast(self) -> ast.Expr:
        return self._parse_casts(self.parse_postfix())

    def _parse_casts(self, expr: ast.Expr) -> ast.Expr:
        while True:
            kind = self.tokens[self.pos].kind
            if kind != "as" and kind != "to":
                return expr
            self.pos += 1
            type_ = self.parse_type()
            expr = nodes.Cast(kind, expr, type_, _new_span(Span, (expr.span.start, type_.span.end)))

    def parse_postfix(self) -> ast.Expr:
        tokens = self.tokens
        token = tokens[self.pos]
        if token.kind == NAME:
            # `parse_atom` of a name, most atoms, without its call.
            self.pos += 1
            expr = nodes.Name(token.text, _new_span(Span, (token.start, token.end)))
        else:
            expr = self.parse_atom()
        while True:
            kind = tokens[self.pos].kind
            if kind == "(":
                expr = self.parse_call(expr)
            elif kind == "[":
                expr = self.parse_index(expr)
            elif kind == ".":
                self.pos += 1
                name = tokens[self.pos]
                if name.kind != NAME:
                    self.fail_expected("a name after `.`")
                self.pos += 1
                expr = nodes.Member(
                    expr,
                    name.text,
                    _new_span(Span, (name.start, name.end)),
                    _new_span(Span, (expr.span.start, name.end)),
                )
            elif kind == "*" and self._at_power():
                return self._power(expr, token.start)
            else:
                return expr

    def _at_power(self) -> bool:
        """Whether the next tokens are `**`: two `*` with nothing between them."""
        tokens = self.tokens
        star, following = tokens[self.pos], tokens[self.pos + 1]
        return following.kind == "*" and following.start == star.end

    def _power(self, base: ast.Expr, start: int) -> ast.Expr:
        """`a ** b`, as Python writes a power: one E0201 (there is no `**`), whose fix writes
        `pow(a, b)`, which is also what the tree holds, so the rest is checked. `start` is
        where the base's first token starts (before any parenthesis)."""
        tokens = self.tokens
        base_end = tokens[self.pos - 1].end
        stars = _new_span(Span, (tokens[self.pos].start, tokens[self.pos + 1].end))
        self.pos += 2
        exponent_start = tokens[self.pos].start
        exponent = self.parse_unary()
        end = tokens[self.pos - 1].end
        span = _new_span(Span, (start, end))
        text = self.source.text
        written = f"pow({text[start:base_end]}, {text[exponent_start:end]})"
        self.report(
            "E0201",
            "ShapeScript has no `**` operator: a power is `pow(x, y)`",
            span,
            "a power",
            help=f"write `{written}`",
            fixes=[Fix(f"Write `{written}`", (Edit(span, written),))],
        )
        arguments = [
            nodes.Arg(base, base.span, mut=False),
            nodes.Arg(exponent, exponent.span, mut=False),
        ]
        return nodes.Call(nodes.Name("pow", stars), arguments, span)

    def parse_atom(self) -> ast.Expr:
        token = self.tokens[self.pos]
        kind = token.kind
        if kind == NAME:
            self.pos += 1
            return nodes.Name(token.text, _new_span(Span, (token.start, token.end)))
        if kind == INT:
            self.pos += 1
            return nodes.IntLit(int(token.value), _new_span(Span, (token.start, token.end)))
        if kind == FLOAT:
            self.pos += 1
            return nodes.FloatLit(
                float(token.value), token.text, _new_span(Span, (token.start, token.end))
            )
        if kind == "(":
            self.pos += 1
            inner = self.parse_expr()
            close = self.expect(")", "`)`")
            del close
            return inner
        if kind == STRING:
            self.pos += 1
            return nodes.StringLit(str(token.value), _new_span(Span, (token.start, token.end)))
        if kind == "true" or kind == "false":
            self.pos += 1
            return nodes.BoolLit(kind == "true", _new_span(Span, (token.start, token.end)))
        if kind == "inf":
            self.pos += 1
            return nodes.InfLit(_new_span(Span, (token.start, token.end)))
        if kind == "_":
            self.pos += 1
            placeholder = nodes.Placeholder(_new_span(Span, (token.start, token.end)))
            self._placeholders.append(placeholder)
            return placeholder
        if kind == "[":
            return self.parse_list_literal()
        if kind == GROUPED_SIZE:
            self.pos += 1
            self.report_grouped_size_outside_axis(token)
            return nodes.ErrorExpr(_new_span(Span, (token.start, token.end)))
        if kind == "->":
            self.report_pattern_outside(_new_span(Span, (token.start, token.end)))
            raise _Abort
        what = "an expression"
        self.fail_expected(what)
        raise AssertionError("unreachable")

    def report_grouped_size_outside_axis(self, token: Token) -> None:
        count, name = token.value
        self.report(
            "E2203",
            f"`{token.text}` is a grouped size, which can only be an axis of a shape",
            token.span,
            "not an axis",
            help=f"write the product as `{count} * {name}`",
            fixes=[Fix(f"Write `{count} * {name}`", (Edit(token.span, f"{count} * {name}"),))],
        )

    def report_pattern_outside(self, span: Span) -> None:
        self.report(
            "E0203",
            "a pattern can only be an argument of rearrange, reduce, repeat, einsum or split",
            span,
            "pattern here",
            help="use one of the pattern operations, as in `rearrange(x, n D -> D n)`",
        )

    def parse_list_literal(self) -> ast.Expr:
        open_token = self.tok
        close_index = open_token.partner
        if close_index < 0:
            self.fail_expected("an expression")
        # A comprehension: `[e for i in n]`.
        saved = self.pos
        self.advance()
        comprehension = None
        try:
            element = self.parse_expr()
            if self.at("for"):
                self.advance()
                var = self.expect_name("a loop variable")
                self.expect("in", "`in`")
                iterable = self.parse_expr()
                comprehension = (element, var, iterable)
        except _Abort:
            comprehension = None
        self.pos = close_index + 1
        span = _new_span(Span, (open_token.start, self.tokens[close_index].end))
        if comprehension is not None:
            element, var, iterable = comprehension
            text = self.source.text
            element_text = text[element.span.start : element.span.end]
            iterable_text = text[iterable.span.start : iterable.span.end]
            self.report(
                "E3201",
                "there are no list comprehensions: use an iterator chain",
                span,
                "comprehension",
                help=f"write `{iterable_text} |> map({var.text} => {element_text})`",
                fixes=[
                    Fix(
                        "Write it as an iterator chain",
                        (Edit(span, f"{iterable_text} |> map({var.text} => {element_text})"),),
                    )
                ],
            )
        else:
            del saved
            self.report(
                "E0201",
                "expected an expression, found `[`: there are no list literals",
                span,
                "list literal",
                help="build tensors with operations such as stack or cat",
            )
        return nodes.ErrorExpr(span)

    # ------------------------------------------------------------ calls and indexing

    def _argument_form(self) -> str:
        """Look ahead to the next `,` or `)` outside brackets: "pattern", "operands" or "plain"."""
        tokens = self.tokens
        index = self.pos
        while True:
            kind = tokens[index].kind
            if kind == "," or kind == ")" or kind == EOF or kind == NEWLINE:
                return "plain"
            if kind == "->":
                return "pattern"
            if kind == ":":
                return "operands"
            if kind == "(" or kind == "[":
                close = tokens[index].partner
                if close < 0:
                    return "plain"
                index = close
            index += 1

    def parse_call(self, callee: ast.Expr) -> ast.Call:
        tokens = self.tokens
        may_hold_patterns = tokens[self.pos].value is True
        self.pos += 1
        args: list[ast.Arg] = []
        operands_form = False
        while tokens[self.pos].kind != ")":
            token = tokens[self.pos]
            kind = token.kind
            value = self._lone_atom()
            if value is not None:
                args.append(nodes.Arg(value, value.span, mut=False))
            elif kind == NAME and tokens[self.pos + 1].kind == "=":
                self.pos += 2
                if tokens[self.pos].kind == "(" and self._holds_comma(self.pos):
                    args.extend(self._tuple_argument(token))
                    kind = tokens[self.pos].kind
                    if kind == ",":
                        self.pos += 1
                    elif kind != ")":
                        self.fail_expected("`,` or `)` in the argument list")
                    continue
                value = self._lone_atom()
                if value is None:
                    value = self.parse_arg_value()
                args.append(
                    nodes.Arg(
                        value,
                        _new_span(Span, (token.start, value.span.end)),
                        name=token.text,
                        name_span=_new_span(Span, (token.start, token.end)),
                        mut=self._last_mut,
                    )
                )
            else:
                form = self._argument_form() if may_hold_patterns else "plain"
                if form == "pattern":
                    pattern = self.parse_pattern(many=False)
                    args.append(nodes.Arg(pattern, pattern.span))
                elif form == "operands":
                    operand = self.parse_expr()
                    args.append(nodes.Arg(operand, operand.span))
                    self.expect(":", "`:` before the pattern")
                    pattern = self.parse_pattern(many=True)
                    args.append(nodes.Arg(pattern, pattern.span))
                    operands_form = True
                else:
                    value = self.parse_arg_value()
                    args.append(
                        nodes.Arg(
                            value,
                            _new_span(Span, (token.start, value.span.end)),
                            mut=self._last_mut,
                        )
                    )
            kind = tokens[self.pos].kind
            if kind == ",":
                self.pos += 1
            elif kind != ")":
                self.fail_expected("`,` or `)` in the argument list")
        close = tokens[self.pos]
        self.pos += 1
        call = nodes.Call(
            callee, args, _new_span(Span, (callee.span.start, close.end)), operands_form
        )
        # Patterns are only parsed where the bracket may hold one (see the loop above).
        if may_hold_patterns and any(isinstance(arg.value, ast.Pattern) for arg in args):
            name = self._callee_name(callee)
            if name not in PATTERN_OPERATIONS:
                for arg in args:
                    if isinstance(arg.value, ast.Pattern):
                        self.report_pattern_outside(arg.value.span)
                        arg.value = nodes.ErrorExpr(arg.value.span)
        return call

    _last_mut = False

    def _holds_comma(self, index: int) -> bool:
        """Whether the bracket opened at `index` holds a `,` of its own (a tuple)."""
        tokens = self.tokens
        close = tokens[index].partner
        if close < 0:
            return False
        index += 1
        while index < close:
            kind = tokens[index].kind
            if kind == ",":
                return True
            if kind in ("(", "[") and tokens[index].partner > index:
                index = tokens[index].partner
            index += 1
        return False

    def _tuple_argument(self, name: Token) -> list[ast.Arg]:
        """`name=(a, b)`: one E0201, as ShapeScript has no tuples. AdamW's `betas=(a, b)`
        becomes the `beta1=a, beta2=b` it means (the fix offered), so the call is still
        checked; any other is an error value the checker stays quiet about."""
        opener = self.advance()
        values = [self.parse_expr()]
        while self.at(","):
            self.advance()
            if self.at(")"):
                break
            values.append(self.parse_expr())
        close = self.expect(")", "`)`")
        span = _new_span(Span, (name.start, close.end))
        name_span = _new_span(Span, (name.start, name.end))
        text = self.source.text
        if name.text == "betas" and len(values) == 2:
            written = ", ".join(
                f"beta{number}={text[value.span.start : value.span.end]}"
                for number, value in enumerate(values, 1)
            )
            self.report(
                "E0201",
                "ShapeScript has no tuples: AdamW takes its betas one by one, as `beta1=` "
                "and `beta2=`",
                span,
                "a tuple",
                help=f"write `{written}`",
                fixes=[Fix(f"Write `{written}`", (Edit(span, written),))],
            )
            first, second = values
            return [
                nodes.Arg(
                    first,
                    _new_span(Span, (name.start, first.span.end)),
                    name="beta1",
                    name_span=name_span,
                    mut=False,
                ),
                nodes.Arg(
                    second,
                    second.span,
                    name="beta2",
                    name_span=_new_span(Span, (second.span.start, second.span.start)),
                    mut=False,
                ),
            ]
        self.report(
            "E0201",
            f"ShapeScript has no tuples, so `{name.text}=` takes one value",
            span,
            "a tuple",
        )
        error = nodes.ErrorExpr(_new_span(Span, (opener.start, close.end)))
        return [nodes.Arg(error, span, name=name.text, name_span=name_span, mut=False)]

    def _lone_atom(self) -> ast.Expr | None:
        """A name or number alone before `,` or `)`, as `parse_arg_value` would make it
        (consumed), or None (nothing consumed) for anything else."""
        tokens = self.tokens
        token = tokens[self.pos]
        kind = token.kind
        if kind != NAME and kind != INT and kind != FLOAT:
            return None
        following = tokens[self.pos + 1].kind
        if (following != "," and following != ")") or self.nesting >= MAX_NESTING:
            return None
        self.pos += 1
        self._last_mut = False
        span = _new_span(Span, (token.start, token.end))
        if kind == NAME:
            return nodes.Name(token.text, span)
        if kind == INT:
            return nodes.IntLit(int(token.value), span)
        return nodes.FloatLit(float(token.value), token.text, span)

    def parse_arg_value(self) -> ast.Expr:
        """An argument's value; `_last_mut` says afterwards whether it was `mut name` or
        `mut` before a path from a name (`mut m.h[l].attn`, which the checker limits to
        held models). The flag is set once the value is parsed, since a call inside the
        value sets it for its own arguments: in `f(g(mut x))` only `g`'s argument is mut."""
        token = self.tokens[self.pos]
        kind = token.kind
        if kind == NAME and token.text == "mut" and self.peek(1).kind == NAME:
            following = self.peek(2).kind
            if following in (",", ")"):
                self.advance()
                name = self.advance()
                self._last_mut = True
                return nodes.Name(name.text, name.span)
            if following in (".", "["):
                self.advance()
                value = self.parse_expr()
                self._last_mut = True
                return value
        if kind == "to":
            start = self.advance().start
            type_ = self.parse_type()
            value: ast.Expr = nodes.ToStage(type_, _new_span(Span, (start, self.previous_end())))
        else:
            value = self.parse_expr()
        self._last_mut = False
        return value

    @staticmethod
    def _callee_name(callee: ast.Expr) -> str | None:
        if isinstance(callee, ast.Name):
            return callee.name
        if isinstance(callee, ast.Member):
            return callee.name
        return None

    def parse_pattern(self, *, many: bool) -> ast.Pattern:
        tokens = self.tokens
        start = tokens[self.pos].start
        inputs = [self.parse_pattern_side()]
        if many:
            while tokens[self.pos].kind == ",":
                self.pos += 1
                inputs.append(self.parse_pattern_side())
        arrow = self.expect("->", "`->` in the pattern")
        output = self.parse_pattern_side()
        return nodes.Pattern(
            inputs,
            output,
            _new_span(Span, (start, tokens[self.pos - 1].end)),
            _new_span(Span, (arrow.start, arrow.end)),
        )

    def parse_pattern_side(self) -> ast.PatternSide:
        tokens = self.tokens
        start = tokens[self.pos].start
        axes: list[ast.PatternAxis] = []
        while True:
            token = tokens[self.pos]
            if token.kind == NAME:
                # `parse_pattern_axis` of a name, most axes, without its call.
                self.pos += 1
                axes.append(
                    nodes.PatternName(token.text, _new_span(Span, (token.start, token.end)))
                )
                continue
            axis = self.parse_pattern_axis()
            if axis is None:
                break
            axes.append(axis)
        end = axes[-1].span.end if axes else start
        return nodes.PatternSide(axes, _new_span(Span, (start, end)))

    def parse_pattern_axis(self) -> ast.PatternAxis | None:
        token = self.tokens[self.pos]
        kind = token.kind
        if kind == NAME:
            self.pos += 1
            return nodes.PatternName(token.text, _new_span(Span, (token.start, token.end)))
        if kind == INT:
            self.pos += 1
            return nodes.PatternInt(int(token.value), _new_span(Span, (token.start, token.end)))
        if kind == GROUPED_SIZE:
            self.pos += 1
            count, name = token.value
            return nodes.PatternGroupedSize(count, name, _new_span(Span, (token.start, token.end)))
        if kind == "(":
            self.pos += 1
            items = []
            self.enter()
            tokens = self.tokens
            try:
                while tokens[self.pos].kind != ")":
                    item = self.parse_pattern_axis()
                    if item is None:
                        self.fail_expected("an axis name, a number or `)` in the pattern group")
                    items.append(item)
            finally:
                self.nesting -= 1
            close = self.advance()
            return nodes.PatternGroup(items, _new_span(Span, (token.start, close.end)))
        if kind in ("->", ",", ")"):
            return None
        self.fail_expected("an axis name, a number or a group in the pattern")
        return None

    def parse_index(self, target: ast.Expr) -> ast.Index:
        tokens = self.tokens
        self.pos += 1
        items: list[ast.Expr | ast.Slice | ast.SpacedIndex] = []
        while tokens[self.pos].kind != "]":
            items.append(self.parse_index_item())
            kind = tokens[self.pos].kind
            if kind == ",":
                self.pos += 1
            elif kind != "]":
                self.fail_expected("`,` or `]` in the index")
        close = tokens[self.pos]
        self.pos += 1
        return nodes.Index(target, items, _new_span(Span, (target.span.start, close.end)))

    def _at_slice_part_end(self) -> bool:
        kind = self.tok.kind
        return kind == ":" or kind == "," or kind == "]"

    def parse_index_item(self) -> ast.Expr | ast.Slice | ast.SpacedIndex:
        tokens = self.tokens
        start = tokens[self.pos].start
        lo = None
        if tokens[self.pos].kind != ":":
            lo = self.parse_expr()
            kind = tokens[self.pos].kind
            if kind != ":":
                if kind == "," or kind == "]":
                    return lo
                items = [lo]
                while not self.at(",") and not self.at("]") and not self.at(EOF):
                    items.append(self.parse_expr())
                return nodes.SpacedIndex(items, _new_span(Span, (start, self.previous_end())))
        self.advance()
        hi = None if self._at_slice_part_end() else self.parse_expr()
        step = None
        if self.at(":"):
            self.advance()
            step = None if self._at_slice_part_end() else self.parse_expr()
        return nodes.Slice(lo, hi, step, _new_span(Span, (start, self.previous_end())))

    # ------------------------------------------------------------ types and sizes

    def parse_type(self) -> ast.TypeExpr:
        tokens = self.tokens
        token = tokens[self.pos]
        start = token.start
        shape = self.parse_shape() if token.kind == "[" else None
        words: list[ast.TypeWord] = []
        dtype = None
        dtype_span = None
        token = tokens[self.pos]
        while token.kind == NAME and len(words) < 2:
            if token.text in DTYPES:
                self.pos += 1
                dtype, dtype_span = token.text, token.span
                break
            if token.text == "over" or (words and token.text == "mut"):
                break
            words.append(self.parse_type_word())
            token = tokens[self.pos]
        if dtype is None:
            token = tokens[self.pos]
            if token.kind == NAME and token.text in DTYPES:
                self.pos += 1
                dtype, dtype_span = token.text, token.span
        if shape is None and not words and dtype is None:
            self.fail_expected("a type, such as `[b n D]`, `Real` or `f32`")
        return nodes.TypeExpr(
            shape, words, dtype, _new_span(Span, (start, tokens[self.pos - 1].end)), dtype_span
        )

    def parse_type_word(self) -> ast.TypeWord:
        tokens = self.tokens
        token = tokens[self.pos]
        if token.kind == NAME and tokens[self.pos + 1].kind != ".":
            # `parse_dotted` of one name, without its call.
            self.pos += 1
            span = _new_span(Span, (token.start, token.end))
            word = nodes.TypeWord(token.text, span)
        else:
            parts, span = self.parse_dotted("a type name")
            word = nodes.TypeWord(".".join(parts), span)
        token = tokens[self.pos]
        if token.kind == "[":
            self.pos += 1
            word.arg = self.parse_size_expr()
            self.expect("]", "`]`")
            token = tokens[self.pos]
        if token.kind == NAME and token.text == "over" and tokens[self.pos + 1].kind == NAME:
            self.pos += 1
            axis, axis_span = self.parse_dotted("an axis name")
            word.over, word.over_span = ".".join(axis), axis_span
        word.span = _new_span(Span, (span.start, tokens[self.pos - 1].end))
        return word

    def parse_shape(self) -> ast.Shape:
        tokens = self.tokens
        open_token = tokens[self.pos]
        self.pos += 1
        axes: list[ast.Axis] = []
        append = axes.append
        parse_axis = self.parse_axis
        while tokens[self.pos].kind != "]":
            append(parse_axis())
        close = tokens[self.pos]
        self.pos += 1
        return nodes.Shape(axes, _new_span(Span, (open_token.start, close.end)))

    def parse_axis(self) -> ast.Axis:
        tokens = self.tokens
        pos = self.pos
        token = tokens[pos]
        kind = token.kind
        if kind == NAME:
            following = tokens[pos + 1].kind
            if following != "." and following not in _SIZE_PRECEDENCE:
                # A lone name, most axes: what `parse_size_expr` would make of it.
                self.pos = pos + 1
                span = _new_span(Span, (token.start, token.end))
                return nodes.SizeAxis(nodes.SizeName(token.text, span), span)
        if kind == "...":
            self.advance()
            return nodes.RestAxis(token.span)
        if kind == UNKNOWN_SIZE:
            self.advance()
            return nodes.UnknownAxis(str(token.value), token.span)
        if kind == GROUPED_SIZE:
            self.advance()
            if self.tok.kind in _SIZE_PRECEDENCE:
                self.report(
                    "E2203",
                    f"a grouped size like `{token.text}` can't take part in arithmetic",
                    token.span.cover(self.tok.span),
                    "grouped size in arithmetic",
                    help="write the group with parentheses and an explicit product, "
                    f"as `({token.value[1]} {token.value[0]})`",
                )
                rest = self.parse_size_binary(nodes.SizeInt(token.value[0], token.span), 1)
                return nodes.ErrorAxis(token.span.cover(rest.span))
            count, name = token.value
            return nodes.GroupedSizeAxis(count, name, token.span)
        if kind == "(":
            self.advance()
            items: list[ast.Axis] = []
            self.enter()
            try:
                while not self.at(")"):
                    if self.at("]") or self.at(EOF):
                        self.fail_expected("`)` to close the group")
                    items.append(self.parse_axis())
            finally:
                self.nesting -= 1
            close = self.advance()
            span = _new_span(Span, (token.start, close.end))
            if len(items) == 1 and isinstance(items[0], ast.SizeAxis):
                if self.tok.kind in _SIZE_PRECEDENCE:
                    size = self.parse_size_binary(items[0].size, 1)
                    return nodes.SizeAxis(size, _new_span(Span, (token.start, size.span.end)))
                return nodes.SizeAxis(items[0].size, span)
            return nodes.GroupAxis(items, span)
        size = self.parse_size_expr()
        return nodes.SizeAxis(size, size.span)

    def parse_size_expr(self) -> ast.SizeExpr:
        return self.parse_size_binary(self.parse_size_atom(), 1)

    def parse_size_binary(self, left: ast.SizeExpr, min_precedence: int) -> ast.SizeExpr:
        tokens = self.tokens
        while True:
            op = tokens[self.pos].kind
            precedence = _SIZE_PRECEDENCE.get(op)
            if precedence is None or precedence < min_precedence:
                return left
            self.pos += 1
            right = self.parse_size_atom()
            while True:
                following = _SIZE_PRECEDENCE.get(tokens[self.pos].kind)
                if following is None or following <= precedence:
                    break
                right = self.parse_size_binary(right, following)
            left = nodes.SizeBinary(
                op, left, right, _new_span(Span, (left.span.start, right.span.end))
            )

    def parse_size_atom(self) -> ast.SizeExpr:
        token = self.tokens[self.pos]
        kind = token.kind
        if kind == INT:
            self.pos += 1
            return nodes.SizeInt(int(token.value), _new_span(Span, (token.start, token.end)))
        if kind == NAME:
            if self.tokens[self.pos + 1].kind != ".":
                self.pos += 1
                return nodes.SizeName(token.text, _new_span(Span, (token.start, token.end)))
            parts, span = self.parse_dotted("a size")
            return nodes.SizeName(".".join(parts), span)
        if kind == "(":
            self.advance()
            self.enter()
            try:
                inner = self.parse_size_expr()
            finally:
                self.nesting -= 1
            self.expect(")", "`)`")
            return inner
        if kind == GROUPED_SIZE:
            self.advance()
            self.report_grouped_size_outside_axis(token)
            return nodes.SizeInt(token.value[0], token.span)
        self.fail_expected("a size: a number, a dim or an axis name")
        raise AssertionError("unreachable")


def _is_field_path(expr: ast.Expr) -> bool:
    """`m.a.w`, `m.h[l].w`: fields and single indexes down from a name, ending in a field."""
    if not isinstance(expr, ast.Member):
        return False
    node: ast.Expr = expr.target
    while isinstance(node, ast.Member | ast.Index):
        if isinstance(node, ast.Index) and len(node.items) != 1:
            return False
        node = node.target
    return isinstance(node, ast.Name)
