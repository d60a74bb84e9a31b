"""Pictures of one call: a `|>` into a built-in that computes, `->` in einsum's or
reduce's pattern, `x to T` between domains.

The call is made into a function of its own, appended to the file: it takes the stage's
input and each value of the caller that the call reads, with the types the checker gave
them, and makes the call as written, so `masked_fill(!causal[n m], -inf)` keeps its mask.
That function is then pictured as any function of the file is.
"""

from __future__ import annotations

from shapescript.analysis import check
from shapescript.check.algebra.types import HostType, TensorType, Type, format_type
from shapescript.check.declarations.builtin_table import BUILTINS
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile, Span
from shapescript_lsp.features.call_hover import call_at
from shapescript_lsp.features.context import (
    StageAt,
    bar_at,
    enclosing,
    item_at,
    stage_input_span,
    word_at,
)

#: The name of the function a call is made into.
PICTURED = "ss_pictured"
INPUT = "stage_input"
#: Kinds of built-ins that compute values (rather than move them, or train, or iterate).
COMPUTING = frozenset({"reduction", "along_axis", "matmul", "mask", "special"})
#: Pattern operations that compute.
COMPUTING_PATTERNS = frozenset({"einsum", "reduce"})


def call_function(checked: Checked, offset: int) -> tuple[Checked, str, Type] | None:
    """The file with the call at `offset` made into the function `PICTURED`, checked, the
    call as written and its result's type; None when there is no call there to picture
    or it doesn't check on its own."""
    item = item_at(checked, offset)
    if item is None:
        return None
    relative = offset - item.base
    bar = bar_at(item, relative) or _to_stage_at(checked, item, offset)
    if bar is not None:
        return _stage(checked, item, bar)
    cast = _to_cast_at(checked, item, offset)
    if cast is not None:
        return _conversion(checked, item, cast)
    called = call_at(checked, offset)
    if called is not None and called.stage is not None:
        return _stage(checked, item, called.stage)
    if called is not None and called.call is not None:
        return _call(checked, item, called.call)
    if checked.source.text[max(0, offset - 1) : offset + 2].find("->") < 0:
        return None
    for call in reversed(enclosing(item.item, relative, (ast.Call,))):
        if isinstance(call.callee, ast.Name) and call.callee.name in COMPUTING_PATTERNS:
            result = checked.type_of(_absolute(call.span, item.base))
            written = _text(checked, call.span, item.base)
            made = _made(checked, item, [], written, call, result)
            return None if made is None else (made, written, result)
    return None


def _on_to(checked: Checked, offset: int) -> bool:
    """Whether `offset` is on a `to` keyword."""
    found = word_at(checked.source.text, offset)
    return found is not None and found[0] == "to"


def _to_stage_at(checked: Checked, item, offset: int) -> StageAt | None:
    """The `|> to T` stage whose `to` is at `offset`."""
    if not _on_to(checked, offset):
        return None
    relative = offset - item.base
    for pipe in enclosing(item.item, relative, (ast.Pipe,)):
        for index, stage in enumerate(pipe.stages):
            start = stage.span.start
            if isinstance(stage, ast.ToStage) and start <= relative <= start + 2:
                return StageAt(pipe, index)
    return None


def conversion_at(checked: Checked, offset: int) -> tuple[Span, Span] | None:
    """The operand's span and the whole conversion's, in the file, of the `x to T` whose
    `to` is at `offset`."""
    item = item_at(checked, offset)
    cast = None if item is None else _to_cast_at(checked, item, offset)
    if item is None or cast is None:
        return None
    return _absolute(cast.operand.span, item.base), _absolute(cast.span, item.base)


def _to_cast_at(checked: Checked, item, offset: int) -> ast.Cast | None:
    """The `x to T` whose `to` is at `offset`."""
    if not _on_to(checked, offset):
        return None
    relative = offset - item.base
    for cast in reversed(enclosing(item.item, relative, (ast.Cast,))):
        if cast.kind == "to" and cast.operand.span.end <= relative <= cast.type.span.start:
            return cast
    return None


