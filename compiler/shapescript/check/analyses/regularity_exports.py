"""The regularity summaries a checked file offers the files that import it: each fn's and
extern fn's, with every step placed in its file (name and line), since the importing file
can't place steps by the item bases of a file it doesn't hold."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping

from shapescript.check.analyses.regularity import (
    Dependence,
    Regularity,
    Step,
    Summary,
    analyse,
    outside_of,
)
from shapescript.check.analyses.regularity_externs import extern_class, unvouched_help
from shapescript.check.analyses.regularity_operations import SMOOTH
from shapescript.deep import run_deep
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile, Span


class ExportedSummaries(Mapping):
    """Every fn's and extern fn's summary, by its name in the file, steps placed: each
    worked out when an importing file first asks for it (most imported functions are never
    differentiated through), under a lock, since the language server's checks share the
    imported files' checks."""

    def __init__(self, checked, symbols: dict, table) -> None:
        source = checked.source
        self._source = source
        self._shown = os.path.basename(source.path) or source.path
        # Only what the analysis reads, not the whole check.
        self._items = checked.items
        self._models = checked.models
        self._outside = outside_of(checked.items, symbols, table)
        self._externs = {
            item.item.name: item
            for item in checked.items
            if item.item.__class__ is ast.ExternFnDecl
        }
        self._functions = frozenset(
            item.item.name
            for item in checked.items
            if item.item.__class__ is ast.FnDecl and item.body is not None
        )
        self._names = self._functions | frozenset(self._externs)
        self._known = Regularity()
        self._placed: dict[str, Summary] = {}
        self._lock = threading.Lock()

    def __getitem__(self, name: str) -> Summary:
        if name not in self._names:
            raise KeyError(name)
        with self._lock:
            found = self._placed.get(name)
            if found is None:
                found = self._placed[name] = self._work_out(name)
            return found

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._names))

    def __len__(self) -> int:
        return len(self._names)

    def _work_out(self, name: str) -> Summary:
        known = self._known
        if name not in known.summaries:
            extern = self._externs.get(name)
            if extern is not None and name not in self._functions:
                return _extern_summary(extern.item, extern.base, self._source, self._shown)
            found = run_deep(
                analyse,
                self._items,
                self._models,
                self._source.text,
                [name],
                outside=self._outside,
            )
            known.summaries.update(found.summaries)
            known.bases.update(found.bases)
        return _placed(known.summaries[name], known, self._source, self._shown)


def _placed(summary: Summary, regularity: Regularity, source: SourceFile, shown: str) -> Summary:
    placed: dict[Step, Step] = {}

    def place(step: Step) -> Step:
        if step.file:
            return step
        found = placed.get(step)
        if found is None:
            span = regularity.absolute(step)
            line = source.position(span.start).line
            found = placed[step] = Step(step.text, "", span, shown, line, step.help)
        return found

    results = tuple(
        None
        if d is None
        else Dependence(
            d.grade,
            tuple(place(step) for step in d.path),
            None if d.cause is None else place(d.cause),
        )
        for d in summary.results
    )
    return Summary(summary.name, summary.params, results, summary.assumed)


def _extern_summary(decl: ast.ExternFnDecl, base: int, source: SourceFile, shown: str) -> Summary:
    """An extern fn's summary: its class in every parameter, caused by the fn itself."""
    found = extern_class(decl)
    span = Span(decl.name_span.start + base, decl.name_span.end + base)
    line = source.position(span.start).line
    cause = None
    if found.grade > SMOOTH:
        if found.vouched:
            cause = Step(f"`{decl.name}`", "", span, shown, line)
        else:
            cause = Step(
                f"`{decl.name}` (an extern fn for `{found.python}`, not known to be smooth)",
                "",
                span,
                shown,
                line,
                unvouched_help(f"`{decl.name}`", extern=True),
            )
    results = tuple(
        Dependence(
            found.grade,
            (Step(f"`{p.name}`", "", span, shown, line),) + ((cause,) if cause else ()),
            cause,
        )
        for p in decl.params
    )
    return Summary(decl.name, tuple(p.name for p in decl.params), results)
