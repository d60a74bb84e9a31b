"""Semantic tokens and the outline as a big document needs them: worked out once per
analysis, a range answered from the items it reaches, `full/delta` edits that turn the
last answer into the new one. Over stdio on a small document, the answers are the same
as the whole file's: a range is the slice of the full tokens, a delta applied to the last
answer gives the full one, and asking again answers the same."""

from __future__ import annotations

import gc
import json
import random
from types import FrameType

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from benchmarks.big_files import typed_edit_point
from benchmarks.generate import generate_program
from shapescript.check.checker import check_source
from shapescript.check.declarations.placed_symbols import PlacedSymbols
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.semantic_tokens import (
    TokenCache,
    TokenResults,
    encode,
    semantic_tokens,
    tokens_in,
)
from shapescript_lsp.features.symbols import OutlineCache, document_symbols, symbol_information
from shapescript_lsp.protocol import strict_converter
from tests.lsp.test_features import open_document, wait_for_diagnostics
from tests.lsp.test_name_answers_reuse import PATH, TEXT, URI, _edits
from tests.lsp.test_names import PROGRAM
from tests.lsp.test_names import client as client  # the server, with its capabilities


class _CountedSymbols(dict):
    """A module's symbols that count how often they are gone over."""

    walks = 0

    def values(self):
        _CountedSymbols.walks += 1
        return super().values()

    def items(self):
        _CountedSymbols.walks += 1
        return super().items()


def _checked(text: str, previous=None):
    return check_source(SourceFile.from_text(PATH, text), previous)


def test_requests_on_one_analysis_go_over_the_module_s_names_once():
    checked = _checked(TEXT)
    checked.module_symbols = _CountedSymbols(checked.module_symbols)
    cache = TokenCache()
    middle = len(TEXT) // 2
    semantic_tokens(checked, middle, middle + 200, cache=cache)
    walked = _CountedSymbols.walks
    for start in range(0, len(TEXT), 97):
        semantic_tokens(checked, start, start + 300, cache=cache)
    semantic_tokens(checked, cache=cache)
    assert _CountedSymbols.walks == walked


def test_the_same_analysis_gets_the_same_full_answer():
    checked = _checked(TEXT)
    cache = TokenCache()
    first = cache.answer(checked)
    assert cache.answer(checked) is first
    assert cache.answer(checked, read_only=True) is not first
    assert first.data() == encode(checked, tokens_in(checked))


def _applied(data: list[int], delta: types.SemanticTokensDelta) -> list[int]:
    data = list(data)
    for edit in sorted(delta.edits, key=lambda edit: edit.start, reverse=True):
        data[edit.start : edit.start + edit.delete_count] = edit.data or []
    return data


def test_deltas_applied_to_the_last_answer_give_the_new_one():
    checked = _checked(TEXT)
    cache = TokenCache()
    results = TokenResults()
    results.full("file:///a.ss", cache.answer(checked))
    data = cache.answer(checked).data()
    result_id = results.last["file:///a.ss"][0]
    for text in _edits(TEXT):
        checked = _checked(text, checked)
        delta = results.delta("file:///a.ss", result_id, cache.answer(checked))
        assert isinstance(delta, types.SemanticTokensDelta)
        fresh = _checked(text)
        data = _applied(data, delta)
        assert data == encode(fresh, tokens_in(fresh))
        result_id = delta.result_id


def test_a_delta_after_an_edit_inside_a_function_sends_that_function_s_numbers():
    checked = _checked(TEXT)
    cache = TokenCache()
    results = TokenResults()
    results.full("file:///a.ss", cache.answer(checked))
    whole = len(cache.answer(checked).data())
    result_id = results.last["file:///a.ss"][0]
    checked = _checked(_edits(TEXT)[0], checked)
    delta = results.delta("file:///a.ss", result_id, cache.answer(checked))
    assert len(delta.edits) == 1
    assert 0 < len(delta.edits[0].data) < whole // 4
    again = results.delta("file:///a.ss", delta.result_id, cache.answer(checked))
    assert again.edits == []


# ---------------------------------------------------------------------- over stdio


def _absolute(data: list[int]) -> list[tuple[int, int, int, int, int]]:
    """LSP's relative numbers as (line, column, length, type, modifiers) tokens."""
    found = []
    line = column = 0
    for index in range(0, len(data), 5):
        delta_line, delta_column, length, kind, modifiers = data[index : index + 5]
        line += delta_line
        column = column + delta_column if delta_line == 0 else delta_column
        found.append((line, column, length, kind, modifiers))
    return found


@pytest.mark.asyncio
async def test_the_server_advertises_range_and_delta(client: LanguageClient):
    provider = client.server_capabilities.semantic_tokens_provider
    assert provider.range is True
    assert provider.full == types.SemanticTokensFullDelta(delta=True)


