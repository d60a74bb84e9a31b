"""The exceptions ShapeScript raises: compile errors, and checks that fail at run time.

Torch-free, so `shapescript.ShapeError` can be caught without importing torch.
"""

from __future__ import annotations

from collections.abc import Sequence

from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.diagnostics.render_text import render_diagnostic
from shapescript.syntax.source import SourceFile


def render_diagnostics(
    diagnostics: Sequence[Diagnostic], source: SourceFile, *, color: bool = False
) -> str:
    """Diagnostics in source order, each as `shapescript check` draws it, a blank line apart."""
    ordered = sorted(diagnostics, key=lambda diag: (diag.primary.span.start, diag.code))
    return "\n\n".join(render_diagnostic(diag, source, color=color) for diag in ordered)


class ShapeScriptError(Exception):
    """A `.ss` file that doesn't compile; the message is its rendered diagnostics."""

    def __init__(self, diagnostics: Sequence[Diagnostic], source: SourceFile) -> None:
        self.diagnostics = list(diagnostics)
        self.source = source
        super().__init__(render_diagnostics(self.diagnostics, source))

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def errors(self) -> list[Diagnostic]:
        return [diag for diag in self.diagnostics if diag.is_error]

    def render(self, *, color: bool = False) -> str:
        """The diagnostics as `shapescript check` shows them, in colour if asked."""
        return render_diagnostics(self.diagnostics, self.source, color=color)

    def __reduce__(self):
        return (type(self), (self.diagnostics, self.source))


class CheckFailure(Exception):
    """A check that failed at run time, located at a `.ss` line and column.

    `str()` is `path:line:column: in fn NAME, argument for parameter `x`: message`, with
    the parts that are unknown left out.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        function: str | None = None,
        parameter: str | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.function = function
        self.parameter = parameter
        super().__init__(self._text())

    @property
    def location(self) -> str | None:
        """`path:line:column`, or as much of it as is known."""
        if self.path is None:
            return None
        parts = [self.path] + [str(part) for part in (self.line, self.column) if part is not None]
        return ":".join(parts)

    @property
    def context(self) -> str:
        """`in fn f, argument for parameter `x``: where inside the program it failed."""
        parts = []
        if self.function is not None:
            parts.append(f"in fn {self.function}")
        if self.parameter is not None:
            parts.append(f"argument for parameter `{self.parameter}`")
        return ", ".join(parts)

    def _text(self) -> str:
        prefix = "".join(f"{part}: " for part in (self.location, self.context) if part)
        return prefix + self.message

    def __str__(self) -> str:
        return self._text()

    def __reduce__(self):
        fields = {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "function": self.function,
            "parameter": self.parameter,
        }
        return (_restore, (type(self), self.message, fields))


def _restore(cls: type[CheckFailure], message: str, fields: dict) -> CheckFailure:
    return cls(message, **fields)


class ShapeError(CheckFailure, ValueError):
    """A value whose shape (or host type) isn't the one its `.ss` type says."""


class DomainError(CheckFailure, ValueError):
    """Values outside what their domain promises, found by a value check."""


class CallError(CheckFailure, TypeError):
    """A call of a compiled function with an argument missing or too many of them: a
    TypeError, as Python's own error for such a call is, that names the `.ss` line."""


class DeviceError(CheckFailure, RuntimeError):
    """No devices declared, two different declarations, or a tensor on another device."""


__all__ = [
    "CallError",
    "CheckFailure",
    "DeviceError",
    "DomainError",
    "ShapeError",
    "ShapeScriptError",
    "render_diagnostics",
]
