"""What the server keeps per document: nothing of a text no one holds any more, and its
per-line and per-token numbers in compact arrays rather than lists of Python ints."""

from __future__ import annotations

import gc
import tracemalloc
import weakref
from array import array

import pytest

from benchmarks.generate import generate_program
from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.semantic_tokens import TokenCache, TokenResults, semantic_tokens
from shapescript_lsp.features.symbols import OutlineCache
from shapescript_lsp.positions import line_index
from shapescript_lsp.protocol import strict_converter

URI = "file:///tmp/lsp-tests/memory.ss"
#: What the token cache and the last full answer may keep per token: before they were
#: compacted, about 275 bytes.
BYTES_PER_TOKEN = 100
#: What the outline cache may keep per top-level item: before it kept JSON alone, about
#: 1,650 bytes.
BYTES_PER_OUTLINE_ITEM = 800


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


def _kept_bytes(make) -> tuple[object, int]:
    """What `make()` returns and the bytes it left allocated (held by what it returned)."""
    gc.collect()
    tracemalloc.start()
    try:
        made = make()
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return made, kept


@pytest.fixture(scope="module")
def generated():
    text = generate_program(600, 0)
    checked = check_source(SourceFile.from_text("/tmp/lsp-tests/memory.ss", text))
    line_index(checked.source.text)
    return checked


def test_the_kept_semantic_tokens_take_few_bytes_a_token(generated):
    """The cache and the last answer hold each token's numbers in arrays and its text
    once, not as tuples and lists of Python ints and two copies of the text."""

    def answer():
        cache, results = TokenCache(), TokenResults()
        results.full(URI, cache.answer(generated))
        return cache, results

    (cache, _), kept = _kept_bytes(answer)
    count = len(cache.last.data()) // 5
    assert count > 1000
    assert kept / count <= BYTES_PER_TOKEN


def test_the_kept_outline_takes_few_bytes_an_item(generated):
    """The outline cache holds each item's JSON text, not its `DocumentSymbol` too."""
    converter = strict_converter()
    # The converter's functions for document symbols are made once per process.
    OutlineCache().answer(generated, URI, True, converter.unstructure)

    def answer():
        cache = OutlineCache()
        cache.answer(generated, URI, True, converter.unstructure)
        return cache

    _, kept = _kept_bytes(answer)
    assert len(generated.items) > 100
    assert kept / len(generated.items) <= BYTES_PER_OUTLINE_ITEM


def test_semantic_tokens_make_no_declaration_facts(generated):
    """Most items have no declaration facts, which the checker makes only on first use; the
    token cache reads their references without making them."""
    checked = check_source(generated.source)
    without = [item for item in checked.items if item.made_declaration is None]
    assert without
    cache, results = TokenCache(), TokenResults()
    results.full(URI, cache.answer(checked))
    semantic_tokens(checked, 0, len(checked.source.text) // 2, cache=cache)
    assert [item for item in without if item.made_declaration is not None] == []
