"""Model checks reused across analyses, counted from the model's own start.

A model's check depends on its text and on the declarations around it (dims, aliases,
domains, the names the file declares), so a result is kept by the model's text and the
declarations fingerprint, with spans relative to the model's chunk, and moved to where
the model now starts.
"""

from __future__ import annotations

from shapescript.check.model_info import FieldInfo, ModelInfo
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.records import field, record, replace
from shapescript.syntax.parser import shift_diagnostic
from shapescript.syntax.source import Span


@record
class ModelResult:
    """One model's check at base 0: what it records, its facts and its diagnostics.

    `placed_at` keeps the last `placed` answer by its base, since most models stay put.
    """

    info: ModelInfo
    references: tuple
    types: tuple
    diagnostics: tuple[Diagnostic, ...]
    placed_at: dict = field(default_factory=dict)


def _shift(span: Span, offset: int) -> Span:
    return Span(span.start + offset, span.end + offset)


def _shift_field(field: FieldInfo, offset: int) -> FieldInfo:
    span = _shift(field.span, offset)
    return replace(field, span=span, symbol=replace(field.symbol, span=span))


def placed(result: ModelResult, base: int) -> tuple[ModelInfo, list[Diagnostic]]:
    """The model's info and diagnostics with absolute spans, for a model starting at `base`."""
    found = result.placed_at.get(base)
    if found is None:
        found = _placed(result, base)
        result.placed_at.clear()
        result.placed_at[base] = found
    return found[0], list(found[1])


def _placed(result: ModelResult, base: int) -> tuple[ModelInfo, list[Diagnostic]]:
    diagnostics = [shift_diagnostic(d, base) for d in result.diagnostics]
    if base == 0:
        return result.info, diagnostics
    info = result.info
    fields = {name: _shift_field(field, base) for name, field in info.fields.items()}
    return replace(info, span=_shift(info.span, base), fields=fields), diagnostics
