"""The math in a parsed file's comments and its problems (`find_math`, `check_math`),
found one chunk at a time and kept with the chunk, relative to its start
(`ChunkParse.derived`): after an edit only the chunks parsed anew are read, and the
others' math is moved.

Math never reaches past a block of consecutive comment lines of one kind (doc or plain,
none after code). A block lies in one chunk, but where a chunk starts with a comment line
that goes on with the block ending the chunk before (`Chunks.joined`): such a block is
put together from the chunks it spans.
"""

from __future__ import annotations

from shapescript.check.analyses.math_comments import (
    CommentLine,
    Math,
    MathProblem,
    check_math,
    find_math,
)
from shapescript.records import field, record
from shapescript.syntax.parser import ChunkParse, Chunks, ParseResult

#: The name of this pass's entry in `ChunkParse.derived`.
_KEY = "math"


@record
class _ChunkMath:
    """One chunk's comment blocks, each a list of comment lines (offsets from the
    chunk's start, numbered by place in the block), with the math found in each and its
    problems."""

    blocks: list[list[CommentLine]]
    math: list[list[Math]]
    problems: list[list[MathProblem]]
    #: The math and problems of every block, moved to the chunk's start where they were
    #: last asked for.
    placed: tuple[int, list[Math], list[MathProblem]] | None = field(
        default=None, repr=False, compare=False
    )


def math_in_comments(parsed: ParseResult) -> tuple[list[Math], list[MathProblem]]:
    """Every piece of math in the file's comments, in order, as `find_math` finds it in
    all of them, and its problems (`check_math`)."""
    layout = parsed.chunks
    if not isinstance(layout, Chunks):
        # No chunks (a notebook's cells keep their own): every comment is read.
        math = find_math(_all_comment_lines(parsed))
        return math, check_math(math)
    gathering = _Gathering(parsed.source.text, layout)
    gathering.gather()
    return gathering.math, gathering.problems


def _all_comment_lines(parsed: ParseResult) -> list[CommentLine]:
    """Every comment as the math finder reads it, with file offsets and lines."""
    text = parsed.source.text
    found: list[CommentLine] = []
    line, counted = 1, 0
    for base, comment in parsed.comments:
        start = base + comment.span.start + (2 if comment.is_doc else 1)
        line += text.count("\n", counted, start)
        counted = start
        found.append(CommentLine(comment.text, start, line, comment.is_doc, comment.after_code))
    return found


class _Gathering:
    """The math of the chunks with a `$` in a comment (`Chunks.with_dollars`), in order."""

    def __init__(self, text: str, layout: Chunks) -> None:
        self.text = text
        self.starts = layout.starts
        self.parses = layout.parses
        self.with_dollars = layout.with_dollars
        self.joined = frozenset(layout.joined)
        self.math: list[Math] = []
        self.problems: list[MathProblem] = []
        #: The chunk where the last block put together from several chunks ended: the
        #: chunks before it are read, and its first block.
        self.covered = -1

    def gather(self) -> None:
        starts, parses, joined = self.starts, self.parses, self.joined
        math, problems = self.math, self.problems
        for index in self.with_dollars:
            if index < self.covered:
                continue
            if joined and (index in joined or index + 1 in joined or index == self.covered):
                self.gather_across(index)
                continue
            derived = parses[index].derived
            entry: _ChunkMath | None = derived.get(_KEY) if derived is not None else None
            if entry is None:
                entry = self.entry(index)
            start = starts[index]
            placed = entry.placed
            if placed is None or placed[0] != start:
                placed = entry.placed = (
                    start,
                    [found.moved(start) for block in entry.math for found in block],
                    [found.moved(start) for block in entry.problems for found in block],
                )
            math.extend(placed[1])
            if placed[2]:
                problems.extend(placed[2])

    def gather_across(self, index: int) -> None:
        """The math of chunk `index`, next to a chunk that one of its blocks goes on in."""
        entry = self.entry(index)
        start = self.starts[index]
        first, end = 0, len(entry.blocks)
        if index == self.covered:
            first = 1
        elif index in self.joined:
            self.gather_block(self.block_start(index))
            first = 1
            if self.covered > index:
                return
        onward = index + 1 in self.joined
        if onward:
            end -= 1
        for block in range(first, end):
            self.math.extend(found.moved(start) for found in entry.math[block])
            self.problems.extend(found.moved(start) for found in entry.problems[block])
        if onward and first <= end:
            self.gather_block(index)

    def block_start(self, index: int) -> int:
        """The chunk where the block that chunk `index`'s first block goes on starts."""
        owner = index - 1
        while owner in self.joined and len(self.entry(owner).blocks) == 1:
            owner -= 1
        return owner

    def gather_block(self, owner: int) -> None:
        """The math of the block that starts with the last block of chunk `owner` and goes
        on into the chunks after it."""
        lines: list[CommentLine] = []
        index = owner
        block = self.entry(owner).blocks[-1]
        while True:
            start = self.starts[index]
            for line in block:
                lines.append(
                    CommentLine(
                        line.text, line.start + start, len(lines), line.is_doc, line.after_code
                    )
                )
            if index > owner and len(self.entry(index).blocks) > 1:
                break
            if index + 1 not in self.joined:
                break
            index += 1
            block = self.entry(index).blocks[0]
        self.covered = index
        math = find_math(lines)
        self.math.extend(math)
        self.problems.extend(check_math(math))

    def entry(self, index: int) -> _ChunkMath:
        chunk = self.parses[index]
        derived = chunk.derived
        if derived is None:
            derived = chunk.derived = {}
        found: _ChunkMath | None = derived.get(_KEY)
        if found is None:
            found = derived[_KEY] = _chunk_math(chunk, self.text, self.starts[index])
        return found


def _chunk_math(chunk: ChunkParse, text: str, base: int) -> _ChunkMath:
    """The comment blocks of the chunk at `base` in the text, their math and its
    problems."""
    blocks: list[list[CommentLine]] = []
    line, counted = 0, base
    previous_line = -2
    last = None
    for comment in chunk.comments:
        start = comment.span.start + (2 if comment.is_doc else 1)
        line += text.count("\n", counted, base + start)
        counted = base + start
        joins = (
            last is not None
            and not comment.after_code
            and not last.after_code
            and last.is_doc == comment.is_doc
            and line == previous_line + 1
        )
        if not joins:
            blocks.append([])
        block = blocks[-1]
        block.append(
            CommentLine(comment.text, start, len(block), comment.is_doc, comment.after_code)
        )
        last, previous_line = comment, line
    math = [find_math(block) if any("$" in line.text for line in block) else [] for block in blocks]
    return _ChunkMath(blocks, math, [check_math(found) for found in math])
