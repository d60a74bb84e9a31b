"""Hovers on several devices: how a value is laid out, where a function runs and what it
sends per call, and every collective on the hovered line (`check.comms`)."""

from __future__ import annotations

from shapescript.check.algebra.types import Type
from shapescript.check.analyses.comms import Table
from shapescript.check.declarations.symbols import Symbol
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript_lsp.features.context import item_at


def device_sections(
    checked: Checked, offset: int, symbol: Symbol | None, type_: Type | None
) -> list[str]:
    """The hover's sections about the devices; none with one device."""
    placement = getattr(checked, "placement", None)
    if placement is None or not placement.several or placement.split_dim is not None:
        return []
    table = Table(checked)
    sections: list[str] = []
    if symbol is not None and symbol.kind == "fn":
        text = table.function_text(symbol.name)
        if text:
            sections.append(text)
    item = item_at(checked, offset)
    if item is None or not isinstance(item.item, ast.FnDecl):
        return sections
    name = item.item.name
    if symbol is not None and symbol.kind in ("param", "value") and type_ is not None:
        text = table.value_text(name, type_)
        if text:
            sections.append(text)
    line = checked.source.position(offset).line
    text = table.line_text(name, line)
    if text:
        sections.append(text)
    return sections
