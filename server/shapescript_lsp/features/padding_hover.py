"""Hover notes on fixed shapes: padded loops, what blocks padding, recorded steps.

A check for diagnostics finds the loops over batches and the steps, with what blocks
them; what each function's axes and each boolean selection allow is only worked out with
every fact, over the whole file (`complete_facts`), which on a big file takes seconds. So
that is asked for only where a hover shows it: on a function's name and inside an
indexing (`wants_complete_facts`).
"""

from __future__ import annotations

from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.analyses.padding import Blocker, PaddingFacts, complete_facts
from shapescript.check.declarations.symbols import Symbol
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import Span


def padding_notes(checked: Checked, word: str, span: Span, symbol: Symbol | None) -> str:
    """The hover's paragraph about padding and recording for the word at `span`, or ""."""
    facts = checked.padding
    if not isinstance(facts, PaddingFacts):
        return ""
    notes = []
    if word == "batches":
        notes += _loop_note(checked, facts, span)
    if _declared_function(checked, symbol):
        complete = complete_facts(checked)
        if complete is not None:
            notes += _function_notes(checked, complete, word)
    if _in_indexing(checked, span.start):
        complete = complete_facts(checked)
        if complete is not None:
            notes += _selection_notes(checked, complete, span)
    notes += _blocker_notes(checked, facts, span)
    return "\n\n".join(notes)


def wants_complete_facts(checked: Checked, offset: int) -> bool:
    """Whether a hover at `offset` shows facts that only a complete padding analysis has:
    on a function of this file, or inside an indexing that may be a boolean selection."""
    return _declared_function(checked, checked.definition_at(offset)) or _in_indexing(
        checked, offset
    )


def _declared_function(checked: Checked, symbol: Symbol | None) -> bool:
    return symbol is not None and symbol.kind == "fn" and symbol.path == checked.source.path


def _in_indexing(checked: Checked, offset: int) -> bool:
    """Whether `offset` is inside an indexing `x[...]` of a function (a selection's span)."""
    return any(
        isinstance(item.item, ast.FnDecl)
        and any(
            isinstance(node, ast.Index) and node.span.start <= offset - item.base <= node.span.end
            for node in walk(item.item)
        )
        for item in checked.items_at(offset)
    )


def _selection_notes(checked: Checked, facts: PaddingFacts, span: Span) -> list[str]:
    """Whether the boolean selection under the cursor is kept at its target's size."""
    for selection, blocker in facts.selections.items():
        if not selection.start <= span.start < selection.end:
            continue
        if blocker is None:
            return [
                "**Fixed shapes:** this selection is kept at its target's size, with a mask "
                "of the selected positions, so its shape doesn't depend on the data."
            ]
        return [
            "**Fixed shapes:** this selection is compacted to the selected positions, so "
            f"its size depends on the data: {blocker.text} ({_where(checked, blocker)})."
        ]
    return []


def _line(checked: Checked, offset: int) -> int:
    return checked.source.position(offset).line


def _where(checked: Checked, blocker: Blocker) -> str:
    return f"line {_line(checked, blocker.span.start)}, in `{blocker.function}`"


def _loop_note(checked: Checked, facts: PaddingFacts, span: Span) -> list[str]:
    for loop, blocker in facts.loops.items():
        if loop.start <= span.start < loop.end:
            if blocker is None:
                return [
                    "**Fixed shapes:** the last batch is padded to the batch size with "
                    "masked copies of its own examples, so every step has the same shapes."
                ]
            return [
                f"**Fixed shapes:** the last batch isn't padded: {blocker.text} "
                f"({_where(checked, blocker)})."
            ]
    return []


def _function_notes(checked: Checked, facts: PaddingFacts, name: str) -> list[str]:
    notes = []
    if name in facts.steps:
        blocker = facts.steps[name]
        if blocker is None:
            notes.append(
                "**Recorded step:** on CUDA it is recorded as a CUDA graph per signature "
                "and replayed."
            )
        else:
            notes.append(
                f"**Not recorded:** {blocker.text} ({_where(checked, blocker)}); "
                "it runs operation by operation."
            )
    axes = facts.axes.get(name)
    if axes:
        padded = [f"`{axis}`" for axis, blocker in axes.items() if blocker is None]
        lines = []
        if padded:
            lines.append(f"`shapescript.padded` can pad {', '.join(padded)}.")
        for axis, blocker in axes.items():
            if blocker is not None:
                lines.append(
                    f"`{axis}` can't be padded: {blocker.text} ({_where(checked, blocker)})."
                )
        notes.append("**Padding:** " + " ".join(lines))
    return notes


def _blocker_notes(checked: Checked, facts: PaddingFacts, span: Span) -> list[str]:
    notes = []
    for loop, blocker in facts.loops.items():
        if blocker is not None and _inside(span, blocker.span):
            notes.append(
                f"**Fixed shapes:** this {blocker.why}, so it keeps the last batch of the loop "
                f"on line {_line(checked, loop.start)} from being padded."
            )
    for step, blocker in facts.steps.items():
        if blocker is not None and _inside(span, blocker.span):
            notes.append(
                f"**Recording:** this keeps step `{step}` from being recorded: {blocker.text}."
            )
    return notes


def _inside(span: Span, outer: Span) -> bool:
    return outer.start <= span.start and span.end <= outer.end and outer.start == span.start