@pytest.mark.asyncio
async def test_range_tokens_are_the_slice_of_the_full_tokens(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "sliced.ss")
    document = types.TextDocumentIdentifier(uri=uri)
    full = _absolute(
        (
            await client.text_document_semantic_tokens_full_async(
                types.SemanticTokensParams(text_document=document)
            )
        ).data
    )
    lines = PROGRAM.count("\n")
    for first, last in ((0, 3), (5, 12), (20, 21), (14, lines + 5), (0, lines + 1)):
        answer = await client.text_document_semantic_tokens_range_async(
            types.SemanticTokensRangeParams(
                text_document=document,
                range=types.Range(
                    start=types.Position(line=first, character=0),
                    end=types.Position(line=last, character=0),
                ),
            )
        )
        expected = [token for token in full if first <= token[0] < last]
        assert _absolute(answer.data) == expected, (first, last)


@pytest.mark.asyncio
async def test_deltas_over_several_edits_give_the_full_tokens(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "deltas.ss")
    document = types.TextDocumentIdentifier(uri=uri)
    first = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=document)
    )
    data, result_id = list(first.data), first.result_id
    text = PROGRAM
    for version, (needle, insert) in enumerate(
        (("    k = y", "    j = y + 1.0\n"), ("fn heads", "\n"), ("dim H", "dim E = 3\n")),
        start=2,
    ):
        offset = text.index(needle)
        line = text.count("\n", 0, offset)
        at = types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))
        text = text[:offset] + insert + text[offset:]
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=at, end=at), text=insert
                    )
                ],
            )
        )
        await wait_for_diagnostics(client, uri, version)
        delta = await client.text_document_semantic_tokens_full_delta_async(
            types.SemanticTokensDeltaParams(text_document=document, previous_result_id=result_id)
        )
        assert isinstance(delta, types.SemanticTokensDelta)
        data, result_id = _applied(data, delta), delta.result_id
        fresh_uri = await open_document(client, text, f"fresh{version}.ss")
        fresh = await client.text_document_semantic_tokens_full_async(
            types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=fresh_uri))
        )
        assert data == list(fresh.data), version


@pytest.mark.asyncio
async def test_asking_again_answers_the_same(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "again.ss")
    document = types.TextDocumentIdentifier(uri=uri)
    symbols = [
        await client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=document)
        )
        for _ in range(2)
    ]
    assert symbols[0] and symbols[0] == symbols[1]
    tokens = [
        await client.text_document_semantic_tokens_full_async(
            types.SemanticTokensParams(text_document=document)
        )
        for _ in range(2)
    ]
    assert tokens[0].data and tokens[0].data == tokens[1].data
    assert tokens[0].result_id != tokens[1].result_id


@pytest.mark.parametrize("hierarchical", [True, False])
def test_the_outline_of_one_analysis_is_written_once(hierarchical: bool):
    converter = strict_converter()
    checked = _checked(TEXT)
    cache = OutlineCache()
    first = cache.answer(checked, URI, hierarchical, converter.unstructure)
    assert cache.answer(checked, URI, hierarchical, converter.unstructure) is first
    fresh = document_symbols(_checked(TEXT))
    written = (
        [json.dumps(converter.unstructure(symbol)) for symbol in fresh]
        if hierarchical
        else [json.dumps(converter.unstructure(info)) for info in symbol_information(fresh, URI)]
    )
    assert first == written
    edited = _checked(_edits(TEXT)[0], checked)
    assert cache.answer(edited, URI, hierarchical, converter.unstructure) is not first


def test_answers_over_random_edits_equal_a_fresh_analysis_s():
    generator = random.Random(30)
    text = generate_program(80, 0)
    checked = _checked(text)
    cache = TokenCache()
    results = TokenResults()
    results.full("file:///r.ss", cache.answer(checked))
    data, result_id = cache.answer(checked).data(), results.last["file:///r.ss"][0]
    for _ in range(40):
        at = generator.randrange(len(text))
        if generator.random() < 0.3:
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + generator.choice((" ", "x", "\n", "\n\n", "# note\n")) + text[at:]
        checked = _checked(text, checked)
        answer = cache.answer(checked)
        fresh = _checked(text)
        expected = encode(fresh, tokens_in(fresh))
        assert answer.data() == expected
        assert json.loads(f"[{answer.text}]") == expected
        delta = results.delta("file:///r.ss", result_id, answer)
        data, result_id = _applied(data, delta), delta.result_id
        assert data == expected


def test_an_edit_inside_a_function_looks_at_that_function_and_the_next(monkeypatch):
    text = generate_program(80, 0)
    checked = _checked(text)
    cache = TokenCache()
    cache.answer(checked)
    looked_at = []
    add = TokenCache._add

    def counted(self, checked, item, *rest):
        looked_at.append(item.item.name)
        return add(self, checked, item, *rest)

    monkeypatch.setattr(TokenCache, "_add", counted)
    at = typed_edit_point(text)
    edited = _checked(text[:at] + "x" + text[at:], checked)
    cache.answer(edited)
    assert 1 <= len(looked_at) <= 2, looked_at


