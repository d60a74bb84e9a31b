"""Semantic tokens: each name colored by what the checker says it is.

Axes, dims, sizes, domains and dtypes get token types of their own, so that a theme (or
the VS Code extension's defaults, `semanticTokenScopes` in its package.json) shows the
shape parts of a program apart from its values. Names come from `name_spots` (the
checker's references, and axis and dim names it bound); the declarations' own names from
the module's symbols; dtypes, sizes, domains and `mut` from the syntax tree.
"""

from __future__ import annotations

import bisect
import json
from array import array
from itertools import chain
from operator import eq, is_

from lsprotocol import types

from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.declarations.placed_symbols import DeclaredHere, PlacedSymbols
from shapescript.check.declarations.symbols import ItemFacts, Symbol
from shapescript.check.declarations.type_exprs import BUILTIN_DOMAINS
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import Span
from shapescript_lsp.analysis_key import AnalysisKey
from shapescript_lsp.features.name_spots import body_start_of, spots, written_names
from shapescript_lsp.positions import line_index, utf16_length
from shapescript_lsp.protocol import WrittenJSON

TOKEN_TYPES = [
    "axis",
    "dim",
    "size",
    "domain",
    "dtype",
    "class",
    "struct",
    "property",
    "function",
    "parameter",
    "variable",
    "keyword",
    "type",
    "namespace",
    "pythonValue",
]
TOKEN_MODIFIERS = ["declaration", "readonly", "defaultLibrary", "generic"]
LEGEND = types.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS)

_TYPE = {name: index for index, name in enumerate(TOKEN_TYPES)}
DECLARATION, READONLY, DEFAULT_LIBRARY, GENERIC = (1 << index for index in range(4))

#: The token type of each kind of symbol.
_BY_KIND = {
    "axis": "axis",
    "dim": "dim",
    "alias": "type",
    "domain": "domain",
    "fn": "function",
    "extern": "function",
    "builtin": "function",
    "prelude": "function",
    "model": "class",
    "data": "struct",
    "logs": "struct",
    "field": "property",
    "metric": "property",
    "param": "parameter",
    "value": "variable",
    "import": "namespace",
    "python_module": "pythonValue",
}
_BUILT_IN_PATHS = frozenset({"<builtins>", "<prelude>", "<nn>"})

#: A token: start offset, end offset, type index, modifier bits.
Token = tuple[int, int, int, int]
#: Kept tokens and their numbers as sent are unsigned 32-bit arrays (LSP's numbers are
#: `uinteger`s): 4 bytes a number rather than a list's pointer and int object.
_NUMBERS = "I"


def _symbol_token(span: Span, symbol: Symbol, declaration: bool, generic_axes) -> Token | None:
    kind = _BY_KIND.get(symbol.kind)
    if kind is None:
        return None
    modifiers = DECLARATION if declaration else 0
    if symbol.path in _BUILT_IN_PATHS:
        modifiers |= DEFAULT_LIBRARY
    if symbol.kind == "axis" and symbol.span in generic_axes:
        modifiers |= GENERIC
    return span.start, span.end, _TYPE[kind], modifiers


def _tree_tokens(checked: Checked, item: ItemFacts, taken: set[int]) -> list[Token]:
    """dtypes, sizes written as numbers, built-in domains and `mut`, from the tree."""
    text = checked.source.text
    base = item.base
    found: list[Token] = []

    def add(start: int, end: int, kind: str, modifiers: int = 0) -> None:
        start += base
        end += base
        if start not in taken and end > start:
            taken.add(start)
            found.append((start, end, _TYPE[kind], modifiers))

    for node in walk(item.item):
        if isinstance(node, ast.TypeExpr):
            if node.dtype_span is not None:
                add(node.dtype_span.start, node.dtype_span.end, "dtype", DEFAULT_LIBRARY)
            for word in node.words:
                if word.name in BUILTIN_DOMAINS and word.name not in checked.module_symbols:
                    add(
                        word.span.start, word.span.start + len(word.name), "domain", DEFAULT_LIBRARY
                    )
        elif isinstance(node, (ast.SizeInt, ast.PatternInt)):
            add(node.span.start, node.span.end, "size")
        elif isinstance(node, (ast.GroupedSizeAxis, ast.PatternGroupedSize)):
            add(node.span.start, node.span.end - len(node.name), "size")
        elif isinstance(node, ast.Assert):
            add(node.keyword_span.start, node.keyword_span.end, "keyword")
        elif isinstance(node, (ast.Param, ast.Arg)) and node.mut:
            start = node.span.start
            if text[base + start : base + start + 3] == "mut":
                add(start, start + 3, "keyword")
    return found


