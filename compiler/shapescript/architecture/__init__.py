"""A model's architecture, read from the checked code without running it.

`architecture(checked, model, detail)` draws the functions that take the model first
(its forward, then its loss; otherwise up to two others that give a tensor; otherwise
its fields) as boxes, at the `layers` or `operations` level; `model_at` says which
model a position names. The language server draws the result; the text list is in
`architecture.text`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shapescript.architecture.finish import (
    arrows,
    beside_losses,
    fold_repeats,
    limit,
    number,
    whole_lines,
)
from shapescript.architecture.layers import Grouper
from shapescript.architecture.nodes import Architecture, Held, Link, Node, Section, walk
from shapescript.architecture.operations import Walker, takes_model
from shapescript.check.algebra.types import TensorType, format_type
from shapescript.check.declarations.symbols import ItemFacts
from shapescript.check.program import Checked
from shapescript.deep import run_deep
from shapescript.syntax import ast
from shapescript.syntax.source import Span

DETAILS = ("layers", "operations")
#: Kinds of box the summary leaves out.
UNSUMMARIZED = ("input", "output", "residual", "dropout", "activation", "position", "more")


#: A file to read functions from, with the model's name as that file writes it.
FileModel = tuple[Checked, str]


def functions_in(files: Sequence[FileModel]) -> list[tuple[int, ItemFacts]]:
    """The functions drawn, each with the index of its file: forward, then loss, each from
    the first file that has one; else up to two others that give a tensor."""
    taking = [
        (index, item)
        for index, (checked, model) in enumerate(files)
        for item in checked.items
        if isinstance(item.item, ast.FnDecl)
        and item.body is not None
        and takes_model(item.item, model)
    ]
    chosen = []
    for name in ("forward", "loss"):
        found = next((pair for pair in taking if pair[1].item.name == name), None)
        if found is not None:
            chosen.append(found)
    if any(item.item.name == "forward" for _, item in chosen):
        return chosen
    others = [
        (index, item)
        for index, item in taking
        if not item.item.params[0].mut and isinstance(item.body.inferred, TensorType)
    ]
    return others[:2]


def architecture(
    checked: Checked,
    model: str,
    detail: str = "layers",
    files: Sequence[FileModel] = (),
) -> Architecture | None:
    """The model's drawing, or None if `checked` doesn't declare that model. Its functions
    are read from `files` (each with the model's name there; the file hovered first, then
    the files it imports), by default from `checked` alone. The walk over the functions'
    bodies recurses, so it runs through `run_deep`."""
    return run_deep(_architecture, checked, model, detail, files)


def _architecture(
    checked: Checked, model: str, detail: str, files: Sequence[FileModel]
) -> Architecture | None:
    info = checked.models.get(model)
    if info is None:
        return None
    files = list(files) or [(checked, model)]
    path = checked.source.path
    functions = functions_in(files)
    walkers: dict[int, Walker] = {}
    sections: list[Section] = []
    links: list[Link] = []
    raw: list[tuple[ItemFacts, Walker, list[Node]]] = []
    first: Walker | None = None
    for index, item in functions:
        walker = walkers.get(index)
        if walker is None:
            reader, name = files[index]
            walker = Walker(reader, name, set()) if first is None else first.beside(reader, name)
            walkers[index] = walker
            first = first or walker
        nodes = walker.section(item)
        walker.drawn.add(item.item.name)
        raw.append((item, walker, nodes))
    types = {node.value: node.type for _, _, nodes in raw for node in walk(nodes)}
    for item, walker, nodes in raw:
        if detail == "layers":
            nodes = Grouper(walker.embedding_tables, types).group(nodes)
            whole_lines(nodes, walker.checked.source.text)
        nodes = fold_repeats(nodes)
        nodes = beside_losses(nodes)
        arrows(nodes, walker.names)
        nodes = limit(nodes)
        number(nodes, item.item.name)
        decl = item.item
        source = walker.checked.source
        span = Span(item.base + decl.name_span.start, item.base + decl.name_span.end)
        line = source.position(span.start).line
        sections.append(Section(decl.name, source.path, line, span, nodes))
        place = f"{_file_name(source.path)}:{line}"
        links.append(Link(decl.name, place, "source", source.path, span))
    seen = {(link.label, link.path) for link in links}
    followed = first.followed if first is not None else []
    for function, span, where in followed:
        if (function, where.path) not in seen:
            seen.add((function, where.path))
            line = where.position(span.start).line
            links.append(
                Link(function, f"{_file_name(where.path)}:{line}", "followed", where.path, span)
            )
    if not sections:
        sections.append(field_section(checked, model))
    summary = (
        summarize(model, sections)
        if detail == "layers"
        else architecture(checked, model, "layers", files).summary
    )
    title = f"Architecture: {model}"
    return Architecture(model, detail, title, summary, sections, links, info.span, path)


def _file_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def field_section(checked: Checked, model: str) -> Section:
    """With no function to read, the model's fields, one box each (a field that holds
    models by its name alone, `h  [L] Block`)."""
    info = checked.models[model]
    nodes = []
    for index, field in enumerate(info.fields.values()):
        node = Node(
            "field",
            field.name if field.is_model else f"{field.kind} {field.name}",
            type=format_type(field.type),
            span=field.span,
            params=[Held(field.name, format_type(field.type), field.shape)],
            arrow="•",
            id=f"fields.{index + 1}",
        )
        nodes.append(node)
    line = checked.source.position(info.span.start).line
    return Section("fields", checked.source.path, line, info.span, nodes)


def summarize(model: str, sections: list[Section]) -> str:
    """`Architecture of Gpt: Embedding → Transformer block × 6 → LayerNorm → Linear · tied`."""
    first = sections[0]
    if first.function == "fields":
        return f"Architecture of {model}: {len(first.nodes)} fields, no function takes it first"
    parts = []
    for node in first.nodes:
        if node.kind in UNSUMMARIZED:
            continue
        if node.kind == "op":
            continue
        label = node.label or node.function
        if node.kind in ("linear", "mlp", "embedding", "conv", "patch", "attention"):
            words = label.split(" · ")
            head = re.sub(r"(?: \S+(?: → \S+)+)$", "", words[0])
            label = head + (" · tied" if any(word.startswith("tied") for word in words) else "")
        if node.repeat:
            label += " × " + node.repeat.rsplit(" ", 1)[-1]
        parts.append(label)
    return f"Architecture of {model}: " + " → ".join(parts)


def model_at(checked: Checked, offset: int) -> str | None:
    """The model a position names: its declaration, a use as a type or in `Mlp.init`, or
    a function (or a call of one) that takes it first."""
    symbol = checked.definition_at(offset)
    if symbol is None:
        return None
    imported = checked.imports.model_infos if checked.imports is not None else {}
    if symbol.kind == "model":
        return symbol.name if symbol.name in checked.models or symbol.name in imported else None
    if symbol.kind == "fn":
        for item in checked.items:
            decl = item.item
            if isinstance(decl, ast.FnDecl) and decl.name == symbol.name and decl.params:
                type_ = decl.params[0].type
                if type_ is not None and type_.shape is None and len(type_.words) == 1:
                    name = type_.words[0].name
                    if name in checked.models or name in imported:
                        return name
    return None


__all__ = ["DETAILS", "FileModel", "architecture", "model_at"]
