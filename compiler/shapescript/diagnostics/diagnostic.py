"""The diagnostic model every stage of the compiler reports through."""

from __future__ import annotations

import enum

from shapescript.records import field, record
from shapescript.syntax.source import Span


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    HINT = "hint"

    @classmethod
    def from_code(cls, code: str) -> Severity:
        """A code's letter is its severity: E error, W warning, H hint."""
        return {"E": cls.ERROR, "W": cls.WARNING, "H": cls.HINT}[code[0]]


@record(frozen=True)
class Label:
    """A span of source with a short text shown under it."""

    span: Span
    message: str = ""


@record(frozen=True)
class Edit:
    """Replace the text of a span with new text (an empty span inserts)."""

    span: Span
    text: str


@record(frozen=True)
class Fix:
    """An edit the checker knows would fix a diagnostic: a title and the edits it makes."""

    title: str
    edits: tuple[Edit, ...]

    def moved(self, offset: int) -> Fix:
        """The same fix with every edit's span moved by `offset` characters."""
        edits = tuple(
            Edit(Span(e.span.start + offset, e.span.end + offset), e.text) for e in self.edits
        )
        return Fix(self.title, edits)


@record
class Diagnostic:
    """One reported problem: a code, a message, where, and how to fix it."""

    code: str
    message: str
    primary: Label
    secondary: list[Label] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    help: str | None = None
    path: str = ""
    #: Edits the help names, where the checker knows them; editors offer them as fixes.
    fixes: list[Fix] = field(default_factory=list)

    @property
    def severity(self) -> Severity:
        return Severity.from_code(self.code)

    @property
    def span(self) -> Span:
        return self.primary.span

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR
