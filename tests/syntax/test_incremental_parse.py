"""Re-parsing an edited file takes the chunks before and after the edit from the previous
parse by place, and gives exactly what a fresh parse gives."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generate import generate_program
from shapescript.syntax import parser
from shapescript.syntax.parser import ParseResult, parse, split_chunks, split_chunks_after
from shapescript.syntax.source import SourceFile

PROGRAM = generate_program(120, 3)

#: What an edit inserts: item starts, comments above items, brackets, blank lines,
#: indentation, a notebook magic line, and text that turns a line into a chunk start.
SNIPPETS = [
    "",
    "x",
    " ",
    "\n",
    "\n\n",
    "  ",
    "#",
    "# note\n",
    "## doc\n",
    "fn ",
    "\nfn g() -> int = 1\n",
    "(",
    ")",
    "[",
    "else",
    "model M:\n",
    "%%shapescript\n",
]


def parsed(text: str, previous: ParseResult | None = None, notebook: bool = False):
    return parse(SourceFile("main.ss", text), previous=previous, notebook=notebook)


def same_parse(incremental: ParseResult, fresh: ParseResult) -> None:
    assert incremental.module.items == fresh.module.items
    assert incremental.module.bases == fresh.module.bases
    assert incremental.comments == fresh.comments
    assert [(d.code, d.span, d.message) for d in incremental.diagnostics] == [
        (d.code, d.span, d.message) for d in fresh.diagnostics
    ]
    assert incremental.chunks == fresh.chunks


#: Pieces of text around chunk starts: line breaks of each kind, comments, `else`.
SPLIT_PIECES = ["\n", "#", "a", "else", " ", "1", "fn", "#c\n", "\n\n", "\r\n", "\r", "é"]


def reference_split(text: str) -> list[int]:
    """The chunk starts as first written: each item start, moved up over the comment
    lines directly above it, one line at a time."""
    starts = [0]
    for match in re.finditer(r"\n(?!else\b)[^\W\d]", text):
        start = match.start() + 1
        while start - 1 > 0:
            line_start = text.rfind("\n", 0, start - 1) + 1
            if text.startswith("#", line_start) and line_start >= starts[-1]:
                start = line_start
            else:
                break
        if start > starts[-1]:
            starts.append(start)
    return starts


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(SPLIT_PIECES)))
def test_chunks_start_where_the_reference_says(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert split_chunks(text) == reference_split(text)


def test_a_long_comment_block_is_one_chunk_with_its_item() -> None:
    text = "fn f() -> int = 1\n" + "# line\n" * 20_000 + "fn g() -> int = 2\n"
    assert split_chunks(text) == [0, len("fn f() -> int = 1\n")]
    text = "fn f() -> int = 1\n" + "# line\n" * 20_000 + "  indented\n"
    assert split_chunks(text) == [0]


def test_an_edit_reuses_the_items_before_and_after_it() -> None:
    first = parsed(PROGRAM)
    starts = split_chunks(PROGRAM)
    at = starts[len(starts) // 2]
    edited = PROGRAM[:at] + "fn inserted() -> int = 1\n\n" + PROGRAM[at:]
    second = parsed(edited, first)
    same_parse(second, parsed(edited))
    old = list(zip(first.module.items, first.module.bases, strict=True))
    before = [item for item, base in old if base < at]
    after = [item for item, base in old if base >= at]
    new = second.module.items
    assert len(new) == len(before) + 1 + len(after)
    assert all(a is b for a, b in zip(before, new[: len(before)], strict=True))
    assert new[len(before)].name == "inserted"
    assert all(a is b for a, b in zip(after, new[len(before) + 1 :], strict=True))


def test_a_moved_chunk_is_reused_by_its_text() -> None:
    first = parsed(PROGRAM)
    starts = split_chunks(PROGRAM)
    index = len(starts) // 3
    start, end = starts[index], starts[index + 1]
    block = PROGRAM[start:end]
    moved = PROGRAM[:start] + PROGRAM[end:]
    target = starts[2 * len(starts) // 3] - len(block)
    moved = moved[:target] + block + moved[target:]
    second = parsed(moved, first)
    same_parse(second, parsed(moved))
    old = first.module.items[first.chunks.first_items[index]]
    assert any(item is old for item in second.module.items)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 1),
            st.sampled_from([0, 0, 1, 3, 40, 400]),
            st.sampled_from(SNIPPETS),
        ),
        min_size=1,
        max_size=6,
    ),
    st.booleans(),
)
def test_incremental_parse_equals_fresh_parse(edits, notebook: bool) -> None:
    text = PROGRAM
    previous = parsed(text, notebook=notebook)
    for where, length, snippet in edits:
        at = int(where * len(text))
        text = text[:at] + snippet + text[at + length :]
        current = parsed(text, previous, notebook)
        same_parse(current, parsed(text, notebook=notebook))
        previous = current


def test_a_previous_parse_of_the_other_mode_is_not_reused() -> None:
    text = "%%shapescript\nfn f() -> int = 1\n"
    as_file = parsed(text)
    as_cell = parsed(text, as_file, notebook=True)
    same_parse(as_cell, parsed(text, notebook=True))
    assert as_cell.module.items[0] is not as_file.module.items[0]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(SPLIT_PIECES), max_size=40),
    st.floats(0, 1),
    st.integers(0, 6),
    st.lists(st.sampled_from(SPLIT_PIECES), max_size=4),
)
def test_chunks_of_an_edited_text_are_found_as_a_fresh_split_finds_them(
    pieces: list[str], where: float, length: int, inserted: list[str]
) -> None:
    old = "".join(pieces)
    at = int(where * len(old))
    text = old[:at] + "".join(inserted) + old[at + length :]
    assert split_chunks_after(old, split_chunks(old), text) == split_chunks(text)


class _CountingPattern:
    """A compiled pattern that counts the matches `finditer` gives."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.matches = 0

    def finditer(self, text: str, *args: int):
        for match in self.pattern.finditer(text, *args):
            self.matches += 1
            yield match


def test_a_keystroke_scans_the_chunks_near_it_not_the_whole_file(monkeypatch) -> None:
    first = parsed(PROGRAM)
    starts = first.chunks.starts
    at = starts[len(starts) // 2] + 4
    counting = _CountingPattern(parser._CHUNK_START)
    monkeypatch.setattr(parser, "_CHUNK_START", counting)
    edited = PROGRAM[:at] + "x" + PROGRAM[at:]
    incremental = parsed(edited, first)
    scanned = counting.matches
    same_parse(incremental, parsed(edited))
    assert counting.matches - scanned >= len(starts) > 20
    # A fresh parse scans every chunk start; the edit's, those around the edit.
    assert scanned <= 5


def test_a_comment_typed_at_the_end_of_a_chunk_joins_the_next_chunks_first_comment() -> None:
    text = "fn f() -> int:\n    return 1\n    x\n# note\nfn g() -> int = 2\n"
    first = parsed(text)
    assert first.chunks.joined == []
    at = text.index("    x") + 4
    commented = text[:at] + "#" + text[at:]
    second = parsed(commented, first)
    same_parse(second, parsed(commented))
    assert second.chunks.joined == [1]
    third = parsed(text, second)
    same_parse(third, parsed(text))
    assert third.chunks.joined == []