@pytest.mark.parametrize("hierarchical", [True, False])
def test_outlines_over_random_edits_equal_a_fresh_analysis_s(hierarchical: bool):
    converter = strict_converter()
    generator = random.Random(32)
    text = generate_program(80, 0)
    checked = _checked(text)
    cache = OutlineCache()
    cache.answer(checked, URI, hierarchical, converter.unstructure)
    for _ in range(40):
        at = generator.randrange(len(text))
        if generator.random() < 0.3:
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + generator.choice((" ", "x", "\n", "# note\n", "1")) + text[at:]
        checked = _checked(text, checked)
        written = cache.answer(checked, URI, hierarchical, converter.unstructure)
        fresh = document_symbols(_checked(text))
        expected = (
            [json.dumps(converter.unstructure(symbol)) for symbol in fresh]
            if hierarchical
            else [
                json.dumps(converter.unstructure(info)) for info in symbol_information(fresh, URI)
            ]
        )
        assert written == expected


def _written_chunks(monkeypatch) -> list[str]:
    """The names of the outline items written from now on, in order."""
    looked_at: list[str] = []
    written_chunk = OutlineCache.written_chunk

    def counted(self, node, key):
        looked_at.append(getattr(node, "name", type(node).__name__))
        return written_chunk(self, node, key)

    monkeypatch.setattr(OutlineCache, "written_chunk", counted)
    return looked_at


def test_an_outline_after_an_edit_inside_a_function_looks_at_few_items(monkeypatch):
    converter = strict_converter()
    text = generate_program(80, 0)
    checked = _checked(text)
    cache = OutlineCache()
    cache.answer(checked, URI, True, converter.unstructure)
    looked_at = _written_chunks(monkeypatch)
    at = typed_edit_point(text)
    cache.answer(_checked(text[:at] + "x" + text[at:], checked), URI, True, converter.unstructure)
    assert 1 <= len(looked_at) <= 2, looked_at


def test_the_kept_answers_keep_no_analysis_alive():
    converter = strict_converter()
    checked = _checked(TEXT)
    cache, results, outline = TokenCache(), TokenResults(), OutlineCache()
    results.full(URI, cache.answer(checked))
    semantic_tokens(checked, 0, 200, cache=cache)
    outline.answer(checked, URI, True, converter.unstructure)
    holders = [
        holder
        for holder in gc.get_referrers(checked)
        if not isinstance(holder, FrameType) and holder is not locals()
    ]
    assert holders == []


@pytest.mark.parametrize("hierarchical", [True, False])
@pytest.mark.parametrize("typed", ["\n    y = x", "\n\n", "\n# a note\n"])
def test_an_outline_after_an_edit_that_adds_lines_looks_at_few_items(
    monkeypatch, hierarchical: bool, typed: str
):
    # The items after the edit are the same, a line or two lower: their text is moved,
    # not written again, and the answer is the one a fresh outline gives.
    converter = strict_converter()
    text = generate_program(80, 0)
    checked = _checked(text)
    cache = OutlineCache()
    cache.answer(checked, URI, hierarchical, converter.unstructure)
    looked_at = _written_chunks(monkeypatch)
    at = text.index("\n", typed_edit_point(text))
    edited = text[:at] + typed + text[at:]
    after = _checked(edited, checked)
    answer = cache.answer(after, URI, hierarchical, converter.unstructure)
    assert 1 <= len(looked_at) <= 2, looked_at
    assert answer == OutlineCache().answer(after, URI, hierarchical, converter.unstructure)
    undone = _checked(text, after)
    assert cache.answer(undone, URI, hierarchical, converter.unstructure) == OutlineCache().answer(
        undone, URI, hierarchical, converter.unstructure
    )


def test_tokens_after_an_edit_move_only_the_module_symbols_they_read(monkeypatch):
    text = generate_program(80, 0)
    checked = _checked(text)
    cache = TokenCache()
    cache.answer(checked)
    at = typed_edit_point(text)
    edited_text = text[:at] + "x" + text[at:]
    edited = _checked(edited_text, checked)
    assert isinstance(edited.module_symbols, PlacedSymbols)
    moved_all = []
    whole = PlacedSymbols._whole

    def counted(self):
        moved_all.append(self)
        return whole(self)

    monkeypatch.setattr(PlacedSymbols, "_whole", counted)
    answer = cache.answer(edited)
    assert moved_all == []
    fresh = _checked(edited_text)
    assert answer.data() == encode(fresh, tokens_in(fresh))
