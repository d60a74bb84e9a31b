"""What the server keeps per document: nothing of a text no one holds any more, and its
per-line and per-token numbers in compact arrays rather than lists of Python ints."""

from __future__ import annotations

import gc
import weakref
from array import array

from shapescript_lsp.positions import line_index


def _text(number: int) -> str:
    """A text made at run time, so that no code object holds it."""
    return "".join(f"fn f{number}_{line}(x: [n D]) -> [n D] = x\n" for line in range(50))


def test_the_line_index_of_a_text_no_one_holds_is_let_go():
    old = _text(1)
    index = weakref.ref(line_index(old))
    del old
    gc.collect()
    kept = _text(2)
    line_index(kept)
    assert index() is None


def test_the_line_index_of_a_text_still_held_is_kept():
    held = _text(3)
    first = line_index(held)
    for number in range(4, 20):
        line_index(_text(number))
    assert line_index(held) is first


def test_line_starts_are_a_compact_array():
    starts = line_index(_text(30)).starts
    assert isinstance(starts, array)
    assert starts.itemsize <= 8
