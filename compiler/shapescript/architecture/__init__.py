"""A model's architecture, read from the checked code without running it.

`architecture(checked, model, detail)` draws the functions that take the model first
(its forward, then its loss; otherwise up to two others that give a tensor; otherwise
its fields) as boxes, at the `layers` or `operations` level; `model_at` says which
model a position names. The language server draws the result; the text list is in
`architecture.text`.
"""

from __future__ import annotations

import re

from shapescript.architecture.finish import (
    arrows,
    beside_losses,
    fold_repeats,
    limit,
    number,
)
from shapescript.architecture.layers import Grouper
from shapescript.architecture.nodes import Architecture, Held, Link, Node, Section, walk
from shapescript.architecture.operations import Walker, takes_model
from shapescript.check.program import Checked, ItemFacts
from shapescript.check.types import TensorType, format_type
from shapescript.syntax import ast
from shapescript.syntax.source import Span

DETAILS = ("layers", "operations")
#: Kinds of box the summary leaves out.
UNSUMMARIZED = ("input", "output", "residual", "dropout", "activation", "position", "more")


def model_functions(checked: Checked, model: str) -> list[ItemFacts]:
    """The functions drawn: forward, then loss; else up to two that give a tensor."""
    taking = [
        item
        for item in checked.items
        if isinstance(item.item, ast.FnDecl)
        and item.body is not None
        and takes_model(item.item, model)
    ]
    chosen = [item for name in ("forward", "loss") for item in taking if item.item.name == name]
    if any(item.item.name == "forward" for item in chosen):
        return chosen
    others = [
        item
        for item in taking
        if not item.item.params[0].mut and isinstance(item.body.inferred, TensorType)
    ]
    return others[:2]


def architecture(checked: Checked, model: str, detail: str = "layers") -> Architecture | None:
    """The model's drawing, or None if the file doesn't declare or import that model."""
    info = checked.models.get(model)
    if info is None:
        return None
    path = checked.source.path
    name = path.rsplit("/", 1)[-1]
    functions = model_functions(checked, model)
    walker = Walker(checked, model, set())
    sections: list[Section] = []
    links: list[Link] = []
    raw: list[tuple[ItemFacts, list[Node]]] = []
    for item in functions:
        nodes = walker.section(item)
        walker.drawn.add(item.item.name)
        raw.append((item, nodes))
    types = {node.value: node.type for _, nodes in raw for node in walk(nodes)}
    for item, nodes in raw:
        if detail == "layers":
            nodes = Grouper(walker.embedding_tables, types).group(nodes)
        nodes = fold_repeats(nodes)
        nodes = beside_losses(nodes)
        arrows(nodes, walker.names)
        nodes = limit(nodes)
        number(nodes, item.item.name)
        decl = item.item
        span = Span(item.base + decl.name_span.start, item.base + decl.name_span.end)
        line = checked.source.position(span.start).line
        sections.append(Section(decl.name, path, line, span, nodes))
        links.append(Link(decl.name, f"{name}:{line}", "source", path, span))
    seen = {link.label for link in links}
    for function, span in walker.followed:
        if function not in seen:
            seen.add(function)
            line = checked.source.position(span.start).line
            links.append(Link(function, f"{name}:{line}", "followed", path, span))
    if not sections:
        sections.append(field_section(checked, model))
    summary = (
        summarize(model, sections)
        if detail == "layers"
        else architecture(checked, model, "layers").summary
    )
    title = f"Architecture: {model}"
    return Architecture(model, detail, title, summary, sections, links, info.span, path)


def field_section(checked: Checked, model: str) -> Section:
    """With no function to read, the model's fields, one box each."""
    info = checked.models[model]
    nodes = []
    for index, field in enumerate(info.fields.values()):
        node = Node(
            "field",
            f"{field.kind} {field.name}",
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


__all__ = ["DETAILS", "architecture", "model_at"]
