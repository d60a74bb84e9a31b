"""Errors escaping a program, drawn as `shapescript check` draws diagnostics.

A failed run-time check is placed at its `.ss` line, with the call that ran the failing
function beside it, taken from the traceback.
"""

from __future__ import annotations

import linecache
import re
import types
from dataclasses import dataclass

from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.diagnostics.render_text import render_diagnostic
from shapescript.rt.errors import CheckFailure, ShapeScriptError
from shapescript.syntax.source import SourceFile, Span

#: A run-time error has no code of its own; "E" gives it an error's severity, and its
#: heading is the exception's class name.
_ERROR = "E"
_WORD = re.compile(r"[A-Za-z0-9_]+")


@dataclass(frozen=True, slots=True)
class Place:
    """One traceback entry: a file, a function, a line and the columns of what ran."""

    path: str
    function: str
    line: int
    column: int | None
    end_line: int | None
    end_column: int | None


def _column(text: str, byte_offset: int | None) -> int | None:
    """A UTF-8 byte offset in a line as a 1-based character column."""
    if byte_offset is None:
        return None
    return len(text.encode()[:byte_offset].decode(errors="ignore")) + 1


def places(tb: types.TracebackType | None) -> list[Place]:
    """The traceback's entries, outermost first, with the columns Python 3.11 records."""
    found: list[Place] = []
    linecache.checkcache()
    while tb is not None:
        code = tb.tb_frame.f_code
        positions = list(code.co_positions())
        index = tb.tb_lasti // 2
        line, end_line, column, end_column = (
            positions[index] if 0 <= index < len(positions) else (tb.tb_lineno, None, None, None)
        )
        line = line or tb.tb_lineno
        text = linecache.getline(code.co_filename, line)
        end_text = linecache.getline(code.co_filename, end_line) if end_line else text
        found.append(
            Place(
                code.co_filename,
                code.co_name,
                line,
                _column(text, column),
                end_line,
                _column(end_text, end_column),
            )
        )
        tb = tb.tb_next
    return found


def _source(path: str) -> SourceFile | None:
    lines = linecache.getlines(path)
    return SourceFile.from_text(path, "".join(lines)) if lines else None


def _span(source: SourceFile, line: int, column: int, end_line=None, end_column=None) -> Span:
    """The span at a line and column: to its end if given (the rest of the line when that end
    is no further on), else the word there (or one character)."""
    start = source.offset(line, column)
    if end_line is not None and end_column is not None:
        end = source.offset(end_line, end_column)
        if end > start:
            return Span(start, end)
        rest = source.line_text(line)[column - 1 :].rstrip()
        if rest:
            return Span(start, start + len(rest))
    word = _WORD.match(source.text, start)
    return Span(start, word.end() if word else start + 1)


def _failing(error: CheckFailure, entries: list[Place]) -> int | None:
    """The index of the failing function's entry: its name in its `.ss` file, else the last one."""
    path = error.path
    if path is None:
        candidates = [i for i, place in enumerate(entries) if place.path.endswith(".ss")]
    else:
        candidates = [i for i, place in enumerate(entries) if place.path == path]
    named = [i for i in candidates if entries[i].function == error.function]
    chosen = named or candidates
    return chosen[-1] if chosen else None


def _caller(entries: list[Place], failing: int | None, skip: tuple[str, ...]) -> Place | None:
    """The entry that called the failing one, past the import machinery and the runner."""
    for place in reversed(entries[:failing] if failing else []):
        if not place.path.startswith(skip):
            return place
    return None


def _call_label(error: CheckFailure) -> str:
    if error.parameter is not None:
        return f"the argument for `{error.parameter}` is given in this call"
    return "called here"


def _primary_label(error: CheckFailure, function: str | None) -> str:
    if function == "<module>":
        return "when the module is imported"
    if error.parameter is not None and function:
        return f"parameter `{error.parameter}` of fn {function}"
    return f"in fn {function}" if function else ""


def render_failure(
    error: CheckFailure,
    tb: types.TracebackType | None,
    *,
    skip: tuple[str, ...] = (),
    color: bool = False,
) -> str:
    """A failed check as a diagnostic; `skip` are path prefixes of the runner's own frames."""
    entries = places(tb)
    failing = _failing(error, entries)
    path, line, column = error.path, error.line, error.column
    function = error.function
    end_line = end_column = None
    if path is None and failing is not None:
        place = entries[failing]
        path, line, column, function = place.path, place.line, place.column, place.function
        end_line, end_column = place.end_line, place.end_column
    title = type(error).__name__
    source = _source(path) if path is not None else None
    if source is None or line is None:
        return f"{title}: {error}"
    span = _span(source, line, column or 1, end_line, end_column)
    secondary: list[Label] = []
    notes: list[str] = []
    caller = _caller(entries, failing, skip)
    if caller is not None:
        if caller.path == path and caller.column is not None:
            where = _span(source, caller.line, caller.column, caller.end_line, caller.end_column)
            secondary.append(Label(where, _call_label(error)))
        else:
            code = linecache.getline(caller.path, caller.line).strip()
            how = "imported" if function == "<module>" else "called"
            called = f"{how} from {caller.path}:{caller.line}"
            notes.append(f"{called}: {code}" if code else called)
            if error.parameter is not None:
                notes.append(f"the argument for `{error.parameter}` is given in that call")
    diag = Diagnostic(
        _ERROR,
        error.message,
        Label(span, _primary_label(error, function)),
        secondary,
        notes,
        path=path,
    )
    return render_diagnostic(diag, source, color=color, heading=title)


def render_error(
    error: BaseException, *, skip: tuple[str, ...] = (), color: bool = False
) -> str | None:
    """A ShapeScript error as diagnostics, or None for any other exception."""
    if isinstance(error, ShapeScriptError):
        return error.render(color=color)
    if isinstance(error, CheckFailure):
        return render_failure(error, error.__traceback__, skip=skip, color=color)
    return None
