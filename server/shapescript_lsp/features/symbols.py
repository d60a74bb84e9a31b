"""The outline of a file (`textDocument/documentSymbol`) and the workspace's declarations
found by name (`workspace/symbol`).

The outline follows the file's declarations as the parser found them; a dim shows the
value the checker worked out, a function its signature as written.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable

from lsprotocol import types

from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.parser import parse_text
from shapescript.syntax.source import SourceFile, Span
from shapescript_lsp.analysis_key import AnalysisKey
from shapescript_lsp.features.completion import fuzzy
from shapescript_lsp.features.imported import header
from shapescript_lsp.positions import line_index, range_of

Kind = types.SymbolKind

_FIELD_KINDS = {"param": Kind.Field, "buffer": Kind.Property}


def _span(node_span: Span, base: int) -> Span:
    return Span(node_span.start + base, node_span.end + base)


def _written(text: str, span: Span, base: int) -> str:
    return " ".join(text[span.start + base : span.end + base].split())


class _Outline:
    """Builds the document symbols of one parsed file."""

    def __init__(self, source: SourceFile, dim_values: dict[str, int]) -> None:
        self.source = source
        self.text = source.text
        self.dim_values = dim_values

    def symbol(
        self,
        name: str,
        kind: types.SymbolKind,
        whole: Span,
        name_span: Span,
        base: int,
        detail: str = "",
        children: list[types.DocumentSymbol] | None = None,
    ) -> types.DocumentSymbol:
        whole = _span(whole, base)
        written = self.text[whole.start : whole.end]
        whole = Span(whole.start, whole.start + len(written.rstrip()))
        return types.DocumentSymbol(
            name=name,
            kind=kind,
            range=range_of(self.source, whole),
            selection_range=range_of(self.source, _span(name_span, base)),
            detail=detail or None,
            children=children,
        )

    def item(self, node: ast.Item, base: int) -> types.DocumentSymbol | None:
        text = self.text
        if isinstance(node, ast.DimDecl):
            value = self.dim_values.get(node.name)
            written = _written(text, node.value.span, base)
            detail = written if value is None or written == str(value) else f"{written} = {value}"
            return self.symbol(node.name, Kind.Constant, node.span, node.name_span, base, detail)
        if isinstance(node, ast.AliasDecl):
            detail = _written(text, node.shape.span, base)
            return self.symbol(
                node.name, Kind.TypeParameter, node.span, node.name_span, base, detail
            )
        if isinstance(node, ast.DomainDecl):
            detail = _written(text, node.interval.span, base)
            return self.symbol(node.name, Kind.Enum, node.span, node.name_span, base, detail)
        if isinstance(node, ast.FnDecl):
            written = header(text, node, base)
            detail = written[written.find(node.name) + len(node.name) :].strip()
            return self.symbol(node.name, Kind.Function, node.span, node.name_span, base, detail)
        if isinstance(node, ast.ExternFnDecl):
            end = node.python_path.span.start if node.python_path else node.span.end
            written = _written(text, Span(node.name_span.end, end), base).rstrip("= ")
            detail = f"extern {written}"
            return self.symbol(node.name, Kind.Function, node.span, node.name_span, base, detail)
        if isinstance(node, ast.ModelDecl):
            fields = [
                self.symbol(
                    field.name,
                    _FIELD_KINDS.get(field.kind, Kind.Field),
                    field.span,
                    field.name_span,
                    base,
                    f"{field.kind} {_written(text, field.type.span, base)}" if field.type else "",
                )
                for field in node.fields
            ]
            return self.symbol(
                node.name, Kind.Class, node.span, node.name_span, base, "model", fields
            )
        if isinstance(node, ast.DataDecl):
            fields = [
                self.symbol(
                    field.name,
                    Kind.Field,
                    field.span,
                    field.name_span,
                    base,
                    _written(text, field.type.span, base),
                )
                for field in node.fields
            ]
            return self.symbol(
                node.name, Kind.Struct, node.span, node.name_span, base, "data", fields
            )
        if isinstance(node, ast.LogsDecl):
            metrics = [
                self.symbol(
                    metric.name,
                    Kind.Field,
                    metric.span,
                    metric.name_span,
                    base,
                    " ".join(
                        part
                        for part in (_written(text, metric.type.span, base), metric.combine)
                        if part
                    ),
                )
                for metric in node.metrics
            ]
            return self.symbol(
                node.name, Kind.Struct, node.span, node.name_span, base, "logs", metrics
            )
        if isinstance(node, ast.ImportDecl):
            name_span = node.alias_span or node.parts_span
            detail = ".".join(node.parts) if node.alias else ""
            return self.symbol(node.bound_name, Kind.Module, node.span, name_span, base, detail)
        if isinstance(node, ast.ImportPythonDecl):
            return self.symbol(
                node.bound_name,
                Kind.Package,
                node.span,
                node.parts_span,
                base,
                "python " + ".".join(node.parts),
            )
        return None


def outline(
    source: SourceFile,
    module: ast.Module,
    dim_values: dict[str, int],
    cache: OutlineCache | None = None,
):
    """The document symbols of a parsed file, in the order declared."""
    builder = _Outline(source, dim_values)
    found = []
    lines = line_index(source.text).starts
    for index, node in enumerate(module.items):
        base = module.base_of(index)
        key = (
            bisect.bisect_right(lines, base + node.span.start),
            dim_values.get(node.name) if isinstance(node, ast.DimDecl) else None,
        )
        symbol = cache.get(node, key) if cache is not None else None
        if symbol is None:
            symbol = builder.item(node, base)
            if cache is not None:
                cache.put(node, key, symbol)
        if symbol is not None:
            found.append(symbol)
    if cache is not None:
        cache.keep(module.items)
    return found


class _OutlineAnswer:
    """An outline as sent, item by item: each item's tree, where its chunk starts and its
    JSON text (none, one, or with its fields for the flat form: `chunks`), and what it
    was worked out from: the analysis, the form (hierarchical, uri), the dim values, the
    text's length and line count."""

    def __init__(self, checked: Checked, form: tuple[bool, str], length: int, lines: int):
        self.key = AnalysisKey(checked)
        self.form = form
        self.dims = dict(checked.dim_values)
        self.length = length
        self.lines = lines
        self.nodes: list[ast.Item] = []
        self.bases: list[int] = []
        self.chunks: list[tuple[str, ...]] = []
        self.written: list[str] = []


