"""Hovering the function of a call: the call itself, as the checker typed it.

`softmax(z: [b C], over=C) -> [b C] Prob over C`: the arguments as written, each tensor
with its type, and the result's type. A piped call takes the piped value as its first
argument (or where its `_` stands). The declaration follows, laid out as its source lays
it out: a library function as in prelude.ss or nn.ss, a built-in one parameter a line
when its signature is long.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import cache

from shapescript.check.algebra.types import TensorType, Type, format_type
from shapescript.check.declarations.builtin_table import one_parameter_a_line
from shapescript.check.declarations.prelude import load_prelude
from shapescript.check.declarations.symbols import Symbol
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.parser import parse_text
from shapescript.syntax.source import Span
from shapescript_lsp.features.context import StageAt, enclosing, item_at, stage_input_span

#: A signature longer than this is laid out one parameter a line.
LONG_SIGNATURE = 80
#: A piped value written longer than this is shown by its callee (`einsum(…)`) or `…`.
LONG_INPUT = 24


@dataclass
class CallAt:
    """A call whose callee is hovered: where, and (for a pipe stage) the stage."""

    call: ast.Call | None
    callee: ast.Name
    stage: StageAt | None
    base: int


def call_at(checked: Checked, offset: int) -> CallAt | None:
    """The call whose callee name holds `offset`: a call, or a pipe stage (bare or called)."""
    item = item_at(checked, offset)
    if item is None:
        return None
    relative = offset - item.base
    for pipe in reversed(enclosing(item.item, relative, (ast.Pipe,))):
        for index, stage in enumerate(pipe.stages):
            callee = stage.callee if isinstance(stage, ast.Call) else stage
            if isinstance(callee, ast.Name) and _holds(callee.span, relative):
                call = stage if isinstance(stage, ast.Call) else None
                return CallAt(call, callee, StageAt(pipe, index), item.base)
    for call in reversed(enclosing(item.item, relative, (ast.Call,))):
        callee = call.callee
        if isinstance(callee, ast.Name) and _holds(callee.span, relative):
            return CallAt(call, callee, None, item.base)
    return None


def _holds(span: Span, offset: int) -> bool:
    return span.start <= offset <= span.end


def call_line(checked: Checked, found: CallAt) -> str | None:
    """`name(arg: type, key=arg, ...) -> result`, or None when the checker has no result."""
    base = found.base
    if found.stage is not None:
        stage = found.stage.pipe.stages[found.stage.index]
        result = checked.type_of(_absolute(stage.span, base))
    else:
        assert found.call is not None
        result = checked.type_of(_absolute(found.call.span, base))
    if result is None:
        return None
    shown: list[str] = []
    args = found.call.args if found.call is not None else []
    piped = _piped(checked, found) if found.stage is not None else None
    placed = False
    for arg in args:
        if isinstance(arg.value, ast.Placeholder) and piped is not None:
            text, placed = piped, True
        else:
            text = _argument(checked, arg.value, base)
        shown.append(f"{arg.name}={text}" if arg.name else text)
    if piped is not None and not placed:
        shown.insert(0, piped)
    return f"{found.callee.name}({', '.join(shown)}) -> {format_type(result)}"


def _piped(checked: Checked, found: CallAt) -> str:
    """The value piped into the stage, written short, with its type."""
    assert found.stage is not None
    span = _absolute(stage_input_span(found.stage), found.base)
    text = " ".join(checked.source.text[span.start : span.end].split())
    if len(text) > LONG_INPUT:
        node = found.stage.pipe.input if found.stage.index == 0 else None
        callee = getattr(node, "callee", None)
        text = f"{callee.name}(…)" if isinstance(callee, ast.Name) else "…"
    return _typed(text, checked.type_of(span))


def _argument(checked: Checked, value, base: int) -> str:
    span = _absolute(value.span, base)
    text = " ".join(checked.source.text[span.start : span.end].split())
    return _typed(text, checked.type_of(span))


def _typed(text: str, type_: Type | None) -> str:
    """An argument with its type: a tensor's only, as axes and sizes speak for themselves."""
    return f"{text}: {format_type(type_)}" if isinstance(type_, TensorType) else text


def _absolute(span: Span, base: int) -> Span:
    return Span(span.start + base, span.end + base)


# ---------------------------------------------------------------------- declarations


def library_declaration(symbol: Symbol) -> str | None:
    """A prelude or nn function's declaration as its file lays it out, or None."""
    origin = symbol.path.strip("<>")
    return _library_layouts(origin).get(symbol.name)


@cache
def _library_layouts(origin: str) -> dict[str, str]:
    text = load_prelude().texts.get(origin)
    if text is None:
        return {}
    module = parse_text(text, f"<{origin}>").module
    found = {}
    for index, item in enumerate(module.items):
        if isinstance(item, ast.ExternFnDecl):
            offset = module.base_of(index)
            found[item.name] = text[offset + item.span.start : offset + item.span.end].rstrip()
    return found


def laid_out(signature: str) -> str:
    """A one-line signature, one parameter a line when it is long."""
    return signature if len(signature) <= LONG_SIGNATURE else one_parameter_a_line(signature)


def source_declaration(checked: Checked, node: ast.FnDecl | ast.ExternFnDecl, base: int) -> str:
    """A function's header as the file writes it (up to its body), without its indent."""
    end = node.span.end
    if isinstance(node, ast.FnDecl):
        if node.expr_body is not None:
            end = node.expr_body.span.start
        elif node.body:
            end = node.body[0].span.start
    text = checked.source.text[base + node.span.start : base + end]
    header = textwrap.dedent(text).rstrip().rstrip(":=").rstrip()
    return header if "\n" in header else laid_out(header)
