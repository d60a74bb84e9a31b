"""What both levels do last: fold repeated calls, put a loss's other inputs beside it,
choose each box's arrow, keep to 32 boxes, number the boxes, and widen a layer made of
operations on several lines to those whole lines."""

from __future__ import annotations

from shapescript.architecture.nodes import Held, Node, walk
from shapescript.syntax.source import Span

MAX_BOXES = 32
#: Layers made of several operations, whose code is selected as whole lines.
GROUPED_KINDS = ("attention", "mlp", "linear")


def fold_repeats(nodes: list[Node]) -> list[Node]:
    """Calls of one function in a row, each on the one before's result, as one `× k` box."""
    result: list[Node] = []
    count = 1
    for node in nodes:
        node.children = fold_repeats(node.children)
        previous = result[-1] if result else None
        if (
            previous is not None
            and node.function
            and node.function == previous.function
            and not previous.repeat.startswith("× L")
            and previous.value in node.inputs
            and (not previous.repeat or count > 1)
        ):
            count += 1
            previous.repeat = f"× {count}"
            previous.value = node.value
            if previous.span is not None and node.span is not None:
                previous.span = previous.span.cover(node.span)
            continue
        count = 1
        result.append(node)
    return result


def beside_losses(nodes: list[Node]) -> list[Node]:
    """A loss's inputs that nothing else reads, such as labels, beside it rather than above."""
    readers: dict[int, int] = {}
    for node in walk(nodes):
        for value in node.inputs:
            readers[value] = readers.get(value, 0) + 1
    dropped: set[int] = set()
    for index, node in enumerate(nodes):
        if node.kind != "loss":
            continue
        for other in nodes[:index]:
            if (
                other.kind == "input"
                and other.value in node.inputs[1:]
                and readers.get(other.value) == 1
            ):
                node.beside.append(Held(other.label, other.type))
                dropped.add(other.value)
    return [node for node in nodes if not (node.kind == "input" and node.value in dropped)]


def arrows(nodes: list[Node], names: dict[int, str]) -> None:
    """`•` for inputs, `⊕` for a sum with a value from further up (named), `↓` otherwise."""
    previous: Node | None = None
    for node in nodes:
        arrows(node.children, names)
        if node.kind == "input":
            node.arrow = "•"
        elif node.op in ("add", "residual") and len(node.inputs) == 2 and not node.params:
            others = [value for value in node.inputs if previous is None or value != previous.value]
            if previous is not None and len(others) == 1:
                node.arrow = "⊕"
                node.added = names.get(others[0], "")
        previous = node


def count(nodes: list[Node]) -> int:
    return sum(1 for _ in walk(nodes))


def limit(nodes: list[Node]) -> list[Node]:
    """At most 32 boxes: innermost frames become one box each, then the last are counted."""
    while count(nodes) > MAX_BOXES:
        innermost = [
            node
            for node in walk(nodes)
            if node.children and not any(child.children for child in node.children)
        ]
        if not innermost:
            break
        for node in innermost:
            node.children = []
    if count(nodes) <= MAX_BOXES:
        return nodes
    kept: list[Node] = []
    for node in nodes:
        if count(kept) + count([node]) > MAX_BOXES - 1:
            break
        kept.append(node)
    hidden = count(nodes) - count(kept)
    kept.append(Node("more", f"… {hidden} more", arrow=" "))
    return kept


def number(nodes: list[Node], prefix: str, start: int = 0) -> int:
    """Ids in drawing order: `forward.1`, `forward.2`, …"""
    for node in nodes:
        start += 1
        node.id = f"{prefix}.{start}"
        start = number(node.children, prefix, start)
    return start


def whole_lines(nodes: list[Node], text: str) -> None:
    """Widens each layer whose operations are on several lines to start where its first
    line's code starts, so that selecting it takes in the whole statement there (the
    `q, k, v =` of a projection's split), not just the operation's own characters."""
    for node in walk(nodes):
        span = node.span
        if node.kind not in GROUPED_KINDS or span is None:
            continue
        line_start = text.rfind("\n", 0, span.start) + 1
        if "\n" not in text[span.start : span.end]:
            continue
        indent = len(text[line_start : span.start]) - len(text[line_start : span.start].lstrip())
        node.span = Span(line_start + indent, span.end)
