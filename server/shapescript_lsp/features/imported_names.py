"""Completion after `attention.`: the declarations of the file that import binds."""

from __future__ import annotations

from lsprotocol import types

from shapescript.check.algebra.types import format_type
from shapescript.check.program import Checked


def imported_names(checked: Checked, bound: str) -> list:
    """The top-level declarations of the file imported as `bound`, each with its type or
    signature as this file names them."""
    from shapescript_lsp.features.completion import KIND_OF_SYMBOL, Candidate
    from shapescript_lsp.features.model_members import signature_text

    table = checked.imports
    prefix = table.names.prefixes.get(bound) if table is not None else None
    if prefix is None:
        return []
    candidates = []
    for name in sorted(table.names.declared.get(prefix, ())):
        qualified = f"{prefix}.{name}"
        symbol = table.symbols.get(qualified)
        kind = symbol.kind if symbol is not None else ""
        detail = kind
        signature = table.signatures.get(qualified)
        if kind in ("fn", "extern") and signature is not None:
            detail = signature_text(f"{bound}.{name}", signature)
        elif kind == "dim" and qualified in checked.dim_values:
            detail = f"dim {name} = {checked.dim_values[qualified]}"
        elif kind == "model" and qualified in table.model_infos:
            fields = table.model_infos[qualified].fields.values()
            detail = "model: " + ", ".join(
                f"{field.name}: {format_type(field.type)}" for field in fields
            )
        candidates.append(
            Candidate(
                name,
                KIND_OF_SYMBOL.get(kind, types.CompletionItemKind.Reference),
                detail,
                rank=1,
                insert=name,
            )
        )
    return candidates
