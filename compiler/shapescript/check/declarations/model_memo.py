"""Checks of models, data records and logs records reused across analyses.

Such a declaration's check depends on its text and on the declarations around it (dims,
aliases, domains, the names the file declares), so a result is kept by the declaration's
text and the declarations fingerprint, with the position it was made at, and moved when
an edit above has moved the declaration.
"""

from __future__ import annotations

from collections.abc import (
    Callable,
    Container,
    ItemsView,
    Iterator,
    Mapping,
    MutableMapping,
    ValuesView,
)
from typing import Any

from shapescript.check.algebra.reporter import Reporter
from shapescript.check.declarations.logs_info import LogsInfo
from shapescript.check.declarations.symbols import Facts, Symbol
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.records import field, record, replace
from shapescript.syntax import ast
from shapescript.syntax.parser import shift_diagnostic
from shapescript.syntax.source import Span


@record(frozen=True)
class ModelResult:
    """One declaration's check for a declaration starting at `base`: what it records
    (`ModelInfo`, `DataInfo` or `LogsInfo`, absolute spans), its facts (spans relative
    to the declaration's chunk) and its diagnostics (absolute)."""

    info: Any
    references: tuple
    types: tuple
    diagnostics: tuple[Diagnostic, ...]
    base: int


def _shift(span: Span, offset: int) -> Span:
    # `Span(...)` without its Python-level `__new__`: every field of a moved model moves.
    start, end = span
    return _new_tuple(Span, (start + offset, end + offset))


_new_tuple = tuple.__new__


def _shift_member(member: Any, offset: int) -> Any:
    span = _shift(member.span, offset)
    symbol = member.symbol
    moved_symbol = Symbol(symbol.name, symbol.kind, span, symbol.path, symbol.detail, symbol.doc)
    return _with_span(type(member))(member, span, moved_symbol)


def _with_span(cls: type) -> Callable[[Any, Span, Symbol], Any]:
    """A function copying a field or metric record of class `cls` with another span and
    symbol: `replace`, made for the class's fields once, without its per-call lookups
    (every field of every moved model is copied)."""
    found = _WITH_SPAN.get(cls)
    if found is None:
        names = [item.name for item in cls.__record_fields__]  # type: ignore[attr-defined]
        arguments = ", ".join(name if name in ("span", "symbol") else f"m.{name}" for name in names)
        namespace: dict[str, Any] = {"cls": cls}
        exec(f"def with_span(m, span, symbol):\n  return cls({arguments})\n", namespace)
        found = _WITH_SPAN[cls] = namespace["with_span"]
    return found


_WITH_SPAN: dict[type, Callable[[Any, Span, Symbol], Any]] = {}


class MovedMembers(Mapping[str, Any]):
    """The fields of a moved model or data record, or the metrics of a moved logs record:
    those the check found, each moved by `offset` when first read. A keystroke moves
    every declaration below it, and most of their fields are never read before the next
    one moves them again."""

    __slots__ = ("found", "offset", "made")

    def __init__(self, found: Mapping[str, Any], offset: int) -> None:
        if isinstance(found, MovedMembers):
            # Moved again: from where the check found them, never a chain of moves.
            offset += found.offset
            found = found.found
        self.found = found
        self.offset = offset
        self.made: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        made = self.made.get(name)
        if made is None:
            made = self.made[name] = _shift_member(self.found[name], self.offset)
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self.found)

    def __len__(self) -> int:
        return len(self.found)

    def __contains__(self, name: object) -> bool:
        return name in self.found

    def __repr__(self) -> str:
        return repr(dict(self))

    def where(self, keep: Callable[[Any], bool]) -> list[Any]:
        """The members `keep` accepts, in order, judged by what moving leaves as it was
        (kinds, types, names): only those are moved."""
        return [self[name] for name, one in self.found.items() if keep(one)]


def moved(result: ModelResult, base: int) -> ModelResult:
    """The same check for the declaration now starting at `base`; its fields (or
    metrics) are moved as they are read (`MovedMembers`)."""
    offset = base - result.base
    if offset == 0:
        return result
    info = result.info
    members = "metrics" if isinstance(info, LogsInfo) else "fields"
    shifted = MovedMembers(getattr(info, members), offset)
    return ModelResult(
        replace(info, span=_shift(info.span, offset), **{members: shifted}),
        result.references,
        result.types,
        tuple(shift_diagnostic(d, offset) for d in result.diagnostics),
        base,
    )


