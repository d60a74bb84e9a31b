"""Hover on a model's name (its fields, their shapes and docs) and on a field (`m.w1`)."""

from __future__ import annotations

from collections.abc import Callable

from shapescript.check.algebra.types import Type, format_type
from shapescript.check.declarations.model_info import FieldInfo, ModelInfo
from shapescript.check.declarations.symbols import Symbol
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript_lsp.features.imported import declaration, text_of
from shapescript_lsp.render.math import render_doc

#: Renders a doc comment as Markdown: its math as images or Unicode text.
DocRenderer = Callable[[str | None], str]


def _fence(text: str) -> str:
    return f"```shapescript\n{text}\n```"


def model_infos(checked: Checked) -> dict[str, ModelInfo]:
    """The file's models and those of the files it imports (`attention.Mlp`), by name."""
    table = checked.imports
    imported = table.model_infos if table is not None else {}
    return {**imported, **checked.models}


def model_hover(checked: Checked, symbol: Symbol, doc: DocRenderer = render_doc) -> list[str]:
    """The model's declaration, field by field with each initializer, then the docs (their
    math rendered by `doc`, as the hover renders a function's)."""
    info = model_infos(checked).get(symbol.name)
    if info is None:
        return [_fence(f"model {symbol.name}"), doc(symbol.doc)]
    initializers = _initializer_texts(checked, symbol)
    lines = [f"model {info.name}:"]
    for field in info.fields.values():
        line = f"    {_field_line(field)}"
        if field.name in initializers:
            line += f" = {initializers[field.name]}"
        lines.append(line)
    parts = [_fence("\n".join(lines)), doc(info.doc)]
    documented = [field for field in info.fields.values() if field.doc]
    if documented:
        parts.append(
            "\n".join(
                f"- `{field.name}`: {doc(' '.join(field.doc.split()))}" for field in documented
            )
        )
    parts.append(_sizes(info, model_infos(checked)))
    return parts


def field_hover(
    checked: Checked,
    symbol: Symbol,
    drawing: Callable[[Type, Checked], str],
    doc: DocRenderer = render_doc,
) -> list[str]:
    """The field's kind, name and type, the model it belongs to, its doc and its shape."""
    for info in model_infos(checked).values():
        for field in info.fields.values():
            if field.symbol == symbol:
                if field.is_model:
                    return [_fence(_field_line(field)), _held_text(field, info), doc(field.doc)]
                return [
                    _fence(_field_line(field)),
                    f"{field.kind.capitalize()} of `{info.name}`"
                    + ("" if field.is_param else ", saved with the model but not trained"),
                    doc(field.doc),
                    drawing(field.type, checked),
                ]
    return [_fence(symbol.detail or symbol.name), doc(symbol.doc)]


def _field_line(field: FieldInfo) -> str:
    """The field as written, less its initializer: `param w: [D C]`, `h: [L] Block`."""
    if field.is_model:
        return f"{field.name}: {format_type(field.type)}"
    return f"{field.kind} {field.name}: {format_type(field.type)}"


def _held_text(field: FieldInfo, info: ModelInfo) -> str:
    """What a field that holds models holds, and that its params train with the model."""
    if field.count is None:
        article = "an" if (field.model or "")[:1].lower() in "aeiou" else "a"
        held = f"Holds {article} `{field.model}` in `{info.name}`"
    else:
        held = f"Holds {field.count} `{field.model}` models in `{info.name}` (a ModuleList)"
    return held + ", whose params train and save with it"


def _sizes(info: ModelInfo, infos: dict[str, ModelInfo] | None = None) -> str:
    """How many numbers the params and buffers hold, the held models' included, when every
    shape is known."""
    counts = _counts(info, infos or {})
    if counts is None:
        return ""
    text = f"{counts['param']:,} trained values"
    if counts["buffer"]:
        text += f", {counts['buffer']:,} in buffers"
    return text


def _counts(info: ModelInfo, infos: dict[str, ModelInfo]) -> dict[str, int] | None:
    """The numbers in a model's params and buffers, the held models' included (a held model
    counted once per copy); None when a shape or a held model isn't known. Walks with a
    stack of its own, and counts nothing for a model that holds itself (E3401)."""
    counts = {"param": 0, "buffer": 0}
    stack: list[tuple[ModelInfo, int, frozenset[str]]] = [(info, 1, frozenset({info.name}))]
    while stack:
        current, copies, above = stack.pop()
        for field in current.fields.values():
            if field.is_model:
                held = infos.get(field.model or "")
                if held is None or held.name in above:
                    return None
                stack.append((held, copies * (field.count or 1), above | {held.name}))
                continue
            if field.shape is None:
                return None
            size = 1
            for value in field.shape:
                size *= value
            counts[field.kind] += size * copies
    return counts


def _initializer_texts(checked: Checked, symbol: Symbol) -> dict[str, str]:
    """Each field's initializer as written, in this file or in the model's own."""
    if symbol.path == checked.source.path:
        found = next(
            (
                (item.item, item.base)
                for item in checked.items
                if isinstance(item.item, ast.ModelDecl) and item.item.name == symbol.name
            ),
            None,
        )
        text = checked.source.text
    else:
        text = text_of(checked, symbol.path) or ""
        found = declaration(symbol.path, text, symbol.name.rpartition(".")[2])
    if found is None or not isinstance(found[0], ast.ModelDecl):
        return {}
    node, base = found
    texts = {}
    for field in node.fields:
        if field.init is not None:
            written = text[base + field.init.span.start : base + field.init.span.end]
            texts[field.name] = " ".join(written.split())
    return texts