def item_tokens(
    checked: Checked, item: ItemFacts, declared: dict[int, Symbol] | DeclaredHere
) -> list[Token]:
    """The tokens of one top-level item, unsorted, one per start; `declared` holds the
    module's symbols by where their names start."""
    item_span = item.span
    item_spots = spots(checked, item)
    body_start = body_start_of(item)
    generic_axes = (
        {
            spot.symbol.span
            for spot in item_spots
            if spot.symbol.kind == "axis" and spot.symbol.span.start < body_start
        }
        if body_start is not None
        else set()
    )
    tokens: list[Token] = []
    taken: set[int] = set()
    for start in range(item_span.start, item_span.end):
        symbol = declared.get(start)
        if symbol is None:
            continue
        token = _symbol_token(symbol.span, symbol, True, generic_axes)
        if token is not None and symbol.span.end - start == len(symbol.name):
            tokens.append(token)
            taken.add(start)
    for spot in item_spots:
        if spot.span.start in taken:
            continue
        declaration = spot.symbol.span == spot.span and spot.symbol.path == checked.source.path
        declaration = (
            declaration
            or spot.symbol.kind in ("field", "metric")
            and _declares_field(item, spot.span)
        )
        token = _symbol_token(spot.span, spot.symbol, declaration, generic_axes)
        if token is not None:
            tokens.append(token)
            taken.add(spot.span.start)
    if isinstance(item.item, ast.AliasDecl):
        # The alias's own axis names: generic axes of each function that uses it.
        for name, span in written_names(item.item.shape):
            start = span.start + item.base
            if name not in checked.module_symbols and start not in taken:
                tokens.append((start, span.end + item.base, _TYPE["axis"], GENERIC))
                taken.add(start)
    tokens.extend(_tree_tokens(checked, item, taken))
    return tokens


def _declares_field(item: ItemFacts, span: Span) -> bool:
    node = item.item
    members = getattr(node, "fields", None) or getattr(node, "metrics", None) or ()
    return any(member.name_span.start + item.base == span.start for member in members)


def _references(item: ItemFacts) -> list:
    """The references in an item's declaration, without making it facts it doesn't have
    (`ItemFacts.declaration` makes them on first use)."""
    facts = item.made_declaration
    return facts.references if facts is not None else []


class _Source:
    """What an item's tokens are worked out from: its tree, body and references."""

    __slots__ = ("node", "body", "references")

    def __init__(self, item: ItemFacts) -> None:
        self.node = item.item
        self.body = item.body
        self.references = tuple(_references(item))

    def fits(self, item: ItemFacts) -> bool:
        references = _references(item)
        return (
            item.item is self.node
            and item.body is self.body
            and len(references) == len(self.references)
            and all(map(eq, references, self.references))
        )


class _Cached(_Source):
    """One item's tokens, relative to its base (four numbers each, in one array), with what
    they were worked out from."""

    __slots__ = ("tokens",)

    def __init__(self, item: ItemFacts, tokens: list[Token]) -> None:
        super().__init__(item)
        base = item.base
        self.tokens = array(
            _NUMBERS,
            chain.from_iterable(
                (start - base, end - base, kind, bits) for start, end, kind, bits in tokens
            ),
        )

    def moved_to(self, base: int) -> list[Token]:
        """The tokens, at an item whose chunk starts at `base`."""
        numbers = iter(self.tokens)
        return [
            (start + base, end + base, kind, bits)
            for start, end, kind, bits in zip(numbers, numbers, numbers, numbers, strict=True)
        ]


class _Encoded:
    """One item's tokens in LSP's numbers, lines counted from the item's first line: its
    first token (line, column, length, type, modifiers), the groups after it (relative, as
    sent) as JSON text and how many numbers they are, and its last token's line and column;
    `key` is what the columns depend on, `source` what the tokens came from. The first
    group as sent depends on the token before the item, so an answer keeps it
    (`TokenAnswer.entries`). The numbers themselves are kept once, as the text: a full
    answer sends the text, a delta the numbers of the few items that changed."""

    __slots__ = ("source", "key", "first", "count", "last", "rest_text")

    def __init__(self, source: _Source, key: tuple, first, rest: list[int], last) -> None:
        self.source = source
        self.key = key
        self.first = first
        self.count = len(rest)
        self.last = last
        self.rest_text = "".join(f", {number}" for number in rest)

    @property
    def rest(self) -> list[int]:
        """The groups after the first, as numbers."""
        return json.loads(f"[{self.rest_text[2:]}]")


