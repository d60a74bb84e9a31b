"""Rename (`prepareRename` and `rename`): what may be renamed, the places to change, and
the checks that refuse a new name.

Every place comes from what the checker recorded (`name_spots`): a name is changed where
the checker says it means the declaration being renamed, never where the same letters
happen to be written. A refusal is a `RenameRefused` whose message the editor shows.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable

from lsprotocol import types

import shapescript
from shapescript.check.checker import check_source
from shapescript.check.declarations.symbols import LOCAL_KINDS, Symbol
from shapescript.check.program import Checked
from shapescript.syntax.source import SourceFile, Span
from shapescript.syntax.tokens import KEYWORDS
from shapescript_lsp.features.cross_references import key_of, shared
from shapescript_lsp.features.name_spots import Spot, all_spots, body_start_of, spot_at, spots
from shapescript_lsp.features.workspace_uses import workspace_uses
from shapescript_lsp.import_reading import normalized
from shapescript_lsp.positions import range_of

#: Words that can't be a name: the keywords and the words the parser reads by place.
RESERVED = KEYWORDS | {"mut", "_"}
#: Where the checker's own declarations live; none of them is a file to edit.
BUILT_IN_PATHS = frozenset({"<builtins>", "<prelude>", "<nn>"})
_PACKAGE = os.path.dirname(os.path.abspath(shapescript.__file__))
_TOP_LEVEL = frozenset({"dim", "alias", "domain", "fn", "extern", "model", "data", "logs"})
_WHAT = {
    "dim": "a dim",
    "alias": "a shape alias",
    "domain": "a domain",
    "fn": "a function",
    "extern": "an extern fn",
    "model": "a model",
    "data": "a data record",
    "logs": "a logs record",
    "import": "an import",
    "python_module": "a Python module",
    "param": "a parameter",
    "value": "a value",
    "axis": "an axis name",
    "field": "a field",
    "metric": "a metric",
}


class RenameRefused(Exception):
    """The rename can't be done; the message says why, for the editor to show."""


def plain(symbol: Symbol) -> str:
    """The name as its own file writes it: `forward` for `attention.forward`."""
    return symbol.name.rsplit(".", 1)[-1]


def what(symbol: Symbol) -> str:
    return _WHAT.get(symbol.kind, symbol.kind)


def name_span(text: str, span: Span, name: str) -> Span | None:
    """The part of a recorded span that writes the name: all of it, or the `D` of
    `attention.D`; None if the text there isn't the name."""
    written = text[span.start : span.end]
    if written == name:
        return span
    if written.endswith("." + name):
        return Span(span.end - len(name), span.end)
    return None


def target(checked: Checked, offset: int, library_folder: str | None = None) -> Spot:
    """The name at the offset and what it declares, if it may be renamed."""
    if library_folder is not None and _inside(checked.source.path, library_folder):
        raise RenameRefused("this is a read-only library file: its names can't be renamed")
    spot = spot_at(checked, offset)
    if spot is None:
        raise RenameRefused("there is no name here to rename")
    symbol = spot.symbol
    if symbol.path in BUILT_IN_PATHS or symbol.kind in ("builtin", "prelude"):
        raise RenameRefused(f"`{plain(symbol)}` is built in: it can't be renamed")
    if symbol.kind in ("import", "python_module"):
        raise RenameRefused(
            f"`{plain(symbol)}` is the name an import binds: edit the import line instead"
        )
    if _inside(symbol.path, _PACKAGE) or (
        library_folder is not None and _inside(symbol.path, library_folder)
    ):
        raise RenameRefused(
            f"`{plain(symbol)}` is declared in a library file, which can't be changed"
        )
    text = checked.source.text
    if symbol.path == checked.source.path and name_span(text, symbol.span, plain(symbol)) is None:
        raise RenameRefused(
            f"`{plain(symbol)}` isn't written where it is introduced (a shape alias or a loop"
            " over batches brings it in): rename it where it comes from"
        )
    span = name_span(text, spot.span, plain(symbol))
    if span is None:
        raise RenameRefused("there is no name here to rename")
    return Spot(span, symbol)


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(folder)]) == (
            os.path.abspath(folder)
        )
    except ValueError:
        return False


def check_new_name(symbol: Symbol, new_name: str) -> None:
    if new_name == plain(symbol):
        raise RenameRefused(f"`{new_name}` is already its name")
    if not new_name.isidentifier() or not new_name.isascii():
        raise RenameRefused(f"`{new_name}` isn't a name: use letters, digits and _")
    if new_name in RESERVED:
        raise RenameRefused(f"`{new_name}` is a keyword and can't be a name")
    if symbol.kind in ("field", "metric") and new_name.startswith("_"):
        raise RenameRefused(f"a field's name can't start with _, as `{new_name}` does")


