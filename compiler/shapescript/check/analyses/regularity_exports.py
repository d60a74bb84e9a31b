"""The regularity summaries a checked file offers the files that import it: each fn's and
extern fn's, with every step placed in its file (name and line), since the importing file
can't place steps by the item bases of a file it doesn't hold."""

from __future__ import annotations

import os

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


def exported_summaries(checked, symbols: dict, table) -> dict[str, Summary]:
    """Every fn's and extern fn's summary, by its name in the file, steps placed."""
    source = checked.source
    shown = os.path.basename(source.path) or source.path
    outside = outside_of(checked.items, symbols, table)
    regularity = run_deep(analyse, checked.items, checked.models, source.text, outside=outside)
    exported = {
        name: _placed(summary, regularity, source, shown)
        for name, summary in regularity.summaries.items()
    }
    for item in checked.items:
        decl = item.item
        if decl.__class__ is ast.ExternFnDecl and decl.name not in exported:
            exported[decl.name] = _extern_summary(decl, item.base, source, shown)
    return exported


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


def _extern_summary(
    decl: ast.ExternFnDecl, base: int, source: SourceFile, shown: str
) -> Summary:
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
