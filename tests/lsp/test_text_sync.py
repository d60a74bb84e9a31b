"""The server's text is the editor's: random edits over texts with every line-like character.

The reference below applies edits the way LSP defines them, independently of the server:
on UTF-16 code units, with lines ended only by `\\n`, `\\r\\n` and `\\r`.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from shapescript_lsp.documents import Document
from shapescript_lsp.positions import LineIndex, line_index, line_starts
from shapescript_lsp.text_edits import Change
from tests.lsp.raw_client import RawServer

#: Everything Python's `str.splitlines` breaks at, and the three that LSP does.
LINE_LIKE = ["\n", "\r", "\r\n", "\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
OTHER = ["a", "b", " ", "é", "ℝ", "😀", "𝔼x", "\t"]
pieces = st.lists(st.sampled_from(LINE_LIKE + OTHER), max_size=30).map("".join)


def units(text: str) -> list[int]:
    return list(array("H", text.encode("utf-16-le")))


def from_units(code_units: list[int]) -> str:
    return array("H", code_units).tobytes().decode("utf-16-le")


def reference_lines(code_units: list[int]) -> list[tuple[int, int]]:
    """Each line's start and end (before its line break), in code units."""
    lines = []
    start = index = 0
    while index < len(code_units):
        unit = code_units[index]
        if unit in (0x0A, 0x0D):
            end = index
            index += 2 if unit == 0x0D and code_units[index + 1 : index + 2] == [0x0A] else 1
            lines.append((start, end))
            start = index
        else:
            index += 1
    lines.append((start, len(code_units)))
    return lines


def reference_offset(code_units: list[int], line: int, character: int) -> int:
    lines = reference_lines(code_units)
    if line >= len(lines):
        return len(code_units)
    start, end = lines[line]
    return start + min(character, end - start)


def reference_edit(text: str, start: tuple[int, int], end: tuple[int, int], new: str) -> str:
    code_units = units(text)
    first = reference_offset(code_units, *start)
    last = max(first, reference_offset(code_units, *end))
    return from_units(code_units[:first] + units(new) + code_units[last:])


@st.composite
def positions(draw, text: str) -> tuple[int, int]:
    """A position as an editor may send it: on a line or past its end, never inside a pair."""
    code_units = units(text)
    lines = reference_lines(code_units)
    line = draw(st.integers(0, len(lines)))
    if line == len(lines):
        return line, draw(st.integers(0, 3))
    start, end = lines[line]
    character = draw(st.integers(0, end - start + 2))
    if 0 < character < end - start and 0xD800 <= code_units[start + character - 1] <= 0xDBFF:
        character += 1
    return line, character


@st.composite
def edits(draw, text: str) -> tuple[tuple[int, int], tuple[int, int], str] | str:
    """A range edit of `text`, or now and then a whole new text."""
    if draw(st.integers(0, 19)) == 0:
        return draw(pieces)
    start, end = draw(positions(text)), draw(positions(text))
    code_units = units(text)
    if reference_offset(code_units, *start) > reference_offset(code_units, *end):
        start, end = end, start
    return start, end, draw(pieces)


def apply_reference(text: str, edit) -> str:
    return edit if isinstance(edit, str) else reference_edit(text, *edit)


def change(edit) -> Change:
    if isinstance(edit, str):
        return types.TextDocumentContentChangeWholeDocument(text=edit)
    (start_line, start_char), (end_line, end_char), new = edit
    return types.TextDocumentContentChangePartial(
        range=types.Range(
            start=types.Position(line=start_line, character=start_char),
            end=types.Position(line=end_line, character=end_char),
        ),
        text=new,
    )


def change_json(edit) -> dict:
    if isinstance(edit, str):
        return {"text": edit}
    (start_line, start_char), (end_line, end_char), new = edit
    return {
        "range": {
            "start": {"line": start_line, "character": start_char},
            "end": {"line": end_line, "character": end_char},
        },
        "text": new,
    }


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_document_store_applies_edits_as_the_reference_does(data):
    text = data.draw(pieces, "text")
    document = Document("file:///t.ss", text, 1)
    for step in range(data.draw(st.integers(1, 12), "edits")):
        batch = [data.draw(edits(text), f"edit {step}")]
        if data.draw(st.booleans()):
            batch.append(data.draw(edits(apply_reference(text, batch[0])), f"then {step}"))
        for edit in batch:
            text = apply_reference(text, edit)
        document.edit([change(edit) for edit in batch], step + 2)
        assert document.text == text
        assert line_index(document.text).starts == line_starts(text)


@settings(max_examples=300, deadline=None)
@given(pieces)
def test_positions_and_offsets_agree_with_the_reference(text):
    index = LineIndex(text)
    code_units = units(text)
    lines = reference_lines(code_units)
    assert len(index.starts) == len(lines)
    offset_units = 0
    for offset in range(len(text) + 1):
        position = index.position(offset)
        line = max(n for n, (start, _) in enumerate(lines) if start <= offset_units)
        start, end = lines[line]
        assert (position.line, position.character) == (line, min(offset_units, end) - start)
        if offset_units <= end:
            assert index.offset(position.line, position.character) == offset
        if offset < len(text):
            offset_units += 2 if ord(text[offset]) > 0xFFFF else 1


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[RawServer]:
    client = RawServer()
    client.initialize(tmp_path_factory.mktemp("sync"))
    yield client
    client.close()


_documents = itertools.count()


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_the_server_text_follows_the_client_over_the_protocol(server, data):
    uri = f"file:///tmp/sync/doc{next(_documents)}.ss"
    text = data.draw(pieces, "text")
    server.open(uri, text)
    for version in range(2, data.draw(st.integers(2, 25), "edits")):
        edit = data.draw(edits(text), f"edit {version}")
        text = apply_reference(text, edit)
        document = {"uri": uri, "version": version}
        server.notify(
            "textDocument/didChange",
            {"textDocument": document, "contentChanges": [change_json(edit)]},
        )
        if version % 4 == 0:
            answer = server.request("shapescript/documentText", {"uri": uri})
            assert answer["result"]["text"] == text
    answer = server.request("shapescript/documentText", {"uri": uri})
    assert answer["result"]["text"] == text
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


@pytest.mark.parametrize(
    ("text", "edit", "expected"),
    [
        ("a\rb", ((1, 0), (1, 0), "\n"), "a\r\nb"),
        ("a\r\rb", ((1, 0), (1, 0), "\nc"), "a\r\nc\rb"),
        ("x\ra\rb", ((2, 0), (2, 0), "\n"), "x\ra\r\nb"),
        ("a\r\nb", ((0, 1), (1, 0), "\r"), "a\rb"),
    ],
)
def test_an_edit_next_to_a_carriage_return_joins_or_splits_lines(text, edit, expected):
    document = Document("file:///t.ss", text, 1)
    document.edit([change(edit)], 2)
    assert document.text == expected == reference_edit(text, *edit)
    assert line_index(document.text).starts == line_starts(expected)