class PlacedInfos(MutableMapping[str, Any]):
    """The infos one pass of `DeclarationPass` found (`ModelInfo`, `DataInfo` or
    `LogsInfo`, by name), each moved to where its item now is when first read.

    `results` holds each declaration's item index and its `ModelResult`, which says at
    which base it was made; it is shared by the analyses that take the pass's results
    whole, and a result moved on reading replaces the one there (a result is right at any
    base, moved by the difference). `bases` are the items' bases now. `made` holds what
    this analysis read (moved) or wrote (another file's infos, `imports.finish`), which
    overrides `results`; names are kept in a dict's order: `results`', then those
    written anew.
    """

    __slots__ = ("results", "bases", "made", "whole", "clean")

    def __init__(
        self,
        results: dict[str, tuple[int, ModelResult]],
        bases: list[int],
        made: dict[str, Any] | None = None,
        whole: bool = False,
    ) -> None:
        self.results = results
        self.bases = bases
        self.made: dict[str, Any] = {} if made is None else made
        #: Whether `made` holds every info, in order (`_whole`).
        self.whole = whole
        #: Whether `nested_models.report_cycles` found no model holding itself and none
        #: nested too deep among these (or the ones they are moved from).
        self.clean = False

    def _moved(self, name: str) -> Any:
        index, result = self.results[name]
        base = self.bases[index]
        if base != result.base:
            result = moved(result, base)
            self.results[name] = (index, result)
        return result.info

    def __getitem__(self, name: str) -> Any:
        made = self.made.get(name)
        if made is None:
            made = self.made[name] = self._moved(name)
        return made

    def get(self, name: str, default: Any = None) -> Any:
        made = self.made.get(name)
        if made is not None:
            return made
        return self[name] if name in self.results else default

    def __contains__(self, name: object) -> bool:
        return name in self.made or name in self.results

    # A reader on another thread may add to `made` meanwhile: it is walked as a copy.

    def __iter__(self) -> Iterator[str]:
        yield from self.results
        for name in list(self.made):
            if name not in self.results:
                yield name

    def __len__(self) -> int:
        results = self.results
        return len(results) + sum(1 for name in list(self.made) if name not in results)

    def items(self) -> ItemsView[str, Any]:
        return self._whole().items()

    def values(self) -> ValuesView[Any]:
        return self._whole().values()

    def _whole(self) -> dict[str, Any]:
        """Every info, moved, in order: made in one pass when first asked for."""
        if self.whole:
            return self.made
        made = self.made
        whole = {name: made.get(name) or self._moved(name) for name in self.results}
        for name, info in list(made.items()):
            whole.setdefault(name, info)
        self.made = whole
        self.whole = True
        return whole

    def __setitem__(self, name: str, info: Any) -> None:
        self.made[name] = info

    def __delitem__(self, name: str) -> None:
        raise TypeError("a declaration's info is never taken out")

    def own(self) -> PlacedInfos:
        """The infos of the file's own declarations: without another file's (`mlp.Mlp`),
        which have a `.` in their names."""
        made = {name: info for name, info in list(self.made.items()) if "." not in name}
        return PlacedInfos(self.results, self.bases, made, self.whole)

    def __repr__(self) -> str:
        return f"PlacedInfos({dict(self.items())!r})"


def own_infos(infos: Mapping[str, Any]) -> Mapping[str, Any]:
    """The infos of the file's own declarations, without another file's."""
    if isinstance(infos, PlacedInfos):
        return infos.own()
    return {name: info for name, info in infos.items() if "." not in name}


@record
class PassMemo:
    """What one kind's pass of `DeclarationPass` leaves for the next analysis, to be
    taken whole while no declaration it read changed: the context and file it checked
    under, its infos (`PlacedInfos`, whose `results` are each declaration's check) and
    the names of the declarations that reported something, in order."""

    context: int
    path: str
    infos: PlacedInfos
    reporting: list[str]


def declaration_key(
    text: str, item: ast.Item, base: int, context: int, path: str, previous: dict
) -> tuple:
    """What a declaration's check is kept by: its text, its place in its chunk (its facts
    count from there), the declarations fingerprint and the file. For the item object
    `previous` saw (`checked_declaration`), the key it had, without copying the text."""
    seen = previous.get(("item", id(item)))
    if seen is not None and seen[0] is item:
        known = seen[1]
        if known[2] == context and known[3] == path:
            return known
    return (text[base + item.span.start : base + item.span.end], item.span.start, context, path)


