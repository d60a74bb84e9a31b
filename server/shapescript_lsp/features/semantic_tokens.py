"""Semantic tokens: each name colored by what the checker says it is.

Axes, dims, sizes, domains and dtypes get token types of their own, so that a theme (or
the VS Code extension's defaults, `semanticTokenScopes` in its package.json) shows the
shape parts of a program apart from its values. Names come from `name_spots` (the
checker's references, and axis and dim names it bound); the declarations' own names from
the module's symbols; dtypes, sizes, domains and `mut` from the syntax tree.
"""

from __future__ import annotations

import bisect

from lsprotocol import types

from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.declarations.symbols import ItemFacts, Symbol
from shapescript.check.declarations.type_exprs import BUILTIN_DOMAINS
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import Span
from shapescript_lsp.features.name_spots import body_start_of, spots, written_names
from shapescript_lsp.positions import line_index, utf16_length

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


def item_tokens(checked: Checked, item: ItemFacts, declared: dict[int, Symbol]) -> list[Token]:
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


class _Cached:
    """One item's tokens, relative to its base, with what they were worked out from."""

    __slots__ = ("node", "body", "references", "tokens")

    def __init__(self, item: ItemFacts, tokens: list[Token]) -> None:
        self.node = item.item
        self.body = item.body
        self.references = list(item.declaration.references)
        base = item.base
        self.tokens = [(start - base, end - base, kind, bits) for start, end, kind, bits in tokens]

    def fits(self, item: ItemFacts) -> bool:
        return (
            item.item is self.node
            and item.body is self.body
            and item.declaration.references == self.references
        )


class _Encoded:
    """One item's tokens in LSP's numbers, lines counted from the item's first line: its
    first token (line, column, length, type, modifiers), the groups after it (relative, as
    sent) and its last token's line and column; `key` is what the columns depend on."""

    __slots__ = ("cached", "key", "first", "rest", "last", "rest_text")

    def __init__(self, cached: _Cached, key: tuple, first, rest: list[int], last) -> None:
        self.cached = cached
        self.key = key
        self.first = first
        self.rest = rest
        self.last = last
        self.rest_text = "".join(f", {number}" for number in rest)


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
        self.names: tuple = ()
        self.items: dict[int, _Cached] = {}
        self.encoded: dict[int, _Encoded] = {}
        #: The last `full` answer's numbers as JSON text, without the brackets.
        self.text = ""

    def full(self, checked: Checked, read_only: bool = False) -> list[int]:
        """The whole file's tokens as LSP's numbers, as `encode(tokens_in(...))` gives
        them, re-encoding only the items whose tokens aren't kept; `text` holds them as
        JSON."""
        self.start(checked)
        text = checked.source.text
        starts = line_index(text).starts
        extra = READONLY if read_only else 0
        ascii_text = text.isascii()
        declared: dict[int, Symbol] | None = None
        encoded: dict[int, _Encoded] = {}
        data: list[int] = []
        parts: list[str] = []
        previous_line = previous_column = 0
        for item in checked.items:
            base = item.base + item.item.span.start
            line = bisect.bisect_right(starts, base) - 1
            key = (extra, text[starts[line] : base])
            kept = self.encoded.get(id(item.item))
            if kept is None or kept.key != key or not kept.cached.fits(item):
                if declared is None:
                    declared = {s.span.start: s for s in checked.module_symbols.values()}
                tokens = sorted(self.tokens(checked, item, declared))
                first, rest, (last_line, last_column) = _encode_item(
                    text, starts, line, tokens, extra, ascii_text
                )
                if first is not None:
                    first = (first[0] - line, *first[1:])
                kept = _Encoded(
                    self.items[id(item.item)], key, first, rest, (last_line - line, last_column)
                )
            encoded[id(item.item)] = kept
            if kept.first is None:
                continue
            first_line, column, length, kind, modifiers = kept.first
            first_line += line
            delta_column = column - previous_column if first_line == previous_line else column
            group = (first_line - previous_line, delta_column, length, kind, modifiers)
            data += group
            data += kept.rest
            parts.append(", ".join(map(str, group)) + kept.rest_text)
            previous_line, previous_column = kept.last[0] + line, kept.last[1]
        self.encoded = encoded
        self.text = ", ".join(parts)
        return data

    def tokens(self, checked: Checked, item: ItemFacts, declared: dict[int, Symbol]):
        cached = self.items.get(id(item.item))
        if cached is not None and cached.fits(item):
            base = item.base
            return [
                (start + base, end + base, kind, bits) for start, end, kind, bits in cached.tokens
            ]
        tokens = item_tokens(checked, item, declared)
        self.items[id(item.item)] = _Cached(item, tokens)
        return tokens

    def start(self, checked: Checked) -> None:
        """Forget every item's tokens if a module name changed kind or came or went."""
        names = tuple(
            sorted((name, symbol.kind) for name, symbol in checked.module_symbols.items())
        )
        if names != self.names:
            self.names = names
            self.items = {}
            self.encoded = {}
        elif len(self.items) > 4 * len(checked.items) + 64:
            live = {id(item.item) for item in checked.items}
            self.items = {key: value for key, value in self.items.items() if key in live}


def tokens_in(
    checked: Checked, start: int = 0, end: int | None = None, cache: TokenCache | None = None
) -> list[Token]:
    """The file's tokens from `start` to `end` (offsets), in order."""
    end = len(checked.source.text) if end is None else end
    declared = {symbol.span.start: symbol for symbol in checked.module_symbols.values()}
    cache = cache if cache is not None else TokenCache()
    cache.start(checked)
    found: list[Token] = []
    for item in checked.items:
        span = item.span
        if span.end < start or span.start > end:
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
    line = 0
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
    edit from that answer to the new one is the changed run of numbers between the
    longest common beginning and end."""

    def __init__(self) -> None:
        self.last: dict[str, tuple[str, list[int]]] = {}
        self.count = 0

    def full(self, uri: str, tokens: types.SemanticTokens) -> types.SemanticTokens:
        self.count += 1
        result_id = str(self.count)
        self.last[uri] = (result_id, tokens.data)
        return types.SemanticTokens(data=tokens.data, result_id=result_id)

    def delta(self, uri: str, previous: str, tokens: types.SemanticTokens):
        """The edits from the answer `previous` of the document, or the full answer if
        that isn't the last one given."""
        last = self.last.get(uri)
        if last is None or last[0] != previous:
            return self.full(uri, tokens)
        old, new = last[1], tokens.data
        limit = min(len(old), len(new))
        start = 0
        while start < limit and old[start] == new[start]:
            start += 1
        end = 0
        while end < limit - start and old[-1 - end] == new[-1 - end]:
            end += 1
        answer = self.full(uri, tokens)
        edits = []
        if start < len(old) - end or start < len(new) - end:
            edits.append(
                types.SemanticTokensEdit(
                    start=start,
                    delete_count=len(old) - end - start,
                    data=new[start : len(new) - end],
                )
            )
        return types.SemanticTokensDelta(edits=edits, result_id=answer.result_id)

    def forget(self, uri: str) -> None:
        self.last.pop(uri, None)
