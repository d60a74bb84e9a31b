"""Inlay hints after bound names: `q: [b H n Dh], k: …, v: … = split(…)`.

A binding's type is shown after each of its names unless the code writes it: a
literal, or a value that ends in `as T` or `to T`. A type longer than 40 characters is
cut with `…`, and its hint's tooltip has the whole type.
"""

from __future__ import annotations

from lsprotocol import types

from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.algebra.types import Type, format_type, is_unknown
from shapescript.check.declarations.symbols import ItemFacts
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript_lsp.positions import position_of

MAX_LABEL = 40
_WRITTEN = (ast.Cast, ast.ToStage, ast.IntLit, ast.FloatLit, ast.StringLit, ast.BoolLit)


def shorten(text: str) -> str:
    """The text itself up to 40 characters, else its first 39 and `…`."""
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


def binding_hints(checked: Checked, item: ItemFacts) -> list[types.InlayHint]:
    if item.body is None:
        return []
    bound = {(entry.name, entry.symbol.span): entry.type for entry in item.body.facts.entries}
    hints = []
    for node in walk(item.item):
        if not isinstance(node, ast.Assign) or _writes_type(node.value):
            continue
        for target in node.targets:
            type_ = bound.get((target.name, target.span))
            if type_ is not None and not is_unknown(type_):
                hints.append(_hint(checked, item.base + target.span.end, type_))
    return hints


def _writes_type(value: ast.Expr) -> bool:
    if isinstance(value, ast.Pipe) and value.stages:
        return isinstance(value.stages[-1], _WRITTEN)
    return isinstance(value, _WRITTEN)


def _hint(checked: Checked, offset: int, type_: Type) -> types.InlayHint:
    full = format_type(type_)
    shown = shorten(full)
    return types.InlayHint(
        position=position_of(checked.source, offset),
        label=f": {shown}",
        kind=types.InlayHintKind.Type,
        tooltip=types.MarkupContent(
            kind=types.MarkupKind.Markdown, value=f"```shapescript\n{full}\n```"
        )
        if shown != full
        else None,
    )