class OutlineCache:
    """Each item's symbol from the last outline, reused for the same parsed item on the
    same line (its text, so its symbol, is the same) with the same dim value."""

    def __init__(self) -> None:
        self.items: dict[int, tuple[object, tuple, types.DocumentSymbol | None]] = {}
        #: Each item's JSON text from the last answers (by its tree: the tree, the key of
        #: `get` with the answer's form, the text), without its `DocumentSymbol`.
        self.chunks: dict[int, tuple[object, tuple, tuple[str, ...]]] = {}
        self.wire: dict[int, tuple[types.DocumentSymbol, str]] = {}
        self.flat: dict[int, tuple[types.DocumentSymbol, str, list[str]]] = {}
        #: The last answer as sent.
        self.answered: _OutlineAnswer | None = None

    def answer(self, checked: Checked, uri: str, hierarchical: bool, unstructure) -> list[str]:
        """The outline of an analysis as JSON text, the hierarchical or the flat form; the
        same answer again for the same analysis. Worked out from the last answer: the items
        before and after those that changed (the same trees, moved by an edit that added
        or removed no line) keep their text; only the items between are written again."""
        last = self.answered
        if last is not None and last.form == (hierarchical, uri):
            if last.key.of(checked):
                return last.written
        else:
            last = None
        if last is not None and last.dims != checked.dim_values:
            last = None
        module = checked.module
        items, bases = module.items, module.bases or [0] * len(module.items)
        text = checked.source.text
        starts = line_index(text).starts
        builder = _Outline(checked.source, checked.dim_values)
        answer = _OutlineAnswer(checked, (hierarchical, uri), len(text), len(starts))
        head = tail = 0
        if last is not None:
            limit = min(len(items), len(last.nodes))
            old_nodes, old_bases = last.nodes, last.bases
            while (
                head < limit and items[head] is old_nodes[head] and bases[head] == old_bases[head]
            ):
                head += 1
            shift = len(text) - last.length
            while (
                tail < limit - head
                and items[-1 - tail] is old_nodes[-1 - tail]
                and bases[-1 - tail] == old_bases[-1 - tail] + shift
            ):
                tail += 1
            # The first one after the changed items may share a line with them.
            tail = max(0, tail - 1)
            answer.nodes = old_nodes[:head]
            answer.bases = old_bases[:head]
            answer.chunks = last.chunks[:head]
        for index in range(head, len(items) - tail):
            node, base = items[index], bases[index]
            key = (
                bisect.bisect_right(starts, base + node.span.start),
                checked.dim_values.get(node.name) if isinstance(node, ast.DimDecl) else None,
            )
            key += (hierarchical, uri)
            chunk = self.written_chunk(node, key)
            if chunk is None:
                chunk = _chunk(builder.item(node, base), hierarchical, uri, unstructure)
                self.chunks[id(node)] = (node, key, chunk)
            answer.nodes.append(node)
            answer.bases.append(base)
            answer.chunks.append(chunk)
        if tail:
            assert last is not None
            shift = len(text) - last.length
            answer.nodes += last.nodes[-tail:]
            answer.bases += [base + shift for base in last.bases[-tail:]]
            lines = len(starts) - last.lines
            if lines:
                answer.chunks += [_moved(chunk, lines) for chunk in last.chunks[-tail:]]
            else:
                answer.chunks += last.chunks[-tail:]
        answer.written = [part for chunk in answer.chunks for part in chunk]
        if len(self.chunks) > 4 * len(items) + 64:
            live = {id(node) for node in items}
            self.chunks = {key: value for key, value in self.chunks.items() if key in live}
        self.answered = answer
        return answer.written

    def written_chunk(self, node, key: tuple) -> tuple[str, ...] | None:
        """An item's JSON texts from an earlier answer of the same form, if still true."""
        cached = self.chunks.get(id(node))
        if cached is not None and cached[0] is node and cached[1] == key:
            return cached[2]
        return None

    def get(self, node, key: tuple) -> types.DocumentSymbol | None:
        cached = self.items.get(id(node))
        if cached is not None and cached[0] is node and cached[1] == key:
            return cached[2]
        return None

    def put(self, node, key: tuple, symbol: types.DocumentSymbol | None) -> None:
        self.items[id(node)] = (node, key, symbol)

    def written(self, symbols: list[types.DocumentSymbol], unstructure) -> list[str]:
        """The symbols as JSON text, each written once while the outline keeps it."""
        kept: dict[int, tuple[types.DocumentSymbol, str]] = {}
        found = []
        for symbol in symbols:
            entry = self.wire.get(id(symbol))
            if entry is None or entry[0] is not symbol:
                entry = (symbol, json.dumps(unstructure(symbol)))
            kept[id(symbol)] = entry
            found.append(entry[1])
        self.wire = kept
        return found

    def written_flat(self, symbols: list[types.DocumentSymbol], uri: str, unstructure) -> list[str]:
        """`symbol_information` of the symbols as JSON text, each symbol's entries written
        once while the outline keeps it."""
        kept: dict[int, tuple[types.DocumentSymbol, str, list[str]]] = {}
        found: list[str] = []
        for symbol in symbols:
            entry = self.flat.get(id(symbol))
            if entry is None or entry[0] is not symbol or entry[1] != uri:
                infos = symbol_information([symbol], uri)
                entry = (symbol, uri, [json.dumps(unstructure(info)) for info in infos])
            kept[id(symbol)] = entry
            found += entry[2]
        self.flat = kept
        return found

    def keep(self, nodes: list) -> None:
        """Forget the items of older files once there are many more than these."""
        if len(self.items) > 4 * len(nodes) + 64:
            live = {id(node) for node in nodes}
            self.items = {key: value for key, value in self.items.items() if key in live}


#: A position's line in an item's JSON text. A quote inside a string has a backslash
#: before it, so only the key of a position's line matches.
_LINE = re.compile(r'"line": (\d+)')


def _moved(chunk: tuple[str, ...], lines: int) -> tuple[str, ...]:
    """An item's JSON texts for the same item `lines` lines lower (higher if negative):
    an edit above it added or removed lines and left its own text as it was."""
    return tuple(
        _LINE.sub(lambda found: f'"line": {int(found.group(1)) + lines}', part) for part in chunk
    )


def _chunk(
    symbol: types.DocumentSymbol | None, hierarchical: bool, uri: str, unstructure
) -> tuple[str, ...]:
    """An item's symbol as the JSON texts of an answer: none, one, or (flat) one for it and
    one for each of its fields."""
    if symbol is None:
        return ()
    if hierarchical:
        return (json.dumps(unstructure(symbol)),)
    return tuple(json.dumps(unstructure(info)) for info in symbol_information([symbol], uri))


def document_symbols(
    checked: Checked, cache: OutlineCache | None = None
) -> list[types.DocumentSymbol]:
    return outline(checked.source, checked.module, checked.dim_values, cache)


def _flatten(
    symbols: Iterable[types.DocumentSymbol], container: str | None = None
) -> Iterable[tuple[types.DocumentSymbol, str | None]]:
    for symbol in symbols:
        yield symbol, container
        yield from _flatten(symbol.children or (), symbol.name)


