"""E3001: `value_and_grad` of a function whose result is discontinuous in its model."""

from __future__ import annotations

from shapescript.check.algebra.reporter import Reporter
from shapescript.check.analyses.regularity import Regularity, Step, analyse
from shapescript.check.analyses.regularity_operations import DISCONTINUOUS
from shapescript.diagnostics.diagnostic import Diagnostic, Label
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


def gradient_diagnostics(
    items,
    differentiating,
    models: dict,
    source: SourceFile,
    context: object = None,
    previous: dict | None = None,
) -> tuple[list[Diagnostic], dict]:
    """E3001 at each `value_and_grad` of the bodies in `differentiating` whose function is
    discontinuous in its model (spans absolute), and the summaries a later analysis with
    the same `context` may reuse (see `analyse`)."""
    roots = sorted({name for facts in differentiating for _, name, _ in facts.body.facts.gradients})
    regularity = analyse(items, models, source.text, roots, context, previous)
    return _report(differentiating, regularity, source), regularity.memo


def _report(items, regularity: Regularity, source: SourceFile) -> list[Diagnostic]:
    def line_of(step: Step) -> int:
        return source.position(regularity.start(step)).line

    reporter = Reporter()
    for item in items:
        if item.body is None:
            continue
        reporter.base = item.base
        for span, name, model in item.body.facts.gradients:
            summary = regularity.summaries.get(name)
            if summary is None or not summary.results:
                continue
            dependence = summary.results[0]
            if dependence is None or dependence.grade < DISCONTINUOUS:
                continue
            cause = dependence.cause or dependence.path[-1]
            parameter = summary.params[0]
            route = " → ".join(
                step.text if step.text == "…" else f"{step.text} (line {line_of(step)})"
                for step in dependence.path
            )
            what = _cause_name(cause)
            reporter.report(
                "E3001",
                f"`{name}` can't be differentiated in its model `{parameter}` ({model}): its "
                f"result goes through {cause.text} at line {line_of(cause)}, "
                "which has no gradient",
                span,
                f"differentiated in `{parameter}` here",
                notes=[f"the path from the model to the loss: {route} → the result of `{name}`"],
                help=_HELP_BY_CAUSE.get(what, _GENERAL_HELP)
                + "; ShapeScript has no detach, so a straight-through form can't be written",
                secondary=[
                    Label(
                        reporter.local(regularity.absolute(cause)),
                        f"{cause.text} has no gradient",
                    )
                ],
            )
    return reporter.diagnostics