class TokenAnswer:
    """A whole file's tokens as sent, item by item (in the order of the analysis's items):
    what each item was worked out from, to tell it unchanged in a newer analysis by
    identity alone (its tree, body, declaration facts and its chunk's base: an item checked
    again gets a new body), its kept numbers with its
    first group as sent (`entries`; no group: no tokens) with that group's text (`heads`)
    and the line and column of the last token up to it (`end_lines`, `end_columns`). The
    JSON text of all the numbers is joined when asked (`text`) rather than kept: on a big
    file it is tens of MB."""

    __slots__ = (
        "key",
        "read_only",
        "nodes",
        "bodies",
        "facts",
        "bases",
        "entries",
        "heads",
        "end_lines",
        "end_columns",
        "size",
    )

    def __init__(self, checked: Checked, read_only: bool) -> None:
        self.key = AnalysisKey(checked)
        self.read_only = read_only
        self.nodes: list = []
        self.bodies: list = []
        self.facts: list = []
        self.bases: list[int] = []
        self.entries: list[tuple[_Encoded, tuple | None]] = []
        self.heads: list[str] = []
        self.end_lines: list[int] = []
        self.end_columns: list[int] = []
        #: The text's length and line count.
        self.size = (0, 0)

    def data(self) -> list[int]:
        """The numbers themselves."""
        data: list[int] = []
        for kept, group in self.entries:
            if group is not None:
                data += group
                data += kept.rest
        return data

    @property
    def text(self) -> str:
        """All the numbers as JSON text, without the brackets."""
        pieces: list[str] = []
        for (kept, group), head in zip(self.entries, self.heads, strict=True):
            if group is not None:
                pieces += (", ", head, kept.rest_text)
        return "".join(pieces[1:])

    def keep_first(self, last: TokenAnswer, count: int) -> None:
        """Take the first `count` items of the last answer as they are."""
        self.entries = last.entries[:count]
        self.heads = last.heads[:count]
        self.end_lines = last.end_lines[:count]
        self.end_columns = last.end_columns[:count]

    def keep_last(self, last: TokenAnswer, count: int, lines: int) -> None:
        """Take the last `count` items of the last answer, moved by `lines` lines."""
        start = len(last.nodes) - count
        self.entries += last.entries[start:]
        self.heads += last.heads[start:]
        self.end_lines += [line + lines for line in last.end_lines[start:]]
        self.end_columns += last.end_columns[start:]


def _describe(answer: TokenAnswer, items: list[ItemFacts]) -> None:
    """What the answer's items are worked out from (see `TokenAnswer`)."""
    answer.nodes = [item.item for item in items]
    answer.bodies = [item.body for item in items]
    answer.bases = [item.base for item in items]
    _describe_facts(answer, items)


def _describe_facts(answer: TokenAnswer, items: list[ItemFacts]) -> None:
    """The items' declaration facts (again once the tokens are worked out, in case that
    made any)."""
    answer.facts = [item.made_declaration for item in items]


def _agreeing(pairs) -> int:
    """How many of the comparisons, from the first, are true."""
    found = list(pairs)
    try:
        return found.index(False)
    except ValueError:
        return len(found)


def _kept_ends(new: TokenAnswer, last: TokenAnswer, shift: int) -> tuple[int, int]:
    """How many items at the start, and at the end (their chunks moved by `shift`), are
    those of the last answer (compared by identity, field by field)."""
    head = min(
        _agreeing(map(is_, new.nodes, last.nodes)),
        _agreeing(map(is_, new.bodies, last.bodies)),
        _agreeing(map(is_, new.facts, last.facts)),
        _agreeing(map(eq, new.bases, last.bases)),
    )
    moved = [base + shift for base in last.bases] if shift else last.bases
    tail = min(
        _agreeing(map(is_, reversed(new.nodes), reversed(last.nodes))),
        _agreeing(map(is_, reversed(new.bodies), reversed(last.bodies))),
        _agreeing(map(is_, reversed(new.facts), reversed(last.facts))),
        _agreeing(map(eq, reversed(new.bases), reversed(moved))),
    )
    return head, min(tail, min(len(new.nodes), len(last.nodes)) - head)


