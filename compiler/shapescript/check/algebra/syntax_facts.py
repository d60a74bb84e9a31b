"""Facts read off the syntax tree: walking it, whether statements always return, the
names a written type uses."""

from __future__ import annotations

from shapescript.syntax import ast
from shapescript.syntax.source import Span

#: The prelude's math functions of one value (prelude.ss), each elementwise and smooth.
PRELUDE_MATH = frozenset(
    {
        "exp",
        "log",
        "log1p",
        "expm1",
        "sqrt",
        "rsqrt",
        "sin",
        "cos",
        "tanh",
        "sigmoid",
        "erf",
        "gelu",
        "silu",
        "softplus",
        "log_sigmoid",
    }
)


def always_returns(stmts: list[ast.Stmt]) -> bool:
    for stmt in stmts:
        if isinstance(stmt, ast.Return):
            return True
        if (
            isinstance(stmt, ast.If)
            and stmt.else_body is not None
            and always_returns(stmt.then_body)
            and always_returns(stmt.else_body)
        ):
            return True
        if isinstance(stmt, ast.ErrorStmt):
            return True
    return False


def cover_spans(spans: list[Span]) -> Span:
    return Span(min(s.start for s in spans), max(s.end for s in spans))


def type_names(written: ast.TypeExpr) -> list[tuple[str, Span]]:
    """The size names a written type uses, with their spans, in the order written."""
    names: list[tuple[str, Span]] = []
    if written.shape is not None:
        for item in written.shape.axes:
            _axis_names(item, names)
    for word in written.words:
        if word.arg is not None:
            _size_names(word.arg, names)
    return names


# Module functions, not closures inside `type_names`: a closure that calls itself is a
# reference cycle, which only the cyclic collector frees, and checking pauses it (a 1 MB
# file of small functions kept 11 MB of them).
def _size_names(node, names: list[tuple[str, Span]]) -> None:
    if isinstance(node, ast.SizeName):
        names.append((node.name, node.span))
    elif isinstance(node, ast.SizeBinary):
        _size_names(node.left, names)
        _size_names(node.right, names)


def _axis_names(node, names: list[tuple[str, Span]]) -> None:
    if isinstance(node, ast.SizeAxis):
        _size_names(node.size, names)
    elif isinstance(node, ast.GroupAxis):
        for item in node.items:
            _axis_names(item, names)
    elif isinstance(node, ast.GroupedSizeAxis):
        names.append((node.name, node.span))


#: Each node class's slots that may hold a node, as `walk` reads them.
_SLOTS: dict[type, tuple[str, ...]] = {}
#: Field types, as the syntax tree's records write them, that never hold a node.
_NEVER_NODES = frozenset(
    {
        "Span",
        "Span | None",
        "str",
        "str | None",
        "bool",
        "int",
        "int | None",
        "float",
        "list[str]",
        "list[int]",
        "list[int] | None",
        "list[Span]",
    }
)


def _node_slots(node) -> tuple[str, ...]:
    """The slots of a node's class (its own, as `__slots__` lists them) but those whose
    declared type says they hold no node."""
    cls = node.__class__
    annotations: dict[str, object] = {}
    for klass in reversed(cls.__mro__):
        annotations.update(klass.__dict__.get("__annotations__", {}))
    return tuple(
        name for name in getattr(node, "__slots__", ()) if annotations.get(name) not in _NEVER_NODES
    )


def _is_node(value: object) -> bool:
    """Whether a value is a syntax node (a slotted record with a span), decided once per
    class: `walk` asks it of every value it meets."""
    kind = value.__class__
    found = _NODE_CLASSES.get(kind)
    if found is None:
        found = _NODE_CLASSES[kind] = hasattr(value, "__slots__") and hasattr(value, "span")
    return found


#: Whether each class met is a syntax node's (`_is_node`).
_NODE_CLASSES: dict[type, bool] = {list: False, str: False, int: False, type(None): False}


def children(node) -> list:
    """The syntax nodes directly inside a node, in the order of its fields."""
    found: list = []
    names = _SLOTS.get(node.__class__)
    if names is None:
        names = _SLOTS[node.__class__] = _node_slots(node)
    node_classes = _NODE_CLASSES
    for name in names:
        value = getattr(node, name, None)
        if value.__class__ is list:
            for child in value:
                if node_classes.get(child.__class__) or (
                    child.__class__ not in node_classes and _is_node(child)
                ):
                    found.append(child)
        elif node_classes.get(value.__class__) or (
            value.__class__ not in node_classes and _is_node(value)
        ):
            found.append(value)
    return found


def walk(node):
    """Every syntax node inside a node, depth first.

    The loop of `children` is written out here: walks run over whole files on every check,
    and a list per node made them about 40% slower."""
    stack = [node]
    push = stack.append
    slots_of = _SLOTS
    node_classes = _NODE_CLASSES
    while stack:
        current = stack.pop()
        yield current
        names = slots_of.get(current.__class__)
        if names is None:
            names = slots_of[current.__class__] = _node_slots(current)
        for name in names:
            value = getattr(current, name, None)
            if value.__class__ is list:
                for child in value:
                    if node_classes.get(child.__class__) or (
                        child.__class__ not in node_classes and _is_node(child)
                    ):
                        push(child)
            elif node_classes.get(value.__class__) or (
                value.__class__ not in node_classes and _is_node(value)
            ):
                push(value)
