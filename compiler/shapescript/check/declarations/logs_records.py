"""Logs declarations: each metric a single number with a combining rule (E1402, E0302)."""

from __future__ import annotations

import keyword

from shapescript.check.algebra.types import HostType, TensorType, Type, UnknownType, format_type
from shapescript.check.declarations.declaration_checker import DeclarationChecker
from shapescript.check.declarations.logs_info import COMBINE_RULES, LogsInfo, MetricInfo
from shapescript.check.declarations.model_memo import DeclarationPass, PlacedInfos
from shapescript.check.declarations.module_scope import ModuleScope, suggestion
from shapescript.check.declarations.symbols import Reference, Symbol
from shapescript.diagnostics.diagnostic import Label
from shapescript.syntax import ast
from shapescript.syntax.source import Span

COMBINE_HELP = "end the metric with how its values combine: mean, sum, max, min or last"


def check_logs(scope: ModuleScope, run: DeclarationPass) -> PlacedInfos:
    """Check every logs declaration, as `check_models` checks models."""
    return run.check(
        ast.LogsDecl,
        scope.records,
        "logs",
        lambda item, reporter, facts, base: _LogsChecker(scope, reporter, facts, base).check(item),
    )


class _LogsChecker(DeclarationChecker):
    def check(self, decl: ast.LogsDecl) -> LogsInfo:
        metrics: dict[str, MetricInfo] = {}
        first_spans: dict[str, Span] = {}
        for metric in decl.metrics:
            if metric.name in first_spans:
                self._error(
                    "E0302",
                    f"`{decl.name}` has two metrics named `{metric.name}`",
                    metric.name_span,
                    "second declaration",
                    secondary=[Label(first_spans[metric.name], "first here")],
                    help="rename one of them",
                )
                continue
            first_spans[metric.name] = metric.name_span
            info = self._metric(decl, metric)
            if info is not None:
                metrics[metric.name] = info
        return LogsInfo(
            decl.name,
            self._absolute(decl.name_span),
            metrics,
            decl.doc.text if decl.doc is not None else None,
            self.ok,
        )

    def _metric(self, decl: ast.LogsDecl, metric: ast.Metric) -> MetricInfo | None:
        if not self._name_ok(metric) or not self._combine_ok(metric):
            return None
        type_ = self._type(metric)
        if type_ is None:
            return None
        dtype = type_.resolved_dtype if isinstance(type_, TensorType) else type_.kind
        symbol = Symbol(
            metric.name,
            "metric",
            self._absolute(metric.name_span),
            self.scope.path,
            f"{metric.name}: {format_type(type_)} {metric.combine}",
            metric.doc.text if metric.doc is not None else None,
        )
        self.facts.references.append(Reference(metric.name_span, field=(decl.name, metric.name)))
        self.facts.types[metric.name_span] = type_
        return MetricInfo(
            metric.name,
            type_,
            dtype,
            metric.combine,
            symbol.span,
            symbol,
            symbol.doc,
        )

    def _name_ok(self, metric: ast.Metric) -> bool:
        name = metric.name
        if keyword.iskeyword(name):
            problem = f"`{name}` is a Python keyword"
        elif name.startswith("_"):
            problem = "a metric's name can't start with `_`"
        else:
            return True
        self._error(
            "E1402",
            f"a metric can't be named `{name}`: {problem}",
            metric.name_span,
            "reserved name",
            help="choose another name for the metric",
        )
        return False

    def _combine_ok(self, metric: ast.Metric) -> bool:
        if metric.combine is None:
            self._error(
                "E1402",
                f"metric `{metric.name}` doesn't say how its values combine",
                metric.type.span,
                "no combining rule",
                help=COMBINE_HELP + f", as in `{metric.name}: [] mean`",
            )
            return False
        if metric.combine in COMBINE_RULES:
            return True
        self._error(
            "E1402",
            f"`{metric.combine}` isn't a way to combine values",
            metric.combine_span or metric.span,
            "unknown combining rule",
            help=suggestion(metric.combine, COMBINE_RULES) or COMBINE_HELP,
        )
        return False

    def _type(self, metric: ast.Metric) -> Type | None:
        """The metric's type: a `[]` tensor type or a host scalar, else E1402."""
        written = metric.type
        if written.shape is not None and written.shape.axes:
            self._not_a_number(metric, "a tensor with axes")
            return None
        type_ = self._resolve_field_type(written)
        if type_ is None or isinstance(type_, UnknownType):
            self.ok = False
            return None
        if isinstance(type_, HostType) or (isinstance(type_, TensorType) and type_.axes == ()):
            return type_
        what = "a type without a shape" if isinstance(type_, TensorType) else format_type(type_)
        self._not_a_number(metric, what)
        return None

    def _not_a_number(self, metric: ast.Metric, what: str) -> None:
        self._error(
            "E1402",
            f"metric `{metric.name}` is a single number, not {what}",
            metric.type.span,
            "not a single number",
            help="write `[]` (with any domain and dtype, as `[] NonNeg` or `[] i64`), "
            "or int, float or bool",
        )
