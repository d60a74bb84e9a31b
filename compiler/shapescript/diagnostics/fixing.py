"""Applying a diagnostic's fixes to a text, and keeping only those that really fix it."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from shapescript.diagnostics.diagnostic import Diagnostic, Edit, Fix


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """The text with every edit made; the edits' spans are in the original text and must
    not overlap."""
    out = []
    at = 0
    for edit in sorted(edits, key=lambda e: (e.span.start, e.span.end)):
        if edit.span.start < at:
            raise ValueError(f"overlapping edits at {edit.span.start}")
        out.append(text[at : edit.span.start])
        out.append(edit.text)
        at = edit.span.end
    out.append(text[at:])
    return "".join(out)


def fixes_it(
    text: str,
    diagnostic: Diagnostic,
    fix: Fix,
    before: list[Diagnostic],
    check: Callable[[str], list[Diagnostic]],
) -> bool:
    """Whether the fixed text reports the diagnostic's code fewer times than `before`
    (the text's diagnostics) and has no more syntax errors than it had."""
    after = check(apply_edits(text, fix.edits))
    code = diagnostic.code
    if sum(d.code == code for d in after) >= sum(d.code == code for d in before):
        return False
    return _syntax_errors(after) <= _syntax_errors(before)


def _syntax_errors(diagnostics: list[Diagnostic]) -> int:
    """Errors of lexing, layout and parsing (areas 01 and 02)."""
    return sum(d.is_error and d.code[1:3] in ("01", "02") for d in diagnostics)


def checked_fixes(
    text: str,
    diagnostic: Diagnostic,
    before: list[Diagnostic],
    check: Callable[[str], list[Diagnostic]],
) -> list[Fix]:
    """The diagnostic's fixes that pass `fixes_it`."""
    return [fix for fix in diagnostic.fixes if fixes_it(text, diagnostic, fix, before, check)]