def local_spans(checked: Checked, symbol: Symbol) -> list[Span]:
    """Where the file writes a name that means the symbol (its declaration included)."""
    text = checked.source.text
    found = set()
    if symbol.kind in LOCAL_KINDS:
        candidates = [
            spot for item in checked.items_at(symbol.span.start) for spot in spots(checked, item)
        ]
    else:
        # Only an item whose text writes the name can name it.
        name = plain(symbol)
        candidates = [
            spot
            for item in checked.items
            if name in text[item.span.start : item.span.end]
            for spot in spots(checked, item)
        ]
    for spot in candidates:
        if spot.symbol == symbol:
            span = name_span(text, spot.span, plain(symbol))
            if span is not None:
                found.add(span)
    if symbol.path == checked.source.path:
        span = name_span(text, symbol.span, plain(symbol))
        if span is not None:
            found.add(span)
    return sorted(found)


def spans_of_key(checked: Checked, key, spans: Iterable[Span], name: str) -> list[Span]:
    """A file's uses of another file's declaration, as the spans of the name alone."""
    text = checked.source.text
    found = {s for span in spans if (s := name_span(text, span, name)) is not None}
    if key[3] not in ("dim", "alias"):
        # Only dims and aliases are written where the facts hold no reference.
        return sorted(found)
    for spot in all_spots(checked):
        if spot.symbol.kind not in LOCAL_KINDS and key_of(spot.symbol) == key:
            span = name_span(text, spot.span, name)
            if span is not None:
                found.add(span)
    return sorted(found)


def shared_uses(checked: Checked, key, name: str) -> list[Span]:
    """Where a file's facts name the shared declaration `key` (called `name` in its own
    file), its declaration included when the file declares it; only the references
    written with that name are resolved."""
    found = []
    for item in checked.items:
        base = item.base
        for facts in item.fact_tables():
            for reference in facts.references:
                if reference.field is not None:
                    written = reference.field[1]
                elif reference.module_name is not None:
                    written = reference.module_name
                elif reference.symbol is not None and reference.symbol.kind not in LOCAL_KINDS:
                    written = reference.symbol.name
                else:
                    continue
                if written != name and not written.endswith("." + name):
                    continue
                symbol = checked._resolve(reference, base)
                if symbol is not None and key_of(symbol) == key:
                    found.append(Span(reference.span.start + base, reference.span.end + base))
    for symbol in checked.module_symbols.values():
        if key_of(symbol) == key:
            found.append(symbol.span)
    return found


def _line(checked: Checked, symbol: Symbol) -> str:
    if symbol.path != checked.source.path:
        return ""
    return f" (line {checked.source.text.count(chr(10), 0, symbol.span.start) + 1})"


def _owner_fields(checked: Checked, symbol: Symbol) -> dict | None:
    """The fields (or metrics) of the model or record that declares a field."""
    infos = [checked.models, checked.data]
    table = checked.imports
    if table is not None:
        infos += [table.model_infos, getattr(table, "data_infos", {})]
    for group in infos:
        for info in group.values():
            if any(field.symbol == symbol for field in info.fields.values()):
                return info.fields
    for group in [checked.logs] + ([table.logs_infos] if table is not None else []):
        for info in group.values():
            if any(metric.symbol == symbol for metric in info.metrics.values()):
                return info.metrics
    return None


def _uses_built_in(checked: Checked, items: Iterable, name: str) -> bool:
    """Whether the items name a built-in or prelude declaration called `name`."""
    for item in items:
        for facts in item.fact_tables():
            for reference in facts.references:
                found = reference.symbol
                if found is not None and found.name == name and found.path in BUILT_IN_PATHS:
                    return True
    return False


def clash(checked: Checked, symbol: Symbol, new_name: str, spans: list[Span]) -> str | None:
    """Why the new name can't be given in this file (the rules of E0302 and E0303, and a
    name that would then mean another declaration), or None."""
    if symbol.kind in ("field", "metric"):
        fields = _owner_fields(checked, symbol) or {}
        if new_name in fields:
            return f"E0302: the record already has a field `{new_name}`"
        return None
    other = checked.module_symbols.get(new_name)
    scope = checked.items if symbol.kind in _TOP_LEVEL else checked.items_at(symbol.span.start)
    if _uses_built_in(checked, scope, new_name):
        return f"`{new_name}` is built in and used here: the new name would hide it"
    if symbol.kind in _TOP_LEVEL:
        if other is not None:
            line = _line(checked, other)
            return f"E0302: {what(other)} named `{new_name}` is already declared{line}"
        if symbol.kind == "dim":
            for item in checked.items:
                for facts in item.fact_tables():
                    for entry in facts.entries:
                        if entry.name == new_name:
                            return (
                                f"E0303: a function has {what(entry.symbol)} `{new_name}`, "
                                "which can't have a dim's name"
                            )
        for span in spans:
            seen = checked.names_in_scope(span.start).get(new_name)
            if seen is not None and seen[0].kind in LOCAL_KINDS:
                return (
                    f"`{new_name}` is {what(seen[0])} where `{plain(symbol)}` is used"
                    f"{_line(checked, seen[0])}: the use would mean it instead"
                )
        return None
    if other is not None and other.kind in ("dim", "alias"):
        return f"E0303: `{new_name}` is {what(other)}, which {what(symbol)} can't be named after"
    if symbol.kind == "axis" and other is not None and other.kind in _TOP_LEVEL - {"fn", "extern"}:
        return f"E0303: `{new_name}` is {what(other)}, which an axis can't be named after"
    for item in checked.items_at(symbol.span.start):
        for facts in item.fact_tables():
            for entry in facts.entries:
                if entry.name == new_name:
                    where = Span(
                        entry.symbol.span.start + item.base, entry.symbol.span.end + item.base
                    )
                    line = checked.source.text.count("\n", 0, where.start) + 1
                    code = "E0302" if {symbol.kind, entry.symbol.kind} == {"param"} else "E0303"
                    return (
                        f"{code}: the function already has {what(entry.symbol)} "
                        f"`{new_name}` (line {line})"
                    )
    for span in spans:
        seen = checked.names_in_scope(span.start).get(new_name)
        if seen is not None and seen[0].path not in BUILT_IN_PATHS:
            return f"`{new_name}` is {what(seen[0])} of this file, which the new name would hide"
    return None