def _encode_item(
    text: str, starts: list[int], line: int, tokens: list[Token], extra: int, ascii_text: bool
) -> tuple[tuple | None, list[int], tuple]:
    """The sorted tokens of an item whose first line is `line`, as `_Encoded` keeps them."""
    last_line = len(starts) - 1
    first = None
    rest: list[int] = []
    previous_line = previous_column = 0
    for start, end, kind, modifiers in tokens:
        while line < last_line and starts[line + 1] <= start:
            line += 1
        if ascii_text:
            column, length = start - starts[line], end - start
        else:
            column = utf16_length(text[starts[line] : start])
            length = utf16_length(text[start:end])
        if length <= 0 or "\n" in text[start:end]:
            continue
        if first is None:
            first = (line, column, length, kind, modifiers | extra)
        else:
            delta_column = column - previous_column if line == previous_line else column
            rest += (line - previous_line, delta_column, length, kind, modifiers | extra)
        previous_line, previous_column = line, column
    return first, rest, (previous_line, previous_column)


class TokenCache:
    """The tokens of each item of the last file asked for, reused for an item whose tree
    and facts are the ones they came from while the module's names keep their kinds (an
    edit elsewhere in the file moves an item, not its tokens); for whole files, also each
    item's tokens as sent, so an unchanged item costs a few numbers."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.names_for: AnalysisKey | None = None
        self.items: dict[int, _Cached] = {}
        self.encoded: dict[int, _Encoded] = {}
        #: The last whole-file answer.
        self.last: TokenAnswer | None = None
        self.declared_for: AnalysisKey | None = None
        self.declared_by_start: dict[int, Symbol] | DeclaredHere = {}
        self.starts_for: AnalysisKey | None = None
        self.item_starts: list[int] = []

    def full(self, checked: Checked, read_only: bool = False) -> list[int]:
        """The whole file's tokens as LSP's numbers, as `encode(tokens_in(...))` gives
        them; `text` holds them as JSON."""
        return self.answer(checked, read_only).data()

    @property
    def text(self) -> str:
        """The last whole-file answer's numbers as JSON text, without the brackets."""
        return self.last.text if self.last is not None else ""

    def answer(self, checked: Checked, read_only: bool = False) -> TokenAnswer:
        """The whole file's tokens; the same answer again for the same analysis. Worked out
        from the last answer: the items before and after those that changed (the same trees,
        moved by the edit) keep their numbers and text; only the items between are looked at
        (and re-encoded where their tokens aren't kept)."""
        last = self.last
        if last is not None and last.key.of(checked) and last.read_only == read_only:
            return last
        self.start(checked)
        last = self.last
        if last is not None and last.read_only != read_only:
            last = None
        answer = TokenAnswer(checked, read_only)
        text = checked.source.text
        starts = line_index(text).starts
        ascii_text = text.isascii()
        answer.size = (len(text), len(starts))
        items = checked.items
        _describe(answer, items)
        head = tail = 0
        if last is not None:
            head, tail = _kept_ends(answer, last, len(text) - last.size[0])
            answer.keep_first(last, head)
        else:
            self.encoded = {}
        stop = len(items) - tail
        index = head
        while index < len(items):
            # Past the changed items, up to one with tokens: those after it are as they were.
            if index > stop and answer.entries[-1][1] is not None:
                break
            self._add(checked, items[index], answer, text, starts, ascii_text)
            index += 1
        if index < len(items):
            assert last is not None
            answer.keep_last(last, len(items) - index, len(starts) - last.size[1])
        _describe_facts(answer, items)
        if len(self.encoded) > 2 * len(items) + 64:
            live = {id(node) for node in answer.nodes}
            self.encoded = {key: kept for key, kept in self.encoded.items() if key in live}
        self.last = answer
        return answer

    def _add(
        self,
        checked: Checked,
        item: ItemFacts,
        answer: TokenAnswer,
        text: str,
        starts: list[int],
        ascii_text: bool,
    ) -> None:
        """Add one item to the answer, re-encoding its tokens unless they are kept."""
        extra = READONLY if answer.read_only else 0
        node = item.item
        base = item.base + node.span.start
        line = bisect.bisect_right(starts, base) - 1
        key = (extra, text[starts[line] : base])
        kept = self.encoded.get(id(node))
        if kept is None or kept.key != key or not kept.source.fits(item):
            # Tokens a range request kept are used, but the whole file's aren't kept: its
            # encoded numbers are.
            cached = self.items.get(id(node))
            source: _Source
            if cached is not None and cached.fits(item):
                tokens, source = cached.moved_to(item.base), cached
            else:
                tokens = item_tokens(checked, item, self.declared(checked))
                source = _Source(item)
            tokens.sort()
            first, rest, (last_line, last_column) = _encode_item(
                text, starts, line, tokens, extra, ascii_text
            )
            if first is not None:
                first = (first[0] - line, *first[1:])
            kept = _Encoded(source, key, first, rest, (last_line - line, last_column))
            self.encoded[id(node)] = kept
        if answer.end_lines:
            previous_line, previous_column = answer.end_lines[-1], answer.end_columns[-1]
        else:
            previous_line = previous_column = 0
        if kept.first is None:
            answer.entries.append((kept, None))
            answer.heads.append("")
            answer.end_lines.append(previous_line)
            answer.end_columns.append(previous_column)
            return
        first_line, column, length, kind, modifiers = kept.first
        first_line += line
        delta_column = column - previous_column if first_line == previous_line else column
        group = (first_line - previous_line, delta_column, length, kind, modifiers)
        answer.entries.append((kept, group))
        answer.heads.append(", ".join(map(str, group)))
        answer.end_lines.append(kept.last[0] + line)
        answer.end_columns.append(kept.last[1])

    def declared(self, checked: Checked) -> dict[int, Symbol] | DeclaredHere:
        """The module's symbols by where their names start (worked out once per analysis)."""
        if self.declared_for is None or not self.declared_for.of(checked):
            self.declared_for = AnalysisKey(checked)
            symbols = checked.module_symbols
            if isinstance(symbols, PlacedSymbols):
                # After an edit: the edited items' symbols are found without moving all.
                self.declared_by_start = DeclaredHere(symbols, checked.source.path)
            else:
                self.declared_by_start = {
                    s.span.start: s for s in symbols.values() if s.path == checked.source.path
                }
        return self.declared_by_start

    def starts_of(self, checked: Checked) -> list[int]:
        """Where each item's span starts, as far as it is ordered: each the greatest so far
        (worked out once per analysis)."""
        if self.starts_for is None or not self.starts_for.of(checked):
            self.starts_for = AnalysisKey(checked)
            starts, highest = [], 0
            for item in checked.items:
                start = item.base + item.item.span.start
                if start > highest:
                    highest = start
                starts.append(highest)
            self.item_starts = starts
        return self.item_starts

    def tokens(self, checked: Checked, item: ItemFacts, declared: dict[int, Symbol] | DeclaredHere):
        cached = self.items.get(id(item.item))
        if cached is not None and cached.fits(item):
            return cached.moved_to(item.base)
        tokens = item_tokens(checked, item, declared)
        self.items[id(item.item)] = _Cached(item, tokens)
        return tokens

    def start(self, checked: Checked) -> None:
        """Forget every item's tokens if a module name changed kind or came or went (asked
        once per analysis)."""
        if self.names_for is not None and self.names_for.of(checked):
            return
        self.names_for = AnalysisKey(checked)
        symbols = checked.module_symbols
        if isinstance(symbols, PlacedSymbols):
            names = symbols.kinds()
        else:
            names = {name: symbol.kind for name, symbol in symbols.items()}
        if names != self.names:
            self.names = names
            self.items = {}
            self.encoded = {}
            self.last = None
        elif len(self.items) > 4 * len(checked.items) + 64:
            live = {id(item.item) for item in checked.items}
            self.items = {key: value for key, value in self.items.items() if key in live}


