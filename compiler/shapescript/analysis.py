"""The one analysis entry point that the CLI and other consumers call."""

from __future__ import annotations

from shapescript.check.checker import check_source
from shapescript.check.program import Checked
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.syntax.source import SourceFile


def analyze(source: SourceFile) -> list[Diagnostic]:
    """Every diagnostic found in one source file."""
    return check(source).diagnostics


def check(source: SourceFile) -> Checked:
    """The checked program: diagnostics, types and symbols, for every consumer."""
    return check_source(source)
