"""`assert` in a function body: decided for every size, and again at each call.

In the body, each comparison of the condition whose sides are sizes (ints whose size
the checker knows) is decided by `algebra.assertions`: proved ones vanish from the
compiled code, one that fails for every value is E3501, and the rest are checked at run
time. A relation that holds once proved or asserted is a fact the later statements of
the same block use (`size_facts`: a slice `x[0:n]` of a `[T D]` after `assert n <= T`;
`divisibility_facts`: `assert n % h == 0` proves a later `(3*n) % h == 0`).
At a call the callee's asserts over its generic sizes are decided again with the sizes
the call gives them, and one that then fails is E3501 at the call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from shapescript.check.algebra.assertions import (
    DIVIDES,
    PROVED,
    REFUTED,
    RUNTIME,
    SWAPPED,
    Relation,
    Verdict,
    decide,
    evaluated,
    example,
    facts_of,
    written_text,
)
from shapescript.check.algebra.sizes import Poly, format_size
from shapescript.check.algebra.types import HostType, PythonType, Type, UnknownType, format_type
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.algebra.reporter import Reporter
    from shapescript.check.bodies.context import BodyContext
    from shapescript.check.declarations.signatures import Signature
    from shapescript.syntax.source import Span

CODE = "E3501"


def conjuncts(condition: ast.Expr) -> list[ast.Expr]:
    """The parts of `a and b and c`, in order (without recursion: `and` nests leftwards)."""
    parts: list[ast.Expr] = []
    pending = [condition]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Binary) and node.op == "and":
            pending.append(node.right)
            pending.append(node.left)
        else:
            parts.append(node)
    return parts


def _size_of(type_: Type | None) -> Poly | None:
    if isinstance(type_, HostType) and type_.kind == "int":
        return type_.size
    return None


def divisibility_operands(part: ast.Expr) -> tuple[ast.Expr, ast.Expr] | None:
    """`a` and `b` of `a % b == 0` (or `0 == a % b`), else None."""
    if not isinstance(part, ast.Binary) or part.op != "==":
        return None
    for remainder, zero in ((part.left, part.right), (part.right, part.left)):
        if (
            isinstance(zero, ast.IntLit)
            and zero.value == 0
            and isinstance(remainder, ast.Binary)
            and remainder.op == DIVIDES
        ):
            return remainder.left, remainder.right
    return None


def _written_relation(
    part: ast.Expr, size_of: Callable[[ast.Expr], Poly | None]
) -> Relation | None:
    """A comparison or divisibility of two sizes (as `size_of` reads them), as a relation."""
    operands = divisibility_operands(part)
    if operands is not None:
        op, left_node, right_node = DIVIDES, operands[0], operands[1]
    elif isinstance(part, ast.Binary) and part.op in SWAPPED:
        op, left_node, right_node = part.op, part.left, part.right
    else:
        return None
    left = size_of(left_node)
    right = size_of(right_node)
    if left is None or right is None:
        return None
    return Relation(op, left, right)


def relation_in_body(checker: BodyContext, part: ast.Expr) -> Relation | None:
    """A comparison (or divisibility) of two ints whose sizes the checker knows."""
    types = checker.facts.types
    return _written_relation(part, lambda node: _size_of(types.get(node.span)))


def check_assert(checker: BodyContext, stmt: ast.Assert) -> None:
    """Type the condition, decide each relation in it, and note the verdict and facts."""
    type_ = checker.expr(stmt.condition)
    if not (
        (isinstance(type_, HostType) and type_.kind == "bool")
        or isinstance(type_, PythonType | UnknownType)
    ):
        checker.reporter.report(
            "E0802",
            f"an assert needs a bool, not {format_type(type_)}",
            stmt.condition.span,
            "not true or false",
            help="assert a relation of sizes or host values, as in `assert n <= T`; to "
            "check a tensor's values, give it a domain",
        )
        checker.facts.asserts[stmt.span] = Verdict(RUNTIME, "its condition isn't a bool")
        return
    dims = checker.scope.dim_values
    undecided: list[str] = []
    for part in conjuncts(stmt.condition):
        relation = relation_in_body(checker, part)
        if relation is None:
            undecided.append(_part_text(checker, part.span))
            continue
        verdict = decide(relation, dims, checker.size_facts, checker.divisibility_facts)
        if verdict == REFUTED:
            detail = _counterexample(relation, dims)
            checker.reporter.report(
                CODE,
                f"this assert fails for every size: {detail}",
                part.span,
                "never true",
                help="fix the relation or the sizes it compares; an assert states what "
                "must hold for every call",
            )
            checker.facts.asserts[stmt.span] = Verdict(REFUTED, detail)
            return
        if verdict == RUNTIME:
            undecided.append(_part_text(checker, part.span))
        checker.size_facts.extend(facts_of(relation, dims))
        if relation.op == DIVIDES:
            checker.divisibility_facts.append(relation)
    if undecided:
        shown = ", ".join(f"`{text}`" for text in undecided)
        verb = "depends" if len(undecided) == 1 else "depend"
        checker.facts.asserts[stmt.span] = Verdict(RUNTIME, f"{shown} {verb} on the values")
    else:
        checker.facts.asserts[stmt.span] = Verdict(PROVED)


def _part_text(checker: BodyContext, span: Span) -> str:
    base = checker.base
    return written_text(checker.source_text, base + span.start, base + span.end)


def _counterexample(relation: Relation, dims) -> str:
    values = example(relation, dims)
    where = ", ".join(f"{name} = {value}" for name, value in values.items())
    shown = evaluated(relation, values, dims)
    if where:
        return f"for {where}, `{relation}` is `{shown}`"
    return f"`{relation}` is `{shown}`"


# ---------------------------------------------------------------- at the top level


def check_top_level(stmt: ast.Assert, dims: dict[str, Poly], reporter: Reporter) -> Verdict:
    """A top-level assert compares dims, whose values are known: proved or E3501.
    Anything but a comparison of sizes over dims is E3502."""
    names = set(dims)

    def size_of(node: ast.Expr) -> Poly | None:
        return _size_expr(node, names)

    for part in conjuncts(stmt.condition):
        relation = _written_relation(part, size_of)
        if relation is None:
            reporter.report(
                "E3502",
                "a top-level assert compares dims: sizes made of dims and integers with "
                "+, - and *, by a comparison or as `a % b == 0`, joined by `and`",
                part.span,
                "not a comparison of dims",
                help="move an assert about values into the function that has them",
            )
            return Verdict(RUNTIME, "not a comparison of dims")
        if decide(relation, dims) != PROVED:
            names = sorted(relation.left.symbols() | relation.right.symbols())
            values = ", ".join(f"{name} = {format_size(dims[name])}" for name in names)
            shown = f"`{relation}` is `{evaluated(relation, {}, dims)}`"
            detail = f"with {values}, {shown}" if values else shown
            reporter.report(
                CODE,
                f"this assert fails: {detail}",
                part.span,
                "false",
                help="change the dims so that the relation holds, or the relation",
            )
            return Verdict(REFUTED, detail)
    return Verdict(PROVED)


# ---------------------------------------------------------------- at each call


def _size_expr(node: ast.Expr, names: set[str]) -> Poly | None:
    """A size written in an assert, over `names` (generic sizes and dims); None when the
    expression is anything else. Walks the tree on an explicit stack."""
    results: list[Poly | None] = []
    pending: list[tuple[ast.Expr, bool]] = [(node, False)]
    while pending:
        current, visited = pending.pop()
        if isinstance(current, ast.Binary) and current.op in ("+", "-", "*"):
            if not visited:
                pending.append((current, True))
                pending.append((current.right, False))
                pending.append((current.left, False))
                continue
            right = results.pop()
            left = results.pop()
            if left is None or right is None:
                results.append(None)
            elif current.op == "+":
                results.append(left + right)
            elif current.op == "-":
                results.append(left - right)
            else:
                results.append(left * right)
        elif isinstance(current, ast.Unary) and current.op == "-":
            if not visited:
                pending.append((current, True))
                pending.append((current.operand, False))
                continue
            operand = results.pop()
            results.append(None if operand is None else -operand)
        elif isinstance(current, ast.IntLit):
            results.append(Poly.const(current.value))
        elif isinstance(current, ast.Name) and current.name in names:
            results.append(Poly.symbol(current.name))
        else:
            results.append(None)
    return results[0]


def signature_relations(
    signature: Signature, dims: set[str]
) -> list[tuple[Relation, ast.Assert, str]]:
    """The relations over generic sizes and dims in the top-level asserts of a fn's body,
    with each one's assert and text."""
    decl = signature.decl
    body = getattr(decl, "body", None)
    if not body or not signature.generics:
        return []
    names = set(signature.generics) | dims
    found = []
    for stmt in body:
        if not isinstance(stmt, ast.Assert):
            continue
        for part in conjuncts(stmt.condition):
            relation = _written_relation(part, lambda node: _size_expr(node, names))
            if relation is None:
                continue
            if not (relation.left.symbols() | relation.right.symbols()) & set(signature.generics):
                continue
            found.append((relation, stmt, str(relation)))
    return found


