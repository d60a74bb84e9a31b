"""Collects the checker's diagnostics: one per place, with notes from enclosing contexts."""

from __future__ import annotations

from collections.abc import Callable

from shapescript.diagnostics.diagnostic import Diagnostic, Fix, Label
from shapescript.syntax.source import Span


class Reporter:
    """Records diagnostics, dropping a second one at the same span and code.

    While an enclosing construct is being checked (a pipe stage, say), it pushes a note
    that every diagnostic made inside it gets, such as "in stage 2 of this pipeline".
    """

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self._seen: set[tuple[str, int, int]] = set()
        #: Each a note, or a function that writes it (when the note costs something to write).
        self.context_notes: list[str | Callable[[], str]] = []
        self.muted = 0
        #: Added to every span reported: the start of the item being checked, whose spans
        #: count from there.
        self.base = 0

    def local(self, span: Span) -> Span:
        """An absolute span as the item being checked counts it (for cross-item labels)."""
        return Span(span.start - self.base, span.end - self.base)

    def report(
        self,
        code: str,
        message: str,
        span: Span,
        label: str = "",
        *,
        notes: list[str] | None = None,
        help: str | None = None,
        secondary: list[Label] | None = None,
        fixes: list[Fix] | None = None,
    ) -> None:
        if self.muted:
            return
        base = self.base
        if base:
            span = Span(span.start + base, span.end + base)
            secondary = [
                Label(Span(label.span.start + base, label.span.end + base), label.message)
                for label in secondary or []
            ]
        key = (code, span.start, span.end)
        if key in self._seen:
            return
        self._seen.add(key)
        all_notes = list(notes or [])
        all_notes.extend(
            note if isinstance(note, str) else note() for note in reversed(self.context_notes)
        )
        if fixes and base:
            fixes = [fix.moved(base) for fix in fixes]
        self.diagnostics.append(
            Diagnostic(
                code,
                message,
                Label(span, label),
                list(secondary or []),
                all_notes,
                help,
                fixes=list(fixes or []),
            )
        )
