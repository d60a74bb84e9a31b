"""Whether two syntax trees are the same program: equal in everything but positions."""

from __future__ import annotations

from shapescript.syntax import ast
from shapescript.syntax.source import Span


def tree_shape(node: object) -> object:
    """A node as nested tuples of its type and fields, with every span left out."""
    if isinstance(node, Span):
        return None
    fields = getattr(type(node), "__record_fields__", None)
    if fields is not None:
        return (
            type(node).__name__,
            *(
                tree_shape(getattr(node, item.name))
                for item in fields
                if not item.name.endswith(("span", "spans")) and item.name != "bases"
            ),
        )
    if isinstance(node, list | tuple):
        return tuple(tree_shape(item) for item in node)
    if isinstance(node, dict):
        return tuple(sorted((key, tree_shape(value)) for key, value in node.items()))
    return node


def same_tree(left: ast.Module, right: ast.Module) -> bool:
    return tree_shape(left) == tree_shape(right)