def _relations_memo(
    checker: BodyContext, signature: Signature
) -> list[tuple[Relation, ast.Assert, str]]:
    """`signature_relations`, worked out once per function and analysis (a function is
    called from many places)."""
    body = getattr(signature.decl, "body", None)
    if not signature.generics or not body or not any(type(stmt) is ast.Assert for stmt in body):
        # Most functions assert nothing: no need for a set of every dim of the file.
        return []
    memo = checker.program.memo.setdefault("assert_relations", {})
    key = id(signature.decl)
    found = memo.get(key)
    if found is None or found[0] is not signature.decl or found[1] is not signature:
        found = (
            signature.decl,
            signature,
            signature_relations(signature, set(checker.scope.dim_values)),
        )
        memo[key] = found
    return found[2]


def check_call(
    checker: BodyContext,
    signature: Signature,
    values: dict[str, Poly],
    span: Span,
    written: Callable[[], dict[str, Poly]],
) -> None:
    """E3501 at a call whose sizes make one of the callee's asserts fail. `written` gives
    the sizes as the caller writes them, for the message."""
    dims = checker.scope.dim_values
    for relation, stmt, text in _relations_memo(checker, signature):
        given = relation.substitute(values)
        if decide(given, dims, checker.size_facts, checker.divisibility_facts) != REFUTED:
            continue
        generics = sorted((relation.left.symbols() | relation.right.symbols()) & set(values))
        sample = example(given, dims)
        numbers = {
            name: values[name]
            .substitute(dims)
            .substitute({key: Poly.const(value) for key, value in sample.items()})
            for name in generics
        }
        at = ", ".join(f"{name} = {format_size(numbers[name])}" for name in generics)
        if sample:
            chosen = ", ".join(f"{name} = {value}" for name, value in sample.items())
            at += f" (with {chosen}; it fails for every {', '.join(sample)})"
        shown = written()
        where = ", ".join(
            f"{name} = {format_size(shown[name])}"
            for name in generics
            if name in shown
            and not any(symbol.startswith("$") for symbol in shown[name].symbols())
            and format_size(shown[name]) != format_size(numbers[name])
        )
        line = _line_of(checker, span)
        message = (
            f"`assert {text}` in `{signature.name}` fails for {at} when called from "
            f"`{checker.decl.name}` at line {line}"
        )
        if where:
            message += f", where {where}"
        checker.reporter.report(
            CODE,
            message,
            span,
            "this call breaks the assert",
            notes=_assert_place(checker, signature, stmt),
            help=f"call `{signature.name}` with sizes for which `{text}` holds",
        )
        return


def _assert_place(checker: BodyContext, signature: Signature, stmt: ast.Assert) -> list[str]:
    """A note naming the line of the callee's assert, when it is in this file."""
    index = checker.program.item_index.get(id(signature.decl))
    if index is None:
        return []
    start = checker.program.module.base_of(index) + stmt.span.start
    line = checker.program.source_text.count("\n", 0, start) + 1
    return [f"the assert is at line {line}, in `{signature.name}`"]


def _line_of(checker: BodyContext, span: Span) -> int:
    return checker.source_text.count("\n", 0, checker.base + span.start) + 1


__all__ = ["PROVED", "REFUTED", "RUNTIME", "check_assert", "check_call", "conjuncts"]