def _conversion(checked: Checked, item, cast: ast.Cast) -> tuple[Checked, str, Type] | None:
    """`x to T` between domains, made into a function of x (and what x reads)."""
    if not cast.type.words:
        return None
    before = checked.type_of(_absolute(cast.operand.span, item.base))
    after = checked.type_of(_absolute(cast.span, item.base))
    if not isinstance(before, TensorType):
        return None
    target = _text(checked, cast.type.span, item.base)
    name = cast.operand.name if isinstance(cast.operand, ast.Name) else INPUT
    made = _made(checked, item, [(name, before)], f"{name} to {target}", cast.type, after)
    if made is None:
        return None
    operand = _text(checked, cast.operand.span, item.base)
    operand = operand if name != INPUT or " " not in operand else f"({operand})"
    return made, f"{operand} to {target}", after


def _stage(checked: Checked, item, bar) -> tuple[Checked, str, Type] | None:
    stage = bar.pipe.stages[bar.index]
    if not _computes(checked, stage):
        return None
    before = checked.type_of(_absolute(stage_input_span(bar), item.base))
    after = checked.type_of(_absolute(stage.span, item.base))
    if not isinstance(before, TensorType):
        return None
    written = _text(checked, stage.span, item.base)
    made = _made(checked, item, [(INPUT, before)], f"{INPUT} |> {written}", stage, after)
    return None if made is None else (made, f"|> {written}", after)


def _call(checked: Checked, item, call: ast.Call) -> tuple[Checked, str, Type] | None:
    """A call of a built-in or library function that computes, as written, made into a
    function of the caller's values it reads."""
    if not _computes(checked, call):
        return None
    result = checked.type_of(_absolute(call.span, item.base))
    written = _text(checked, call.span, item.base)
    made = _made(checked, item, [], written, call, result)
    return None if made is None else (made, written, result)


def _computes(checked: Checked, stage) -> bool:
    """A conversion between domains with `to`, or a call of a built-in or prelude
    function that computes and isn't a function of one number (those get a curve):
    elementwise built-ins count when they take more than one value, as masked_fill does."""
    if isinstance(stage, ast.ToStage):
        return bool(stage.type.words)
    callee = stage.callee if isinstance(stage, ast.Call) else stage
    if not isinstance(callee, ast.Name):
        return False
    entry = BUILTINS.get(callee.name)
    if entry is not None:
        if entry.kind == "elementwise":
            return len(entry.required) > 1
        return entry.kind in COMPUTING or callee.name in COMPUTING_PATTERNS
    signature = checked.signatures.get(callee.name)
    return getattr(signature, "origin", "") in ("prelude", "nn") and not getattr(
        signature, "is_elementwise", True
    )


def _made(
    checked: Checked, item, params: list[tuple[str, Type]], body: str, node, result
) -> Checked | None:
    if not isinstance(result, TensorType) or checked.errors:
        return None
    for name in _local_names(checked, item, node):
        type_ = checked.type_of(name[1])
        if not isinstance(type_, (TensorType, HostType)):
            return None
        if all(name[0] != known for known, _ in params):
            params.append((name[0], type_))
    written = ", ".join(f"{name}: {format_type(type_)}" for name, type_ in params)
    # The result's type is written when it can be: its axes may be names the call's
    # pattern introduces, which the function's header can't use.
    for returns in (f" -> {format_type(result)}", ""):
        text = checked.source.text.rstrip("\n")
        text += f"\n\nfn {PICTURED}({written}){returns} = {body}\n"
        made = check(SourceFile.from_text(checked.source.path, text))
        if not made.errors:
            return made
    return None


def _local_names(checked: Checked, item, node) -> list[tuple[str, Span]]:
    """The caller's values the call reads: names of parameters and local values."""
    found = []
    waiting = [node]
    while waiting:
        current = waiting.pop()
        if isinstance(current, ast.Name):
            span = _absolute(current.span, item.base)
            symbol = checked.definition_at(span.start)
            if symbol is not None and symbol.kind in ("param", "value"):
                found.append((current.name, span))
            continue
        if isinstance(current, list):
            waiting.extend(current)
            continue
        for slot in getattr(type(current), "__slots__", ()):
            value = getattr(current, slot, None)
            if isinstance(value, list) or hasattr(value, "__slots__"):
                waiting.append(value)
    return found


def _text(checked: Checked, span: Span, base: int) -> str:
    return " ".join(checked.source.text[base + span.start : base + span.end].split())


def _absolute(span: Span, base: int) -> Span:
    return Span(span.start + base, span.end + base)
