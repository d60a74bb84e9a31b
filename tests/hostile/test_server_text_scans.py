"""The server's own scans of a document's text stay linear on hostile layouts: runs of
blank lines, where a pattern whose whitespace may cross line ends would try every line
start against all the lines after it, and a name of 100,000 letters, where a pattern
anchored at the cursor would try every letter as the word's start."""

from __future__ import annotations

import time

from shapescript.analysis import check
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.completion import Completer
from shapescript_lsp.features.signature_help import call_site
from shapescript_lsp.pictures.examples import small_file

#: Seconds one case may take: generous, since this machine is shared.
TIME_LIMIT = 30.0
BLANK_LINES = 50_000
LONG_NAME = "x" * 100_000


def test_making_dims_small_for_a_picture_is_linear_in_blank_lines() -> None:
    text = (
        "dim D = 768\r\nfn g() -> int = 1\n" + "\n" * BLANK_LINES + "fn f(x: [n D]) -> [n D] = x\n"
    )
    checked = check(SourceFile.from_text("blank.ss", text))
    assert not checked.errors
    started = time.monotonic()
    small = small_file(checked)
    assert time.monotonic() - started < TIME_LIMIT
    assert small is not None
    assert small.source.text.startswith("dim D = 6\r\n")
    assert small.dim_values["D"] == 6


def test_signature_help_after_a_long_name_is_linear_in_its_length() -> None:
    text = f"fn g(a: int) -> int = a\nfn f(x: int) -> int = {LONG_NAME} + g("
    started = time.monotonic()
    site = call_site(text, len(text))
    assert time.monotonic() - started < TIME_LIMIT
    assert site is not None and site.callee == "g"


def test_completion_after_a_long_name_is_linear_in_its_length() -> None:
    text = f"fn f(x: int) -> int = {LONG_NAME} + x\n"
    checked = check(SourceFile.from_text("long.ss", text))
    started = time.monotonic()
    completed = Completer(snippets=True).complete(checked, text, text.rindex("x"))
    assert time.monotonic() - started < TIME_LIMIT
    assert "x" in {item.label for item in completed.items}
