"""Completion after `batch.` (a batch or example of a data record: its fields, with the
batch's axes first) and after `r.` (a logs record: its metrics)."""

from __future__ import annotations

from lsprotocol import types

from shapescript.check.algebra.types import BatchType, LogsType, Type, format_type
from shapescript.check.program import Checked


def record_members(checked: Checked, value_type: Type | None) -> list | None:
    """The fields or metrics of a data or logs record value; None for any other value."""
    from shapescript_lsp.features.completion import Candidate

    table = checked.imports
    if isinstance(value_type, BatchType):
        imported = getattr(table, "data_infos", {}) if table is not None else {}
        info = checked.data.get(value_type.record) or imported.get(value_type.record)
        if info is None:
            return []
        candidates = []
        for order, field in enumerate(info.fields.values()):
            shown = field.in_batch(value_type.axes)
            candidates.append(
                Candidate(
                    field.name,
                    types.CompletionItemKind.Field,
                    f"{field.name}: {format_type(shown)}",
                    shown,
                    rank=0,
                    order=order,
                    insert=field.name,
                )
            )
        return candidates
    if isinstance(value_type, LogsType):
        imported = table.logs_infos if table is not None else {}
        info = checked.logs.get(value_type.name) or imported.get(value_type.name)
        if info is None:
            return []
        return [
            Candidate(
                metric.name,
                types.CompletionItemKind.Field,
                f"{metric.name}: {format_type(metric.type)} {metric.combine}",
                metric.type,
                rank=0,
                order=order,
                insert=metric.name,
            )
            for order, metric in enumerate(info.metrics.values())
        ]
    return None