def tokens_in(
    checked: Checked, start: int = 0, end: int | None = None, cache: TokenCache | None = None
) -> list[Token]:
    """The file's tokens from `start` to `end` (offsets), in order; only the items that
    reach into the range are looked at."""
    end = len(checked.source.text) if end is None else end
    cache = cache if cache is not None else TokenCache()
    cache.start(checked)
    declared = cache.declared(checked)
    items = checked.items
    first = max(0, bisect.bisect_right(cache.starts_of(checked), start) - 1)
    found: list[Token] = []
    for index in range(first, len(items)):
        item = items[index]
        span = item.span
        if span.start > end:
            break
        if span.end < start:
            continue
        tokens = cache.tokens(checked, item, declared)
        if start <= span.start and span.end <= end:
            found.extend(tokens)
        else:
            found.extend(token for token in tokens if start <= token[0] < end)
    found.sort()
    return found


def encode(checked: Checked, tokens: list[Token], read_only: bool = False) -> list[int]:
    """The tokens (in order) as LSP's relative five-number groups (lines and UTF-16
    columns); a token is on one line."""
    text = checked.source.text
    index = line_index(text)
    starts = index.starts
    ascii_text = text.isascii()
    data: list[int] = []
    # A range deep in a big file starts at its first token's line, not at the first line.
    line = bisect.bisect_right(starts, tokens[0][0]) - 1 if tokens else 0
    last_line = len(starts) - 1
    previous_line = previous_column = 0
    extra = READONLY if read_only else 0
    for start, end, kind, modifiers in tokens:
        while line < last_line and starts[line + 1] <= start:
            line += 1
        if ascii_text:
            column, length = start - starts[line], end - start
        else:
            column = utf16_length(text[starts[line] : start])
            length = utf16_length(text[start:end])
        if length <= 0 or "\n" in text[start:end]:
            continue
        delta_column = column - previous_column if line == previous_line else column
        data += (line - previous_line, delta_column, length, kind, modifiers | extra)
        previous_line, previous_column = line, column
    return data


