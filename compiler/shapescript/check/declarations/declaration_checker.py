"""What the checkers of model, data and logs declarations share: reporting, spans, field types."""

from __future__ import annotations

from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.types import Type
from shapescript.check.declarations.module_scope import ModuleScope
from shapescript.check.declarations.symbols import Facts, Reference, Symbol
from shapescript.check.declarations.type_exprs import TypeResolver
from shapescript.syntax import ast
from shapescript.syntax.source import Span


class DeclarationChecker:
    """Checks one declaration whose item starts at `base`; `ok` turns False at its first error."""

    def __init__(self, scope: ModuleScope, reporter: Reporter, facts: Facts, base: int) -> None:
        self.scope = scope
        self.reporter = reporter
        self.facts = facts
        self.base = base
        self.ok = True

    def _absolute(self, span: Span) -> Span:
        return Span(span.start + self.base, span.end + self.base)

    def _error(self, code: str, message: str, span: Span, label: str, **extra) -> None:
        self.ok = False
        self.reporter.report(code, message, span, label, **extra)

    def _declare_field(self, owner: str, decl: ast.FieldDecl, type_: Type, detail: str) -> Symbol:
        """The field's symbol (`detail` as hovers show it), its reference and its type."""
        symbol = Symbol(
            decl.name,
            "field",
            self._absolute(decl.name_span),
            self.scope.path,
            detail,
            decl.doc.text if decl.doc is not None else None,
        )
        self.facts.references.append(Reference(decl.name_span, field=(owner, decl.name)))
        self.facts.types[decl.name_span] = type_
        return symbol

    def _resolve_field_type(self, written: ast.TypeExpr) -> Type | None:
        """The written type of a field or metric (only numbers and dims in its shape); None,
        with `ok` False, when resolving it reported an error."""
        ctx = self.scope.type_context(self._on_reference)
        ctx.mode = "field"
        before = len(self.reporter.diagnostics)
        type_ = TypeResolver(self.reporter).resolve(written, ctx)
        if len(self.reporter.diagnostics) > before:
            self.ok = False
            return None
        return type_

    def _on_reference(self, name: str, span: Span) -> None:
        if name in self.scope.symbols:
            self.facts.references.append(Reference(span, module_name=name))


def has_unknown_axis(axes: list[ast.Axis]) -> bool:
    """Whether a written shape has a `?k` axis, in a group or not."""
    for axis in axes:
        if isinstance(axis, ast.UnknownAxis):
            return True
        if isinstance(axis, ast.GroupAxis) and has_unknown_axis(axis.items):
            return True
    return False
