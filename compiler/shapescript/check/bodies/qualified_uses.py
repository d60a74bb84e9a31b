"""Another file's names in function bodies: `attention.f(x)`, `attention.Mlp.init(seed=0)`,
`over=attention.D`, checked as the qualified names the module scope holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.declarations.qualified import report_undeclared
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext


def qualified_member(checker: BodyContext, node: ast.Member) -> ast.Name | bool | None:
    """`attention.f` in a body: None when it isn't another file's name; False after E2304
    (or when the import itself failed); else the name as the checker calls it, at the
    member's span (the compiler finds it in `Facts.qualified`)."""
    target = node.target
    if not isinstance(target, ast.Name):
        return None
    bound = target.name
    table = checker.scope.imports
    if table is None or not table.names.is_import(bound):
        return None
    if bound in checker.env.values or bound in checker.env.axes:
        return None
    symbol = checker.scope.symbols.get(bound)
    if symbol is None or symbol.kind != "import":
        return None
    checker.refer(target.span, symbol)
    if bound in table.names.broken:
        return False
    canonical = table.names.canonical(bound, node.name)
    if canonical is None:
        report_undeclared(
            checker.reporter.report,
            table.names.files.get(bound, bound),
            bound,
            node.name,
            node.name_span,
        )
        return False
    checker.facts.qualified[node.span] = canonical
    return ast.Name(canonical, node.span)


def as_name(checker: BodyContext, node):
    """An expression, with another file's `attention.D` as the name `attention.D`."""
    if isinstance(node, ast.Member):
        found = qualified_member(checker, node)
        if isinstance(found, ast.Name):
            return found
    return node


def qualified_call(checker: BodyContext, node: ast.Call) -> ast.Call | bool | None:
    """A call of another file's function or model (`attention.f(x)`,
    `attention.Mlp.init(seed=0)`) as a call of its qualified name; None when the callee
    isn't one, False when it names nothing."""
    callee = node.callee
    if not isinstance(callee, ast.Member):
        return None
    found = qualified_member(checker, callee)
    if found is False:
        return False
    if isinstance(found, ast.Name):
        _check_exported_call(checker, found)
        return ast.Call(found, node.args, node.span, node.operands_form)
    if isinstance(callee.target, ast.Member):
        inner = qualified_member(checker, callee.target)
        if inner is False:
            return False
        if isinstance(inner, ast.Name):
            member = ast.Member(inner, callee.name, callee.name_span, callee.span)
            return ast.Call(member, node.args, node.span, node.operands_form)
    return None


def _check_exported_call(checker: BodyContext, callee: ast.Name) -> None:
    """E2306: an `export fn` can't call another file's functions."""
    symbol = checker.scope.symbols.get(callee.name)
    decl = checker.decl
    if symbol is None or symbol.kind not in ("fn", "extern") or not decl.export:
        return
    checker.reporter.report(
        "E2306",
        f"the exported function `{decl.name}` calls `{callee.name}`, another file's function",
        callee.span,
        "call into another file",
        notes=["an exported program holds only its own file's code"],
        help="put the function into this file, or don't export this one",
    )


def function_found_by_model(checker: BodyContext, node: ast.Call, value) -> bool:
    """Whether `value` is `value_and_grad`'s function given by a name this file doesn't
    declare, which the call looks for next to its model (a name of another file, or one a
    generic instance needs): it isn't a value of its own."""
    callee = node.callee
    if not (isinstance(callee, ast.Name) and callee.name == "value_and_grad"):
        return False
    if not isinstance(value, ast.Name) or "." in value.name:
        return False
    return not declared(checker, value.name)


def declared(checker: BodyContext, name: str) -> bool:
    """Whether a plain name means something where the checker is: a local, an axis, a
    declaration of the file, a built-in or a prelude function."""
    from shapescript.check.bodies import builtin_rules

    return (
        name in builtin_rules.KNOWN
        or name in checker.env.values
        or name in checker.env.axes
        or name in checker.scope.symbols
        or name in checker.scope.broken_names
        or name in checker.program.prelude.signatures
    )
