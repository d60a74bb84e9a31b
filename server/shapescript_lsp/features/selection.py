"""`textDocument/selectionRange`: the ranges an "expand selection" steps through.

From the word under the cursor outwards: each syntax node that holds the position (a
name, the expressions around it, the statement), the block of statements it is in, the
declaration, and the whole file. The nodes come from the syntax tree by an iterative
walk, so no input depth reaches a recursion limit; a chain longer than `MAX_STEPS`
keeps its innermost and outermost steps, since nobody expands a selection thousands
of times and clients parse the nested answer recursively.
"""

from __future__ import annotations

import re

from lsprotocol import types

from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import Span
from shapescript_lsp.positions import range_of

#: The most ranges one position's chain has; past it, the middle is left out.
MAX_STEPS = 64
_WORD = re.compile(r"\w+")
_SPACE = " \t\r\n\f"


def selection_ranges(checked: Checked, offsets: list[int]) -> list[types.SelectionRange]:
    """One chain of ranges for each offset, innermost first."""
    return [_chain(checked, offset) for offset in offsets]


def _chain(checked: Checked, offset: int) -> types.SelectionRange:
    text = checked.source.text
    spans = _spans_around(checked, text, offset)
    chain: list[Span] = []
    for span in sorted(spans, key=lambda span: (span.end - span.start, -span.start)):
        if chain and (span == chain[-1] or not _holds(span, chain[-1])):
            continue
        chain.append(span)
    if len(chain) > MAX_STEPS:
        half = MAX_STEPS // 2
        chain = chain[:half] + chain[-half:]
    answer: types.SelectionRange | None = None
    for span in reversed(chain):
        answer = types.SelectionRange(range=range_of(checked.source, span), parent=answer)
    assert answer is not None
    return answer


def _holds(outer: Span, inner: Span) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


def _spans_around(checked: Checked, text: str, offset: int) -> set[Span]:
    """Every span that holds the offset: the word, nodes, blocks, the file (absolute)."""
    offset = max(0, min(offset, len(text)))
    spans = {Span(0, len(text))}
    word = _word_at(text, offset)
    if word is not None:
        spans.add(word)
    for item in checked.items_at(offset):
        base = item.base
        relative = offset - base
        for node in walk(item.item):
            span = node.span
            if span.start <= relative <= span.end:
                spans.add(_trimmed(text, span.start + base, span.end + base))
            for body in _bodies(node):
                first, last = body[0].span, body[-1].span
                if first.start <= relative <= last.end:
                    spans.add(_trimmed(text, first.start + base, last.end + base))
    return {span for span in spans if span.start <= offset <= span.end}


def _bodies(node) -> list[list]:
    """The blocks of statements a node holds."""
    kind = node.__class__
    if kind is ast.FnDecl:
        return [node.body] if node.body else []
    if kind is ast.For:
        return [node.body] if node.body else []
    if kind is ast.If:
        return [body for body in (node.then_body, node.else_body) if body]
    return []


def _word_at(text: str, offset: int) -> Span | None:
    """The run of letters, digits and `_` at the offset (or just before it)."""
    for start in (offset, offset - 1):
        if 0 <= start < len(text) and (text[start].isalnum() or text[start] == "_"):
            begin = start
            while begin > 0 and (text[begin - 1].isalnum() or text[begin - 1] == "_"):
                begin -= 1
            match = _WORD.match(text, begin)
            if match is not None:
                return Span(match.start(), match.end())
    return None


def _trimmed(text: str, start: int, end: int) -> Span:
    """The span without the blank lines and spaces it ends with."""
    while end > start and text[end - 1] in _SPACE:
        end -= 1
    return Span(start, end)
