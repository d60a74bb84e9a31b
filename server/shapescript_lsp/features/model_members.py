"""Completion after `m.` for a model (its fields and the functions that take it first)
and after `g.` for a gradient (its params)."""

from __future__ import annotations

from lsprotocol import types

from shapescript.check.program import Checked
from shapescript.check.types import GradType, ModelType, Type, format_type, is_type_variable
from shapescript.syntax.source import SourceFile, Span
from shapescript_lsp.features.generic_hover import missing_for
from shapescript_lsp.positions import range_of


def member_candidates(
    checked: Checked,
    text: str,
    value: str,
    value_type: Type | None,
    value_start: int,
    offset: int,
    snippets: bool,
) -> list:
    """The fields of a model or gradient value, then (for a model) each function of the
    file whose first parameter takes that model, rewritten as a call."""
    from shapescript_lsp.features.completion import Candidate

    if isinstance(value_type, GradType):
        model, gradient = value_type.model, True
    elif isinstance(value_type, ModelType):
        model, gradient = value_type.name, False
    else:
        return []
    info = checked.models.get(model)
    if info is None:
        return []
    candidates = []
    for order, field in enumerate(info.fields.values()):
        if gradient and not field.is_param:
            continue
        candidates.append(
            Candidate(
                field.name,
                types.CompletionItemKind.Field,
                f"{field.kind} {field.name}: {format_type(field.type)}",
                field.type,
                rank=0,
                order=order,
                insert=field.name,
                data={"field": field.name, "model": model},
            )
        )
    if gradient:
        return candidates
    replaced = range_of(SourceFile.from_text(checked.source.path, text), Span(value_start, offset))
    for name, signature in _functions(checked):
        symbol = checked.module_symbols.get(name)
        params = getattr(signature, "params", None)
        if symbol is None or symbol.kind != "fn" or not params:
            continue
        first = params[0]
        takes = isinstance(first.type, ModelType) and first.type.name == model
        generic = getattr(signature, "is_generic", False) and is_type_variable(first.type)
        if not takes and not generic:
            continue
        call = _call_text(name, value, params, snippets)
        detail = _signature_text(name, signature)
        lacking = missing_for(checked, name, model) if generic else []
        if lacking:
            shown = ", ".join(f"`{function}`" for function in lacking)
            detail += f" (no {shown} for {model}: a call would be E2311)"
        candidates.append(
            Candidate(
                name,
                types.CompletionItemKind.Function,
                detail,
                rank=1,
                insert=call,
                snippet=snippets,
                data={"name": name, "kind": "fn"},
                text_edit=types.TextEdit(range=replaced, new_text=call),
                filter_text=f"{value}.{name}",
            )
        )
    return candidates


def _functions(checked: Checked):
    """Every function of the file by name, each overload of a shared name included."""
    for name, signature in checked.signatures.items():
        overloads = checked.overloads.get(name)
        if overloads:
            for overload in overloads.values():
                yield name, overload
        else:
            yield name, signature


def _call_text(name: str, value: str, params, snippets: bool) -> str:
    """`forward(m, ${1:x}, ${2:mode})`, with mut where a parameter is mut."""
    parts = [("mut " if params[0].mut else "") + value]
    stop = 0
    for param in params[1:]:
        if param.has_default:
            continue
        stop += 1
        shown = f"${{{stop}:{param.name}}}" if snippets else param.name
        parts.append(("mut " if param.mut else "") + shown)
    return f"{name}({', '.join(parts)})"


def _signature_text(name: str, signature) -> str:
    params = ", ".join(
        ("mut " if p.mut else "") + f"{p.name}: {format_type(p.type)}" for p in signature.params
    )
    returned = signature.return_type
    return f"fn {name}({params})" + (f" -> {format_type(returned)}" if returned else "")
