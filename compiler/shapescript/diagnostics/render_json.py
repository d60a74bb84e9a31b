"""The output of `shapescript check --format json`, described in docs/json-format.md."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from shapescript.diagnostics.codes import lookup
from shapescript.diagnostics.diagnostic import Diagnostic, Severity
from shapescript.syntax.source import SourceFile, Span

FORMAT_VERSION = 1


def _range(span: Span, source: SourceFile) -> dict[str, dict[str, int]]:
    """1-based start and exclusive end positions of a span."""
    start = source.position(span.start)
    end = source.position(max(span.start, span.end))
    return {
        "start": {"line": start.line, "column": start.column},
        "end": {"line": end.line, "column": end.column},
    }


def diagnostic_to_json(diag: Diagnostic, source: SourceFile) -> dict[str, Any]:
    """One diagnostic as a JSON-ready dict."""
    info = lookup(diag.code)
    path = diag.path or source.path
    return {
        "code": diag.code,
        "severity": diag.severity.value,
        "title": info.title if info is not None else None,
        "message": diag.message,
        "file": path,
        "range": _range(diag.primary.span, source),
        "label": diag.primary.message or None,
        "related": [
            {
                "file": path,
                "range": _range(label.span, source),
                "message": label.message or None,
            }
            for label in diag.secondary
        ],
        "notes": list(diag.notes),
        "help": diag.help,
    }


def render_json(checked: Iterable[tuple[Diagnostic, SourceFile]], files_checked: int) -> str:
    """The whole JSON document for diagnostics paired with their sources, in the order given."""
    diagnostics = [diagnostic_to_json(diag, source) for diag, source in checked]
    severities = [item["severity"] for item in diagnostics]
    document = {
        "version": FORMAT_VERSION,
        "files_checked": files_checked,
        "diagnostics": diagnostics,
        "summary": {
            "errors": severities.count(Severity.ERROR.value),
            "warnings": severities.count(Severity.WARNING.value),
            "hints": severities.count(Severity.HINT.value),
        },
    }
    return json.dumps(document, indent=2)
