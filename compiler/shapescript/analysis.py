"""The one analysis entry point that the CLI and other consumers call."""

from __future__ import annotations

from collections.abc import Sequence

from shapescript.check.checker import check_source
from shapescript.check.import_session import Reader
from shapescript.check.program import Checked
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.syntax.source import SourceFile


def analyze(
    source: SourceFile,
    *,
    search_path: Sequence[str] = (),
    read: Reader | None = None,
    retain: list[Checked] | None = None,
) -> list[Diagnostic]:
    """Every diagnostic found in one source file; the checked program is appended to
    `retain`, when given, instead of being freed on return."""
    checked = check(source, search_path=search_path, read=read)
    if retain is not None:
        retain.append(checked)
    return checked.diagnostics


def check(
    source: SourceFile, *, search_path: Sequence[str] = (), read: Reader | None = None
) -> Checked:
    """The checked program: diagnostics, types and symbols, for every consumer.

    The `.ss` files it imports are found next to it, then in each folder of
    `search_path`, then in the standard library; `read(path)` gives a file's text (None
    if it can't be read), by default from disk.
    """
    return check_source(source, search_path=search_path, read=read)
