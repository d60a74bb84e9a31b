"""`textDocument/documentHighlight`: every place in the file that names what the name
under the cursor means.

The places are the ones rename would change (`rename.local_spans`, from the checker's
facts and the axis names its scopes bind), so a shadowed name or an axis of another
function is never lit. Each place says how it uses the name where that is clear: where
it is declared or assigned is a write, a name read in an expression (or a field read as
`m.w1`) is a read, and an axis or dim written in a type or pattern is plain text.
"""

from __future__ import annotations

from lsprotocol import types

from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import Span
from shapescript_lsp.features.name_spots import spot_at
from shapescript_lsp.features.rename import local_spans
from shapescript_lsp.positions import range_of

Kind = types.DocumentHighlightKind


def document_highlights(checked: Checked, offset: int) -> list[types.DocumentHighlight]:
    """The highlights of the name at the offset; none where no name is."""
    spot = spot_at(checked, offset)
    if spot is None:
        return []
    symbol = spot.symbol
    spans = local_spans(checked, symbol)
    if not spans:
        return []
    writes, reads = _uses(checked, spans)
    if symbol.path == checked.source.path:
        writes.add(symbol.span)
    found = []
    for span in spans:
        if span in writes:
            kind = Kind.Write
        elif span in reads:
            kind = Kind.Read
        else:
            kind = Kind.Text
        found.append(types.DocumentHighlight(range=range_of(checked.source, span), kind=kind))
    return found


def _uses(checked: Checked, spans: list[Span]) -> tuple[set[Span], set[Span]]:
    """The absolute spans, in the items that hold `spans`, of names written to (assignment
    targets, loop variables, assigned fields) and of names read in expressions."""
    writes: set[Span] = set()
    reads: set[Span] = set()
    seen: set[int] = set()
    for span in spans:
        for item in checked.items_at(span.start):
            if id(item) in seen:
                continue
            seen.add(id(item))
            base = item.base
            for node in walk(item.item):
                kind = node.__class__
                if kind is ast.Target:
                    writes.add(_moved(node.span, base))
                elif kind is ast.FieldAssign:
                    writes.add(_moved(node.field_span, base))
                elif kind is ast.Name:
                    reads.add(_moved(node.span, base))
                elif kind is ast.Member:
                    reads.add(_moved(node.name_span, base))
    return writes, reads


def _moved(span: Span, base: int) -> Span:
    return Span(span.start + base, span.end + base)
