"""Finding what is at a position: the item, the innermost call or pipe stage, the token."""

from __future__ import annotations

import re
from dataclasses import dataclass

from shapescript.check.declarations.symbols import ItemFacts
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import Span

_WORD = re.compile(r"[^\W\d]\w*|\?[^\W\d]\w*")


def run_start(text: str, end: int, also: str = "_") -> int:
    """Where the run of letters, digits and `also` characters that ends at `end` starts.

    Scanning back once from `end` is linear, where a search for a pattern like `[\\w?]*$`
    tries every position of a long run and is quadratic in its length.
    """
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in also):
        start -= 1
    return start


def space_start(text: str, end: int) -> int:
    """Where the run of whitespace that ends at `end` starts."""
    start = end
    while start > 0 and text[start - 1].isspace():
        start -= 1
    return start


def word_at(text: str, offset: int) -> tuple[str, Span] | None:
    """The name (or unknown size) that the offset is in or just after."""
    start = run_start(text, offset, "_?")
    match = _WORD.match(text, start)
    if match is None or match.end() < offset:
        return None
    return match.group(), Span(match.start(), match.end())


def item_at(checked: Checked, offset: int) -> ItemFacts | None:
    items = checked.items_at(offset)
    return items[0] if items else None


def children(node):
    """The syntax nodes directly inside a node."""
    for name in getattr(node, "__slots__", ()):
        value = getattr(node, name, None)
        if isinstance(value, list):
            for element in value:
                if hasattr(element, "__slots__") and hasattr(element, "span"):
                    yield element
        elif hasattr(value, "__slots__") and hasattr(value, "span"):
            yield value


def enclosing(node, offset: int, kinds: tuple[type, ...]) -> list:
    """The nodes of the given kinds that hold `offset` (item-relative), outermost first."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        span = getattr(current, "span", None)
        outside = span is None or not span.start <= offset <= span.end
        if outside and not isinstance(current, ast.Module | ast.FnDecl):
            continue
        if isinstance(current, kinds):
            found.append(current)
        stack.extend(children(current))
    found.sort(key=lambda n: (n.span.start, -n.span.end))
    return found


@dataclass(slots=True)
class StageAt:
    """A pipe and the index of its stage at a position."""

    pipe: ast.Pipe
    index: int


def stage_at(item: ItemFacts, relative: int) -> StageAt | None:
    pipes = enclosing(item.item, relative, (ast.Pipe,))
    for pipe in reversed(pipes):
        for index, stage in enumerate(pipe.stages):
            if stage.span.start <= relative <= stage.span.end:
                return StageAt(pipe, index)
    return None


def bar_at(item: ItemFacts, relative: int) -> StageAt | None:
    """The pipe stage whose `|>` is at the position."""
    for pipe in enclosing(item.item, relative, (ast.Pipe,)):
        for index, bar in enumerate(pipe.bar_spans):
            if bar.start <= relative <= bar.end:
                return StageAt(pipe, index)
    return None


def stage_input_span(stage: StageAt) -> Span:
    """The span whose recorded type is what flows into the stage."""
    if stage.index == 0:
        return stage.pipe.input.span
    return stage.pipe.stages[stage.index - 1].span
