"""Hovers work out a file's padding facts in full only where they show them: on a
function's name and inside a boolean selection. Everywhere else the facts a check for
diagnostics found (loops over batches, steps) answer, and the hover is the same as with
every fact worked out."""

from __future__ import annotations

import re

from shapescript.check.analyses.padding import complete_facts
from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.hover import HoverRenderer
from shapescript_lsp.features.padding_hover import wants_complete_facts
from tests.lsp.test_padding_hovers import PROGRAM

SELECTIONS = (
    "dim D = 3\n"
    "fn running(v: [k D]) -> [k D] = cumsum(v, over=k)\n"
    "fn kept(x: [n D]) -> [] = sum(x[sum(x, over=D) > 0.0])\n"
    "fn compact(x: [n D]) -> [] = sum(running(x[sum(x, over=D) > 0.0]))\n"
)


def _for_diagnostics(text: str):
    """The file checked as the server checks it: padding facts left for later."""
    return check_source(SourceFile.from_text("/tmp/padding.ss", text), padding_later=True)


def _hover_text(checked, offset: int) -> str | None:
    answer = HoverRenderer(False).hover(checked, offset)
    return None if answer is None else answer.contents.value


def test_a_hover_on_a_value_leaves_the_facts_for_later():
    checked = _for_diagnostics(PROGRAM)
    offset = PROGRAM.index("l, g = value_and_grad") + 7
    assert _hover_text(checked, offset)
    assert checked.padding.complete_later is not None
    assert not wants_complete_facts(checked, offset)


def test_only_function_names_and_selections_want_every_fact():
    checked = _for_diagnostics(SELECTIONS)
    assert wants_complete_facts(checked, SELECTIONS.index("fn kept") + 4)
    assert wants_complete_facts(checked, SELECTIONS.index("running(x[") + 2)
    assert wants_complete_facts(checked, SELECTIONS.index("x[sum") + 3)
    assert not wants_complete_facts(checked, SELECTIONS.index("v: [k D]"))
    assert not wants_complete_facts(checked, SELECTIONS.index("dim D") + 4)


def test_every_hover_is_the_one_with_every_fact_worked_out():
    for text in (PROGRAM, SELECTIONS):
        lazy = _for_diagnostics(text)
        full = _for_diagnostics(text)
        complete_facts(full)
        for word in re.finditer(r"\w+|->|\[", text):
            offset = word.start()
            if wants_complete_facts(lazy, offset):
                complete_facts(lazy)
            assert _hover_text(lazy, offset) == _hover_text(full, offset), (
                f"{word.group()!r} at {offset}"
            )
            lazy = _for_diagnostics(text)