def symbol_information(
    symbols: list[types.DocumentSymbol], uri: str
) -> list[types.SymbolInformation]:
    """The outline as a flat list, for a client without hierarchical symbols."""
    return [
        types.SymbolInformation(
            name=symbol.name,
            kind=symbol.kind,
            location=types.Location(uri=uri, range=symbol.selection_range),
            container_name=container,
        )
        for symbol, container in _flatten(symbols)
    ]


def workspace_symbols(
    query: str, files: Iterable[tuple[str, list[types.DocumentSymbol]]]
) -> list[types.WorkspaceSymbol]:
    """The declarations and fields of the files (uri, outline) whose name fuzzy-matches the
    query as completion matches what is typed; the closest matches first."""
    found = []
    for uri, symbols in files:
        for symbol, container in _flatten(symbols):
            if fuzzy(query, symbol.name):
                found.append(
                    types.WorkspaceSymbol(
                        name=symbol.name,
                        kind=symbol.kind,
                        location=types.Location(uri=uri, range=symbol.selection_range),
                        container_name=container,
                    )
                )
    lowered = query.lower()
    found.sort(
        key=lambda symbol: (
            not symbol.name.lower().startswith(lowered),
            len(symbol.name),
            symbol.name,
            symbol.location.uri,
        )
    )
    return found


#: The outline of each workspace file that isn't open, by path, with the text it is of.
_parsed: dict[str, tuple[str, list[types.DocumentSymbol]]] = {}


def outlines(
    opened: Iterable[tuple[str, Checked]], indexed: Iterable[tuple[str, str, str]]
) -> Iterable[tuple[str, list[types.DocumentSymbol]]]:
    """The outline of each open document (uri, analysis) and of each indexed file (uri,
    path, text), the latter parsed once per text."""
    for uri, checked in opened:
        yield uri, document_symbols(checked)
    for uri, path, text in indexed:
        cached = _parsed.get(path)
        if cached is None or cached[0] is not text and cached[0] != text:
            parsed = parse_text(text, path)
            cached = (text, outline(parsed.source, parsed.module, {}))
            _parsed[path] = cached
        yield uri, cached[1]