def in_bodies(checked: Checked, spans: list[Span]) -> bool:
    """Whether every span is inside a function's body, where checking the edited file
    again redoes only those bodies (an edit to a declaration redoes the whole file)."""
    for span in spans:
        starts = [body_start_of(item) for item in checked.items_at(span.start)]
        if not any(start is not None and start <= span.start for start in starts):
            return False
    return True


def new_errors(before: Checked, after: Checked) -> list:
    """The errors of `after` that `before` didn't have (by code and message)."""
    had = {(d.code, d.message) for d in before.errors}
    return [d for d in after.errors if (d.code, d.message) not in had]


def apply(text: str, spans: list[Span], new_name: str) -> str:
    """The text with each span replaced by the new name."""
    parts = []
    last = 0
    for span in sorted(spans):
        parts.append(text[last : span.start])
        parts.append(new_name)
        last = span.end
    parts.append(text[last:])
    return "".join(parts)


def edits(source: SourceFile, spans: list[Span], new_name: str) -> list[types.TextEdit]:
    return [types.TextEdit(range=range_of(source, span), new_text=new_name) for span in spans]


async def workspace_rename(
    ls, checked: Checked, document, offset: int, new_name: str
) -> types.WorkspaceEdit:
    """The edits that rename the name at the offset in every file that writes it; raises
    `RenameRefused` when the new name isn't allowed."""
    spot = target(checked, offset, str(ls.library.folder))
    symbol = spot.symbol
    check_new_name(symbol, new_name)
    changes: dict[str, tuple[Checked, list[Span]]] = {}
    if shared(symbol):
        key = key_of(symbol)
        uses = await workspace_uses(ls, checked, document, symbol, shared_uses)
        for uri, analysis, spans in uses:
            found = spans_of_key(analysis, key, spans, plain(symbol))
            if found:
                changes[uri] = (analysis, found)
            declared = {key_of(s): s for s in analysis.module_symbols.values()}.get(key)
            if declared is not None or symbol.kind in ("field", "metric") and uri == document.uri:
                reason = clash(analysis, declared or symbol, new_name, found)
                if reason is not None:
                    raise RenameRefused(f"can't rename `{plain(symbol)}` to `{new_name}`: {reason}")
    else:
        spans = local_spans(checked, symbol)
        reason = clash(checked, symbol, new_name, spans)
        if reason is not None:
            raise RenameRefused(f"can't rename `{plain(symbol)}` to `{new_name}`: {reason}")
        changes[document.uri] = (checked, spans)
    own = changes.get(document.uri)
    if own is not None and in_bodies(checked, own[1]):
        others = {
            normalized(analysis.source.path): apply(analysis.source.text, spans, new_name)
            for uri, (analysis, spans) in changes.items()
            if uri != document.uri
        }
        await recheck(ls, checked, own[1], new_name, symbol, others)
    return types.WorkspaceEdit(
        changes={
            uri: edits(analysis.source, spans, new_name)
            for uri, (analysis, spans) in changes.items()
        }
    )


async def recheck(
    ls, checked: Checked, spans: list[Span], new_name: str, symbol: Symbol, others: dict
) -> None:
    """Check the renamed document, reading the other renamed files (`others`, by path) as
    they will be; refuse if the checker finds an error it didn't before."""

    def read(path: str) -> str | None:
        renamed = others.get(normalized(path))
        return renamed if renamed is not None else ls.store.reader(path)

    text = apply(checked.source.text, spans, new_name)
    source = SourceFile.from_text(checked.source.path, text)
    after = await asyncio.to_thread(
        check_source,
        source,
        checked,
        search_path=ls.store.search_path,
        read=read,
    )
    errors = new_errors(checked, after)
    if errors:
        first = errors[0]
        raise RenameRefused(
            f"can't rename `{plain(symbol)}` to `{new_name}`: {first.code}: {first.message}"
        )
