"""Hover on another file's declaration (`attention.forward`, `attention.D`): its
signature with the types as this file names them, or its declaration as written there,
its docs, and which file it is in."""

from __future__ import annotations

from shapescript.check.declarations.symbols import Symbol
from shapescript.check.program import Checked
from shapescript_lsp.features.imported import shown_file, text_of, written_declaration
from shapescript_lsp.features.model_hover import DocRenderer, model_hover
from shapescript_lsp.features.model_members import signature_text
from shapescript_lsp.render.math import render_doc


def _fence(text: str) -> str:
    return f"```shapescript\n{text}\n```"


def imported_hover(checked: Checked, symbol: Symbol, doc: DocRenderer = render_doc) -> list[str]:
    """The sections of a hover on a name declared in another `.ss` file; `doc` renders
    its docs' math as the hover does for this file's names."""
    where = f"Declared in `{shown_file(checked, symbol.path)}`"
    kind = symbol.kind
    if kind == "model":
        return model_hover(checked, symbol, doc) + [where]
    table = checked.imports
    local = symbol.name.rpartition(".")[2]
    text = text_of(checked, symbol.path) or ""
    written = written_declaration(symbol.path, text, local)
    if kind in ("fn", "extern") and table is not None:
        overloads = table.overloads.get(symbol.name)
        signatures = (
            [signature for signature, _ in overloads.values()]
            if overloads
            else [table.signatures[symbol.name]]
            if symbol.name in table.signatures
            else []
        )
        if signatures:
            shown = "\n".join(signature_text(symbol.name, found) for found in signatures)
            return [_fence(shown), doc(symbol.doc), where]
    if kind == "dim":
        value = checked.dim_values.get(symbol.name)
        value_text = written.split("=", 1)[1].strip() if written and "=" in written else ""
        shown = f"dim {symbol.name} = {value_text}"
        if value is not None and value_text != str(value):
            shown += f" = {value}"
        return [_fence(shown), doc(symbol.doc), where]
    return [_fence(written or f"{kind} {symbol.name}"), doc(symbol.doc), where]
