"""Facts read off the syntax tree: walking it, and what a loop or a lambda body does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check import builtin_rules, chains
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.bodies import BodyChecker


def independent_term(term: ast.Expr, index: str, accumulators: set[str]) -> bool:
    """A term that reads no accumulator, uses the loop index only as `x[i]`, and computes."""
    allowed_index_spans = set()
    for node in walk(term):
        if isinstance(node, ast.Index) and len(node.items) == 1:
            item = node.items[0]
            if isinstance(item, ast.Name) and item.name == index:
                allowed_index_spans.add(item.span)
    for node in walk(term):
        if isinstance(node, ast.Name):
            if node.name in accumulators:
                return False
            if node.name == index and node.span not in allowed_index_spans:
                return False
        if isinstance(node, ast.Call) and (
            (isinstance(node.callee, ast.Name) and node.callee.name in chains.EFFECTFUL)
            or any(arg.mut for arg in node.args)
        ):
            return False
    return True


def python_call(checker: BodyChecker, member: ast.Member) -> bool:
    root = member
    while isinstance(root, ast.Member):
        root = root.target
    return (
        isinstance(root, ast.Name)
        and root.name in checker.scope.python_modules
        and (root.name not in checker.env.values)
    )


_ELEMENTWISE_CALLS = None


def elementwise_body(expr: ast.Expr) -> bool:
    """Whether a lambda body is made only of elementwise parts (so no vmap is needed)."""
    global _ELEMENTWISE_CALLS
    if _ELEMENTWISE_CALLS is None:
        _ELEMENTWISE_CALLS = builtin_rules.ELEMENTWISE | {
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
    if isinstance(expr, ast.Name | ast.IntLit | ast.FloatLit | ast.BoolLit | ast.InfLit):
        return True
    if isinstance(expr, ast.Binary):
        return expr.op != "@" and elementwise_body(expr.left) and elementwise_body(expr.right)
    if isinstance(expr, ast.Unary):
        return elementwise_body(expr.operand)
    if isinstance(expr, ast.Cast):
        return expr.kind == "to" and elementwise_body(expr.operand)
    if isinstance(expr, ast.Index):
        return (
            isinstance(expr.target, ast.Name)
            and len(expr.items) == 1
            and isinstance(expr.items[0], ast.Name)
        )
    if isinstance(expr, ast.Call):
        return (
            isinstance(expr.callee, ast.Name)
            and expr.callee.name in _ELEMENTWISE_CALLS
            and all(
                not isinstance(arg.value, ast.Pattern) and elementwise_body(arg.value)
                for arg in expr.args
            )
        )
    return False


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
    names: list[tuple[str, Span]] = []

    def size(node) -> None:
        if isinstance(node, ast.SizeName):
            names.append((node.name, node.span))
        elif isinstance(node, ast.SizeBinary):
            size(node.left)
            size(node.right)

    def axis(node) -> None:
        if isinstance(node, ast.SizeAxis):
            size(node.size)
        elif isinstance(node, ast.GroupAxis):
            for item in node.items:
                axis(item)
        elif isinstance(node, ast.GroupedSizeAxis):
            names.append((node.name, node.span))

    if written.shape is not None:
        for item in written.shape.axes:
            axis(item)
    for word in written.words:
        if word.arg is not None:
            size(word.arg)
    return names


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


def walk(node):
    """Every syntax node inside a node, depth first."""
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
