"""The text list of an architecture, for editors that show neither images nor views."""

from __future__ import annotations

from shapescript.architecture.nodes import Architecture, Node

PARAM_INDENT = "      "


def box_label(node: Node) -> str:
    """A box's name as drawn: a frame's function and count, a sum's added value."""
    label = node.label
    if node.kind == "frame":
        label = node.label or (node.function or "loop")
        if node.label == "Transformer block" and node.function:
            label = f"Transformer block ({node.function})"
    elif node.kind == "call" and node.repeat == "" and not label:
        label = node.function
    if node.arrow == "⊕" and node.added:
        label = (label + " " if label else "") + f"+ {node.added}"
    if node.repeat:
        label += f" {node.repeat}"
    return label


def architecture_text(found: Architecture) -> str:
    """One line per box (`↓ name  type`), params below (layers) or to the right
    (operations), frames drawn with ┌ │ └, one block per function."""
    blocks = []
    for section in found.sections:
        rows: list[tuple[str, str, str, str]] = []
        _rows(section.nodes, "", rows, found.detail)
        width = max((len(p + label) for p, label, _, _ in rows if label is not None), default=0) + 2
        type_width = max((len(type_) for _, _, type_, _ in rows), default=0) + 2
        lines = [f"{section.function}  {section.path.rsplit('/', 1)[-1]}:{section.line}"]
        for prefix, label, type_, extra in rows:
            if label is None:
                lines.append(prefix)
                continue
            line = f"  {(prefix + label).ljust(width)}{type_}"
            if extra and found.detail == "operations":
                line = f"  {(prefix + label).ljust(width)}{type_.ljust(type_width)}{extra}"
            lines.append(line.rstrip())
            if extra and found.detail != "operations":
                for part in extra.split("\n"):
                    lines.append(f"  {_bars(prefix)}{PARAM_INDENT}{part}".rstrip())
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _bars(prefix: str) -> str:
    return prefix.replace("┌ ", "│ ").replace("└ ", "  ")


def _rows(nodes: list[Node], prefix: str, rows: list, detail: str) -> None:
    for node in nodes:
        extra = _held(node, detail)
        if node.children:
            rows.append((prefix + "┌ ", box_label(node), node.type, extra))
            _rows(node.children, prefix + "│ ", rows, detail)
            rows.append((f"  {prefix}└", None, "", ""))
            continue
        label = f"{node.arrow} {box_label(node)}" if node.arrow.strip() else box_label(node)
        rows.append((prefix, label, node.type, extra))


def _held(node: Node, detail: str) -> str:
    if node.kind == "field":
        return ""
    params = ", ".join(f"{held.name} {held.type}" for held in node.params)
    beside = ", ".join(f"{held.name} {held.type}" for held in node.beside)
    if detail == "operations":
        parts = [f"{held.as_written} {held.type}" for held in node.params] + [
            f"{held.name} {held.type}" for held in node.beside
        ]
        return ("← " + ", ".join(parts)) if parts else ""
    lines = []
    if params and node.kind != "frame":
        lines.append(params)
    if beside:
        lines.append(f"← {beside}")
    return "\n".join(lines)