def checked_declaration(
    item: ast.Item,
    key: tuple,
    base: int,
    memo: dict,
    previous: dict,
    check: Callable[[Reporter, Facts], Any],
) -> ModelResult:
    """The check of the declaration `item` at `base` kept by `key` in `memo` or
    `previous`, moved there; else `check(reporter, facts)`'s, run with a reporter and
    facts of its own. `memo` receives it, and the item's key."""
    memo[("item", id(item))] = (item, key)
    result = memo.get(key) or previous.get(key)
    if result is None:
        reporter = Reporter()
        reporter.base = base
        facts = Facts()
        info = check(reporter, facts)
        result = ModelResult(
            info,
            tuple(facts.references),
            tuple(facts.types.items()),
            tuple(reporter.diagnostics),
            base,
        )
    else:
        result = moved(result, base)
    memo[key] = result
    return result


def record_result(result: ModelResult, facts: Facts | None, reporter: Reporter) -> None:
    """Give a declaration's facts to its item (unless it has them already, `facts` None)
    and its diagnostics to the file's reporter."""
    if facts is not None:
        facts.references.extend(result.references)
        facts.types.update(result.types)
    reporter.diagnostics.extend(result.diagnostics)


@record
class DeclarationPass:
    """What the checks of one file's models, data records and logs records share: each
    declaration's result is kept by its text and `context` (the declarations
    fingerprint), as `checked_declaration` says, and taken from the previous analysis's
    memo (`previous`, by the kind's name) when it is there. `memos` receives this
    analysis's, by the same names. The items at the indexes in `kept` have their
    declaration facts already; `indexes` gives the indexes of the items of each class."""

    module: ast.Module
    path: str
    items_facts: list
    text: str
    context: int
    previous: dict
    kept: Container[int]
    indexes: dict[type, list[int]]
    reporter: Reporter
    replaced: list[int] | None = None
    memos: dict[str, Any] = field(default_factory=dict)

    def check(
        self,
        kind: type,
        declared: dict,
        memo_name: str,
        check: Callable[[Any, Reporter, Facts, int], Any],
    ) -> PlacedInfos:
        """Check the declarations of class `kind` that `declared` (the scope's table of
        them, by name) holds, `check(item, reporter, facts, base)` checking one; each
        one's declaration facts go to its item. Gives each one's info, by name.

        When no item of the class is new since the previous analysis, and its check was
        made under the same context, its infos are taken whole, moved as they are read,
        and its diagnostics reported again where their items now are."""
        whole = self._taken_whole(kind, memo_name)
        if whole is not None:
            return whole
        infos: dict[str, Any] = {}
        results: dict[str, tuple[int, ModelResult]] = {}
        reporting: list[str] = []
        memo = self.memos[memo_name] = {}
        previous = self.previous.get(memo_name) or {}
        module, text, context, path = self.module, self.text, self.context, self.path
        items = module.items
        for index in self.indexes.get(kind, ()):
            item = items[index]
            if type(item) is not kind or declared.get(item.name) is not item:
                continue
            base = module.base_of(index)
            result = checked_declaration(
                item,
                declaration_key(text, item, base, context, path, previous),
                base,
                memo,
                previous,
                lambda reporter, facts, item=item, base=base: check(item, reporter, facts, base),
            )
            facts = None if index in self.kept else self.items_facts[index].declaration
            record_result(result, facts, self.reporter)
            infos[item.name] = result.info
            results[item.name] = (index, result)
            if result.diagnostics:
                reporting.append(item.name)
        placed = PlacedInfos(results, module.bases or [0] * len(items), infos, whole=True)
        self.memos[memo_name + " whole"] = PassMemo(context, path, placed, reporting)
        return placed

    def _taken_whole(self, kind: type, memo_name: str) -> PlacedInfos | None:
        """The previous analysis's infos of class `kind`, moved, with their diagnostics
        reported again, when no item of the class was replaced since and the context is
        the same; else None."""
        found = self.previous.get(memo_name + " whole")
        replaced = self.replaced
        if (
            found is None
            or replaced is None
            or found.context != self.context
            or found.path != self.path
        ):
            return None
        items = self.module.items
        if any(type(items[index]) is kind for index in replaced):
            return None
        before = found.infos
        bases = self.module.bases or [0] * len(items)
        infos = PlacedInfos(before.results, bases)
        infos.clean = before.clean
        diagnostics = self.reporter.diagnostics
        for name in found.reporting:
            index, result = before.results[name]
            offset = bases[index] - result.base
            diagnostics.extend(shift_diagnostic(d, offset) for d in result.diagnostics)
        self.memos[memo_name] = self.previous.get(memo_name) or {}
        self.memos[memo_name + " whole"] = PassMemo(self.context, self.path, infos, found.reporting)
        return infos
