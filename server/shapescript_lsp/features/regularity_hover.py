"""The regularity line of a function's hover: how smooth its result is in each of its
real-valued parameters (floats, models, batches), from the checker's regularity analysis."""

from __future__ import annotations

from shapescript.check.algebra.types import FLOAT_DTYPES, BatchType, ModelType, TensorType
from shapescript.check.analyses.regularity import (
    Regularity,
    Summary,
    analyse,
    describe,
    outside_of,
)
from shapescript.check.program import Checked
from shapescript.deep import run_deep
from shapescript.syntax import ast

#: Where a checked file keeps the summaries its hovers have worked out.
_MEMO_KEY = "regularity_hover"


def regularity_line(checked: Checked, name: str) -> str:
    """`Regularity: smooth in `x`, piecewise-smooth in `m` (`relu`, line 4)`, or "" for a
    function with no real-valued parameter."""
    decl, types = _function(checked, name)
    if decl is None:
        return ""
    shown = [param.name for param in decl.params if _real_valued(types.get(param.name_span))]
    if not shown:
        return ""
    summary, regularity = _summary(checked, name)
    if summary is None:
        return ""
    return describe(
        summary, lambda step: checked.source.position(regularity.start(step)).line, shown
    )


def _function(checked: Checked, name: str) -> tuple[ast.FnDecl | None, dict]:
    for item in checked.items:
        if isinstance(item.item, ast.FnDecl) and item.item.name == name and item.body:
            return item.item, item.body.facts.types
    return None, {}


def _real_valued(type_: object) -> bool:
    if isinstance(type_, TensorType):
        return type_.resolved_dtype in FLOAT_DTYPES
    return isinstance(type_, ModelType | BatchType)


def _summary(checked: Checked, name: str) -> tuple[Summary | None, Regularity]:
    known: Regularity = checked.memo.setdefault(_MEMO_KEY, Regularity())
    if name not in known.summaries:
        outside = outside_of(checked.items, checked.module_symbols, checked.imports)
        found = run_deep(
            analyse, checked.items, checked.models, checked.source.text, [name], outside=outside
        )
        known.summaries.update(found.summaries)
        known.bases.update(found.bases)
        known.imported = found.imported
    return known.summaries.get(name), known
