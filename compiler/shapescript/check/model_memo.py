"""Model checks reused across analyses.

A model's check depends on its text and on the declarations around it (dims, aliases,
domains, the names the file declares), so a result is kept by the model's text and the
declarations fingerprint, with the position it was made at, and moved when an edit
above has moved the model.
"""

from __future__ import annotations

from shapescript.check.model_info import FieldInfo, ModelInfo
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.records import record, replace
from shapescript.syntax.parser import shift_diagnostic
from shapescript.syntax.source import Span


@record(frozen=True)
class ModelResult:
    """One model's check for a model starting at `base`: what it records (absolute spans),
    its facts (spans relative to the model's chunk) and its diagnostics (absolute)."""

    info: ModelInfo
    references: tuple
    types: tuple
    diagnostics: tuple[Diagnostic, ...]
    base: int


def _shift(span: Span, offset: int) -> Span:
    return Span(span.start + offset, span.end + offset)


def _shift_field(field: FieldInfo, offset: int) -> FieldInfo:
    span = _shift(field.span, offset)
    return replace(field, span=span, symbol=replace(field.symbol, span=span))


def moved(result: ModelResult, base: int) -> ModelResult:
    """The same check for the model now starting at `base`."""
    offset = base - result.base
    if offset == 0:
        return result
    info = result.info
    fields = {name: _shift_field(field, offset) for name, field in info.fields.items()}
    return ModelResult(
        replace(info, span=_shift(info.span, offset), fields=fields),
        result.references,
        result.types,
        tuple(shift_diagnostic(d, offset) for d in result.diagnostics),
        base,
    )
