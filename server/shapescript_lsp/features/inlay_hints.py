"""Inlay hints: each line of a pipeline ends with the shape of what it gives, and (unless
switched off) each bound name is followed by its type."""

from __future__ import annotations

from lsprotocol import types

from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.algebra.types import format_type
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import Span
from shapescript_lsp.features.binding_hints import binding_hints
from shapescript_lsp.positions import position_of


def _pipes(node):
    return (found for found in walk(node) if isinstance(found, ast.Pipe))


def binding_hints_option(options: dict) -> bool:
    """`inlayHints.bindings` of the initialization options, nested or dotted; on by default."""
    nested = options.get("inlayHints")
    value = nested.get("bindings") if isinstance(nested, dict) else None
    if value is None:
        value = options.get("inlayHints.bindings")
    return value if isinstance(value, bool) else True


def inlay_hints(
    checked: Checked, start: int, end: int, bindings: bool = True
) -> list[types.InlayHint]:
    text = checked.source.text
    hints: list[types.InlayHint] = []
    for item in checked.items:
        if item.span.end < start or item.span.start > end:
            continue
        if bindings:
            hints.extend(binding_hints(checked, item))
        for pipe in _pipes(item.item):
            for stage in pipe.stages:
                stage_end = item.base + stage.span.end
                line_end = text.find("\n", stage_end)
                line_end = len(text) if line_end == -1 else line_end
                rest = text[stage_end:line_end].strip()
                if rest and not rest.startswith("#") and not rest.startswith(")"):
                    continue
                type_ = checked.type_of(
                    Span(stage_end - (stage.span.end - stage.span.start), stage_end)
                )
                if type_ is None:
                    continue
                anchor = stage_end if not rest.startswith(")") else stage_end
                hints.append(
                    types.InlayHint(
                        position=position_of(checked.source, anchor),
                        label=f": {format_type(type_)}",
                        kind=types.InlayHintKind.Type,
                        padding_left=True,
                    )
                )
    hints.sort(key=lambda hint: (hint.position.line, hint.position.character))
    return [hint for hint in hints if start <= _offset(checked, hint) <= end]


def _offset(checked: Checked, hint: types.InlayHint) -> int:
    return checked.source.offset(hint.position.line + 1, hint.position.character + 1)
