"""E3001: `value_and_grad` of a function whose result is discontinuous in its model."""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter

from shapescript.check.algebra.reporter import Reporter
from shapescript.check.analyses.regularity import Outside, Regularity, Step, analyse, where
from shapescript.check.analyses.regularity_layout import changed_positions
from shapescript.check.analyses.regularity_operations import DISCONTINUOUS
from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.records import record
from shapescript.syntax.source import SourceFile

_HELP_BY_CAUSE = {
    "argmax": "to weigh positions by their scores, use `softmax` over the same axis instead "
    "of picking one with `argmax`",
    "argmin": "to weigh positions, use `softmax` of the negated values over the same axis "
    "instead of `argmin`",
    "argsort": "sort the values themselves (`sort` is piecewise-smooth) rather than "
    "their positions",
    "floor": "keep the value continuous: leave out the rounding inside the loss",
    "ceil": "keep the value continuous: leave out the rounding inside the loss",
    "round": "keep the value continuous: leave out the rounding inside the loss",
}
_GENERAL_HELP = (
    "make the mask from sizes (`causal[n m]`, `positions`) rather than from values, use a "
    "smooth gate such as `sigmoid` where a comparison of values is meant, and keep "
    "values floats (not `to Index` or an int)"
)


def _cause_name(cause: Step) -> str:
    return cause.text.strip("`").split("(")[0]


def _help(cause: Step) -> str:
    if cause.help:
        return cause.help
    return (
        _HELP_BY_CAUSE.get(_cause_name(cause), _GENERAL_HELP)
        + "; ShapeScript has no detach, so a straight-through form can't be written"
    )


def _secondary(
    reporter: Reporter, regularity: Regularity, path, cause: Step, line_of
) -> list[Label]:
    """A label at the cause, or, where it is in another file, at the last step of the path
    in this one (the call that leads there)."""
    if not cause.file:
        message = f"{cause.text} has no gradient" if not cause.help else "no known gradient"
        return [Label(reporter.local(regularity.absolute(cause)), message)]
    local = [step for step in path if not step.file and step.text != "…"]
    if not local:
        return []
    step = local[-1]
    return [
        Label(
            reporter.local(regularity.absolute(step)),
            f"goes through {cause.text} ({where(cause, line_of)})",
        )
    ]


def gradient_diagnostics(
    items,
    differentiating,
    models: Mapping,
    source: SourceFile,
    context: object = None,
    previous: dict | None = None,
    outside: Outside | None = None,
) -> tuple[list[Diagnostic], dict]:
    """E3001 at each `value_and_grad` of the bodies in `differentiating` whose function is
    discontinuous in its model (spans absolute), and the summaries a later analysis with
    the same `context` may reuse (see `analyse`); `outside` is what the file's functions
    call in other files and in Python.

    Which bodies get an E3001 is kept from `previous` for each body that is the same
    object at the same place in `differentiating` and whose differentiated functions'
    summaries didn't change: only the diagnostics are made again, where they are now."""
    bodies = list(map(_BODY, differentiating))
    before: _Reported | None = previous.get(_REPORTED) if previous is not None else None
    changed = _aligned(before, bodies)
    if before is not None and changed is not None:
        by_name, roots = before.by_name, before.roots
    else:
        by_name = {}
        for position, body in enumerate(bodies):
            for name in _differentiated(body):
                by_name.setdefault(name, []).append(position)
        roots = sorted(by_name)
    regularity = analyse(items, models, source.text, roots, context, previous, outside)
    if before is None or changed is None or regularity.changed is None:
        hits: list[int] = [
            position for position, body in enumerate(bodies) if _hit(body, regularity)
        ]
    else:
        affected = set(changed)
        for name in regularity.changed:
            affected.update(by_name.get(name, ()))
        hits = [position for position in before.hits if position not in affected]
        hits.extend(position for position in affected if _hit(bodies[position], regularity))
        hits.sort()
    regularity.memo[_REPORTED] = _Reported(bodies, roots, by_name, hits)
    found = _report([differentiating[position] for position in hits], regularity, source)
    return found, regularity.memo


_BODY = attrgetter("body")
#: The memo's entry for which bodies got an E3001 (`_Reported`).
_REPORTED = ("reported",)


@record
class _Reported:
    """The bodies that differentiate, in order; the functions they differentiate (the
    analysis's roots), with the positions of the bodies that differentiate each; and the
    positions of those that got an E3001."""

    bodies: list
    roots: list[str]
    by_name: dict[str, list[int]]
    hits: list[int]


def _aligned(before: _Reported | None, bodies: list) -> list[int] | None:
    """The positions of the bodies that aren't `before`'s there, where the bodies align
    with its and those differentiate the same functions; else None."""
    if before is None:
        return None
    changed = changed_positions(before.bodies, bodies)
    if changed is None:
        return None
    old = before.bodies
    if any(_differentiated(bodies[index]) != _differentiated(old[index]) for index in changed):
        return None
    return changed


def _differentiated(body) -> list[str]:
    """The names of the functions a body gives to value_and_grad, in order."""
    return [name for _, name, _ in body.facts.gradients]


def _hit(body, regularity: Regularity) -> bool:
    """Whether a body differentiates a function discontinuous in its model (E3001)."""
    for _, name, _ in body.facts.gradients:
        summary = regularity.summary(name)
        if summary is None or not summary.results:
            continue
        dependence = summary.results[0]
        if dependence is not None and dependence.grade >= DISCONTINUOUS:
            return True
    return False


def _report(items, regularity: Regularity, source: SourceFile) -> list[Diagnostic]:
    def line_of(step: Step) -> int:
        return source.position(regularity.start(step)).line

    reporter = Reporter()
    for item in items:
        if item.body is None:
            continue
        reporter.base = item.base
        for span, name, model in item.body.facts.gradients:
            summary = regularity.summary(name)
            if summary is None or not summary.results:
                continue
            dependence = summary.results[0]
            if dependence is None or dependence.grade < DISCONTINUOUS:
                continue
            cause = dependence.cause or dependence.path[-1]
            parameter = summary.params[0]
            route = " → ".join(
                step.text if step.text == "…" else f"{step.text} ({where(step, line_of)})"
                for step in dependence.path
            )
            which = "which has no gradient" if not cause.help else "counted as discontinuous"
            reporter.report(
                "E3001",
                f"`{name}` can't be differentiated in its model `{parameter}` ({model}): its "
                f"result goes through {cause.text} at {where(cause, line_of)}, {which}",
                span,
                f"differentiated in `{parameter}` here",
                notes=[f"the path from the model to the loss: {route} → the result of `{name}`"],
                help=_help(cause),
                secondary=_secondary(reporter, regularity, dependence.path, cause, line_of),
            )
    return reporter.diagnostics
