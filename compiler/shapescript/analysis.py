"""The one analysis entry point that the CLI and other consumers call."""

from __future__ import annotations

from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.syntax.source import SourceFile


def analyze(source: SourceFile) -> list[Diagnostic]:
    """Every diagnostic found in one source file."""
    from shapescript.syntax.parser import parse

    return parse(source).diagnostics