def semantic_tokens(
    checked: Checked,
    start: int = 0,
    end: int | None = None,
    read_only: bool = False,
    cache: TokenCache | None = None,
) -> types.SemanticTokens:
    if cache is not None and start == 0 and end is None:
        return types.SemanticTokens(data=cache.full(checked, read_only))
    tokens = tokens_in(checked, start, end, cache)
    return types.SemanticTokens(data=encode(checked, tokens, read_only))


class TokenResults:
    """The last full answer of each document, by its `resultId`, for `full/delta`: the
    edit from that answer to the new one is the run of items between the longest common
    beginning and end, found by the items' kept numbers, not number by number."""

    def __init__(self) -> None:
        self.last: dict[str, tuple[str, TokenAnswer]] = {}
        self.count = 0

    def keep(self, uri: str, answer: TokenAnswer) -> str:
        """Keep the document's new full answer; its `resultId`."""
        self.count += 1
        result_id = str(self.count)
        self.last[uri] = (result_id, answer)
        return result_id

    def full(self, uri: str, answer: TokenAnswer) -> WrittenJSON:
        """The whole answer as sent, with its `resultId`."""
        result_id = json.dumps(self.keep(uri, answer))
        return WrittenJSON(f'{{"data": [{answer.text}], "resultId": {result_id}}}')

    def delta(self, uri: str, previous: str, answer: TokenAnswer):
        """The edits from the answer `previous` of the document, or the full answer if
        that isn't the last one given."""
        last = self.last.get(uri)
        if last is None or last[0] != previous:
            return self.full(uri, answer)
        edit = _edit(last[1].entries, answer.entries)
        result_id = self.keep(uri, answer)
        return types.SemanticTokensDelta(
            edits=[edit] if edit is not None else [], result_id=result_id
        )

    def forget(self, uri: str) -> None:
        self.last.pop(uri, None)


def _unchanged(old: tuple[_Encoded, tuple | None], new: tuple[_Encoded, tuple | None]) -> bool:
    return old[0] is new[0] and old[1] == new[1]


def _edit(
    old: list[tuple[_Encoded, tuple | None]], new: list[tuple[_Encoded, tuple | None]]
) -> types.SemanticTokensEdit | None:
    """The one edit that turns the numbers of `old` into those of `new`, or None."""
    limit = min(len(old), len(new))
    head = _agreeing(map(_unchanged, old, new))
    tail = min(_agreeing(map(_unchanged, reversed(old), reversed(new))), limit - head)
    start = sum(len(group) + kept.count for kept, group in old[:head] if group is not None)
    deleted = sum(
        len(group) + kept.count for kept, group in old[head : len(old) - tail] if group is not None
    )
    data: list[int] = []
    for kept, group in new[head : len(new) - tail]:
        if group is not None:
            data += group
            data += kept.rest
    if not deleted and not data:
        return None
    return types.SemanticTokensEdit(start=start, delete_count=deleted, data=data)
