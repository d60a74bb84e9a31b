"""Checker diagnostics as LSP diagnostics, each linked to its code's page."""

from __future__ import annotations

from functools import cache

from lsprotocol import types

from shapescript.check.program import Checked
from shapescript.diagnostics.codes import lookup
from shapescript.diagnostics.diagnostic import Diagnostic, Severity
from shapescript.diagnostics.pages import page_location
from shapescript_lsp.positions import range_of

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
    href = page_href(diagnostic.code) if lookup(diagnostic.code) is not None else None
    return types.Diagnostic(
        range=range_of(source, diagnostic.span),
        message=message,
        severity=_SEVERITY[diagnostic.severity],
        code=diagnostic.code,
        code_description=types.CodeDescription(href=href) if href is not None else None,
        source="shapescript",
        related_information=related or None,
    )


@cache
def page_href(code: str) -> str | None:
    """A file:// URL of the code's page: the built docs site's when it was built when the
    server first linked the code, else the Markdown source (`diagnostics/pages.py`)."""
    location = page_location(code)
    return location.as_uri() if location is not None else None


def publishable(checked: Checked, uri: str) -> list[types.Diagnostic]:
    return [to_lsp(diagnostic, checked, uri) for diagnostic in checked.diagnostics]
