"""Diagnostics: the code registry, the diagnostic model and its renderers."""

from __future__ import annotations

from shapescript.diagnostics.diagnostic import Diagnostic, Label, Severity

__all__ = ["Diagnostic", "Label", "Severity"]
