"""The backward scans that find the word or callee before the cursor agree with the
patterns they replace (`[\\w?]*$` and `([^\\W\\d][\\w.]*)\\s*$`), which were quadratic in
the length of a run of word characters."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from shapescript_lsp.features.context import run_start
from shapescript_lsp.features.signature_help import call_site

WORD_BEFORE = re.compile(r"[\w?]*$")
CALLEE = re.compile(r"([^\W\d][\w.]*)\s*$")

#: Letters, digits (ASCII and not), marks, dots, question marks and every kind of space.
CHARACTERS = st.sampled_from(
    [*"ab_Z09.?|>, \t\n\r\x0b\x0c", "\u00e9", "\u0663", "\u00b2", "\u2028", "\u3000", "\u0301"]
)
TEXTS = st.text(CHARACTERS, max_size=40)


@settings(max_examples=500)
@given(TEXTS.map(lambda text: text.replace("\n", "")))
def test_the_word_before_the_cursor_is_the_patterns(text: str) -> None:
    # Completion scans the line before the cursor, which holds no line feed.
    assert text[run_start(text, len(text), "_?") :] == WORD_BEFORE.search(text).group()


@settings(max_examples=500)
@given(TEXTS)
def test_the_callee_before_a_paren_is_the_patterns(text: str) -> None:
    source = text + "(x"
    found = call_site(source, len(source))
    expected = CALLEE.search(source, 0, len(text))
    if expected is None:
        assert found is None
        return
    assert found is not None
    assert found.qualified == expected.group(1)
    assert found.piped == text[: expected.start()].rstrip().endswith("|>")
