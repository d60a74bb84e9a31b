"""What the checker records about each logs record, for the compiler and the editor."""

from __future__ import annotations

from collections.abc import Mapping

from shapescript.check.algebra.types import Type
from shapescript.check.declarations.symbols import Symbol
from shapescript.records import record
from shapescript.syntax.source import Span

#: How a metric's values combine when a sink groups several records.
COMBINE_RULES = ("mean", "sum", "max", "min", "last")


@record(frozen=True)
class MetricInfo:
    """One metric of a logs record.

    `type` is a `[]` tensor type or a host scalar; `dtype` is the tensor's resolved dtype
    ("f32", "i64", ...) or the host scalar's kind ("int", "float", "bool"). `combine` is one
    of `COMBINE_RULES`. `span` is the absolute span of the metric's name.
    """

    name: str
    type: Type
    dtype: str
    combine: str
    span: Span
    symbol: Symbol
    doc: str | None = None


@record(frozen=True)
class LogsInfo:
    """A logs record: its metrics in declaration order, by name.

    `span` is the absolute span of the record's name. `ok` is False when a metric had an
    error (its entry is then left out), so the compiler should not build the record.
    """

    name: str
    span: Span
    #: A dict, or for a record an edit above moved, `model_memo.MovedMembers`.
    metrics: Mapping[str, MetricInfo]
    doc: str | None = None
    ok: bool = True
