"""The comments that may hold math are found from the `$` signs of the text, as a scan of
every comment's text finds them, after a fresh parse and after an edit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shapescript.check.checker import _comments_with_dollars
from shapescript.records import replace
from shapescript.syntax.parser import parse
from shapescript.syntax.source import SourceFile

PIECES = [
    "dim D = 4\n",
    "# a note\n",
    "# math $x^2$ here\n",
    "## doc with $a$\n",
    "## $$\n",
    "fn f(x: [n D]) -> [n D]:\n    y = x  # after $code$\n    return y\n",
    'extern fn g(x: [n D]) -> [n D] = "torch.$relu"\n',
    "    # indented $z$\n",
    "$\n",
    "model M:\n    ## the $w$\n    param w: [D] = zeros\n",
    "\n",
]


def by_scanning(parsed) -> list[int]:
    return [index for index, (_, c) in enumerate(parsed.comments) if "$" in c.text]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=14),
    st.integers(min_value=0, max_value=10_000),
    st.sampled_from(["", "$", "# $q$\n", "x", "\n"]),
)
def test_the_dollars_find_the_comments_a_scan_finds(pieces, where, inserted) -> None:
    text = "".join(pieces)
    first = parse(SourceFile.from_text("main.ss", text))
    assert _comments_with_dollars(first) == by_scanning(first)
    assert _comments_with_dollars(replace(first, chunks=None)) == by_scanning(first)
    # A notebook cell's parse keeps no chunks of the file (`cell_program`).
    assert _comments_with_dollars(replace(first, chunks={})) == by_scanning(first)
    at = where % (len(text) + 1)
    edited = parse(
        SourceFile.from_text("main.ss", text[:at] + inserted + text[at:]), previous=first
    )
    assert _comments_with_dollars(edited) == by_scanning(edited)
