"""The math in a parse's comments and its problems, found a chunk at a time and kept
with the chunks, are what `find_math` and `check_math` find in all the file's comments:
after a fresh parse, and after edits that move the kept math or join comment blocks
across chunks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shapescript.check.analyses import chunk_math
from shapescript.check.analyses.chunk_math import math_in_comments
from shapescript.check.analyses.math_comments import CommentLine, Math, check_math, find_math
from shapescript.records import replace
from shapescript.syntax.lexer import lex
from shapescript.syntax.parser import ParseResult, parse
from shapescript.syntax.source import SourceFile

PIECES = [
    "dim D = 4\n",
    "# a note\n",
    "# math $x^2$ here\n",
    "## doc with $a$\n",
    "## $$\n",
    "# $$\n",
    "# b = 1 $$\n",
    "fn f(x: [n D]) -> [n D]:\n    y = x  # after $code$\n    return y\n",
    "fn g(x: [n D]) -> [n D]:\n    return x\n    # ends $$\n",
    "fn h(x: [n D]) -> [n D]:\n    return x\n    ## ends $t$\n",
    'extern fn e(x: [n D]) -> [n D] = "torch.$relu"\n',
    "    # indented $z$\n",
    "$\n",
    "# odd $\\foo{x}$ and $a^$\n",
    "model M:\n    ## the $w$\n    param w: [D] = zeros\n",
    "\n",
]


def parsed(text: str, previous: ParseResult | None = None) -> ParseResult:
    return parse(SourceFile.from_text("main.ss", text), previous=previous)


def everywhere(text: str) -> tuple[list[tuple], list]:
    """The math `find_math` finds in every comment of the whole text, lexed as one, and
    its problems."""
    comments = [
        CommentLine(
            comment.text,
            comment.span.start + (2 if comment.is_doc else 1),
            comment.line,
            comment.is_doc,
            comment.after_code,
        )
        for comment in lex(SourceFile.from_text("main.ss", text)).comments
    ]
    math = find_math(comments)
    return shown(math), check_math(math)


def shown(math: list[Math]) -> list[tuple]:
    """Math with the offsets of its lines, which equality leaves out."""
    return [(m.source, m.start, m.end, m.display, m.tree, m.pieces) for m in math]


def found(parse: ParseResult) -> tuple[list[tuple], list]:
    math, problems = math_in_comments(parse)
    return shown(math), problems


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=14),
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=10_000),
            st.sampled_from(["", "$", "# $q$\n", "x", "\n", "## $$\n", "# $$\n", "  ", "#", "##"]),
        ),
        max_size=3,
    ),
)
def test_the_math_kept_with_chunks_is_the_math_of_every_comment(pieces, edits) -> None:
    text = "".join(pieces)
    previous = parsed(text)
    assert found(previous) == everywhere(text)
    # Without chunks (a notebook cell's parse), every comment is read.
    assert found(replace(previous, chunks={})) == everywhere(text)
    for where, inserted in edits:
        at = where % (len(text) + 1)
        text = text[:at] + inserted + text[at:]
        previous = parsed(text, previous)
        assert found(previous) == everywhere(text)
        # Asked again, the math moved to each chunk's start is the same.
        assert found(previous) == everywhere(text)


BLOCKS = (
    "dim D = 4\n\n"
    "## Scales by $1/\\sqrt{D}$.\n"
    "fn f(x: [n D]) -> [n D] = x\n\n"
    "fn g(x: [n D]) -> [n D]:\n"
    "    y = f(x)\n"
    "    # the sum $$\n"
    "# \\sum_i y_i $$\n"
    "fn h(x: [n D]) -> [n D]:\n"
    "    # then $b$\n"
    "    return g(x)\n\n"
    "fn g2(x: [n D]) -> [n D]:\n"
    "    return x\n"
    "    # a sum of\n"
    "# $y_i$ over i\n"
    "fn h2(x: [n D]) -> [n D]:\n"
    "    # then $c$\n"
    "    return g2(x)\n\n"
    "## And $a^2$ here.\n"
    "fn k(x: [n D]) -> [n D] = h(x)\n"
)


def test_kept_math_moves_with_an_edit_above_it_and_inside_a_function_it_follows() -> None:
    first = parsed(BLOCKS)
    assert [m.source for m in math_in_comments(first)[0]] == [
        "1/\\sqrt{D}",
        "\n \\sum_i y_i ",
        "b",
        "y_i",
        "c",
        "a^2",
    ]
    text = BLOCKS
    for at in (0, text.index("y = f(x)"), text.index("return g(x)"), text.index("= h(x)")):
        text = text[:at] + "\n\n" + text[at:]
        second = parsed(text, first)
        assert found(second) == everywhere(text)
        first = second


def test_an_edit_reads_only_the_chunks_parsed_anew(monkeypatch) -> None:
    text = "".join(f"## The {n}th is ${n}^2$.\nfn f{n}(x: int) -> int = x\n\n" for n in range(40))
    first = parsed(text)
    math_in_comments(first)
    read = []
    monkeypatch.setattr(
        chunk_math,
        "_chunk_math",
        lambda chunk, *args, real=chunk_math._chunk_math: read.append(chunk) or real(chunk, *args),
    )
    at = text.index("-> int = x", len(text) // 2) + len("-> int = ")
    edited = text[:at] + "1 + " + text[at:]
    second = parsed(edited, first)
    assert found(second) == everywhere(edited)
    assert len(read) == 1
