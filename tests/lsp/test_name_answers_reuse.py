"""The outline and semantic tokens after edits, worked out from what the last answers
kept, equal a fresh analysis's answers; and an unchanged item isn't worked out again."""

from __future__ import annotations

import json

import pytest
from lsprotocol import types

from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features import semantic_tokens as tokens_module
from shapescript_lsp.features.semantic_tokens import TokenCache, encode, tokens_in
from shapescript_lsp.features.symbols import (
    OutlineCache,
    document_symbols,
    symbol_information,
)
from shapescript_lsp.protocol import Written, WrittenJSON, strict_converter, written_body
from tests.lsp.test_names import PROGRAM

PATH = "/tmp/lsp-tests/reuse.ss"
URI = "file:///tmp/lsp-tests/reuse.ss"
#: PROGRAM with characters outside ASCII (and outside UTF-16's first plane) before
#: tokens on their lines, so columns in UTF-16 units differ from offsets.
TEXT = PROGRAM.replace("## Features.", "## Features 😀 é.").replace(
    "    k = y * 2.0", "    k = y * 2.0\n    k𐐀 = k * 2.0\n    q = k𐐀 + k𐐀 + k"
)


def _edits(text: str) -> list[str]:
    """Each a small edit of the one before, as an editor sends them."""
    inside = text.index("k = y") + len("k = y")
    first = text[:inside] + " " + text[inside:]
    moved = "\n" + first
    added = moved + "\nfn more(v: [n D]) -> [n D] = v * 3.0\n"
    renamed = added.replace("dim H = 2", "dim Hh = 2").replace("H Dh", "Hh Dh")
    return [first, moved, added, renamed, text, first]


def _fresh(text: str):
    return check_source(SourceFile.from_text(PATH, text))


@pytest.mark.parametrize("read_only", [False, True])
def test_tokens_after_edits_equal_a_fresh_analysis(read_only: bool):
    checked = _fresh(TEXT)
    cache = TokenCache()
    assert cache.full(checked, read_only) == encode(checked, tokens_in(checked), read_only)
    for text in _edits(TEXT):
        checked = check_source(SourceFile.from_text(PATH, text), checked)
        fresh = _fresh(text)
        expected = encode(fresh, tokens_in(fresh), read_only)
        assert cache.full(checked, read_only) == expected
        assert json.loads(f"[{cache.text}]") == expected


def test_outline_after_edits_equals_a_fresh_analysis():
    converter = strict_converter()
    checked = _fresh(TEXT)
    cache = OutlineCache()
    for text in [TEXT, *_edits(TEXT)]:
        checked = check_source(SourceFile.from_text(PATH, text), checked)
        written = cache.written(document_symbols(checked, cache), converter.unstructure)
        fresh = document_symbols(_fresh(text))
        expected = [json.dumps(converter.unstructure(symbol)) for symbol in fresh]
        assert written == expected
        flat = cache.written_flat(document_symbols(checked, cache), URI, converter.unstructure)
        infos = symbol_information(fresh, URI)
        assert flat == [json.dumps(converter.unstructure(info)) for info in infos]


def test_an_edit_inside_a_function_works_out_that_function_alone(monkeypatch):
    checked = _fresh(TEXT)
    cache = TokenCache()
    cache.full(checked)
    worked_out = []
    item_tokens = tokens_module.item_tokens

    def counted(checked, item, declared):
        worked_out.append(item.item.name)
        return item_tokens(checked, item, declared)

    monkeypatch.setattr(tokens_module, "item_tokens", counted)
    edited = _edits(TEXT)[0]
    cache.full(check_source(SourceFile.from_text(PATH, edited), checked))
    assert worked_out == ["other"]


def test_written_answers_go_out_as_the_typed_answer_would():
    converter = strict_converter()
    symbols = document_symbols(_fresh(TEXT))
    cache = OutlineCache()
    written = Written(cache.written(symbols, converter.unstructure))
    typed = converter.unstructure(types.DocumentSymbolResponse(id=7, result=symbols))
    assert json.loads(written_body(7, written)) == typed
    assert written_body(7, written) == json.dumps(typed)
    assert converter.unstructure(types.DocumentSymbolResponse(id=7, result=written)) == typed


def test_written_tokens_go_out_as_the_typed_answer_would():
    converter = strict_converter()
    checked = _fresh(TEXT)
    cache = TokenCache()
    data = cache.full(checked)
    written = WrittenJSON(f'{{"data": [{cache.text}], "resultId": "3"}}')
    typed = converter.unstructure(
        types.SemanticTokensResponse(id=2, result=types.SemanticTokens(data=data, result_id="3"))
    )
    assert written_body(2, written) == json.dumps(typed)
