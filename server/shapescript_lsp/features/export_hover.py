"""Hover on an `export fn`: the input spec torch.export will trace it with."""

from __future__ import annotations

from shapescript.check.declarations.symbols import ItemFacts
from shapescript.check.program import Checked
from shapescript.export.spec import SpecError, describe, export_spec
from shapescript.syntax import ast


def export_section(checked: Checked, name: str) -> str:
    """Markdown: each input's axes, dynamic (a Dim), derived from one, Dim.AUTO or static."""
    try:
        spec = export_spec(checked, name)
    except SpecError as exc:
        return f"**torch.export inputs**: none yet ({exc})"
    body = describe(spec) or "no inputs"
    return "**torch.export inputs**\n\n" + body


def is_export(checked: Checked, name: str) -> bool:
    return any(
        isinstance(item.item, ast.FnDecl) and item.item.name == name and item.item.export
        for item in checked.items
    )


def export_keyword_at(item: ItemFacts | None, offset: int) -> str | None:
    """The function's name when `offset` is on the `export` of an `export fn`."""
    if item is None or not isinstance(item.item, ast.FnDecl) or not item.item.export:
        return None
    start = item.base + item.item.span.start
    return item.item.name if start <= offset <= start + len("export") else None
