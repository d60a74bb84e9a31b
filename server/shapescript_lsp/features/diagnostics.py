"""Checker diagnostics as LSP diagnostics, each linked to its code's page."""

from __future__ import annotations

from lsprotocol import types

from shapescript.check.program import Checked
from shapescript.diagnostics.codes import lookup
from shapescript.diagnostics.diagnostic import Diagnostic, Severity
from shapescript_lsp.positions import range_of

DOCS_URL = "https://github.com/shapescript/shapescript/blob/main/docs/diagnostics/{code}.md"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


def to_lsp(diagnostic: Diagnostic, checked: Checked, uri: str) -> types.Diagnostic:
    source = checked.source
    message = diagnostic.message
    extra = [f"note: {note}" for note in diagnostic.notes]
    if diagnostic.help:
        extra.append(f"help: {diagnostic.help}")
    if extra:
        message += "\n" + "\n".join(extra)
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=range_of(source, label.span)),
            message=label.message or diagnostic.message,
        )
        for label in diagnostic.secondary
    ]
    info = lookup(diagnostic.code)
    return types.Diagnostic(
        range=range_of(source, diagnostic.span),
        message=message,
        severity=_SEVERITY[diagnostic.severity],
        code=diagnostic.code,
        code_description=types.CodeDescription(href=DOCS_URL.format(code=diagnostic.code))
        if info is not None
        else None,
        source="shapescript",
        related_information=related or None,
    )


def publishable(checked: Checked, uri: str) -> list[types.Diagnostic]:
    return [to_lsp(diagnostic, checked, uri) for diagnostic in checked.diagnostics]
