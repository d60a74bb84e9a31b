"""How deep a program may nest, and the iterative measure of a syntax tree's depth.

Two limits keep every recursive pass over a tree within the stack that `shapescript.deep`
gives it. Brackets, indented blocks and lambdas may nest `MAX_NESTING` levels; past that
the parser reports E0209 and builds nothing deeper. Chains (`a + b + ...`, `x[0][0]...`,
`- - x`) are parsed with loops and may be long, but an item whose tree ends up more than
`MAX_TREE_DEPTH` levels deep is replaced by an error node, with E0209 on the node where it
passes the limit.
"""

from __future__ import annotations

MAX_NESTING = 1_000
MAX_TREE_DEPTH = 25_000

#: A node and the tree levels under it are at most this many times the item's tokens,
#: so an item with fewer than MAX_TREE_DEPTH // NODES_PER_TOKEN tokens needs no measuring.
NODES_PER_TOKEN = 3


def _children(node: object) -> list[object]:
    found = []
    for name in getattr(node, "__slots__", ()):
        value = getattr(node, name, None)
        if isinstance(value, list):
            found.extend(
                element
                for element in value
                if hasattr(element, "__slots__") and hasattr(element, "span")
            )
        elif hasattr(value, "__slots__") and hasattr(value, "span"):
            found.append(value)
    return found


def too_deep(node: object, limit: int = MAX_TREE_DEPTH) -> object | None:
    """The first node found more than `limit` levels below `node`, or None; no recursion."""
    stack: list[tuple[object, int]] = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > limit:
            return current
        stack.extend((child, depth + 1) for child in _children(current))
    return None
