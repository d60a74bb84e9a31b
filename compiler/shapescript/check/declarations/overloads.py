"""Overloaded functions: several functions of one name, each taking another model first.

The declarations pass admits them (E2307 for those that can't share a name); a call picks
the one for its first argument's model (E2308). Where a call looks is one question,
`functions_for`: the calling file's functions of the name, and those of the file that
declares the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.declarations.type_variables import looks_generic
from shapescript.diagnostics.diagnostic import Label
from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.algebra.reporter import Reporter
    from shapescript.check.declarations.module_scope import ModuleScope
    from shapescript.check.declarations.signatures import Signature


@record
class Overload:
    """One function of an overloaded name: its first parameter's model, as written."""

    model: str
    decl: ast.FnDecl
    base: int
    signature: Signature | None = None


@record
class OverloadSet:
    """The functions of one name that take a model first, by model, in declaration order."""

    name: str
    members: dict[str, Overload] = field(default_factory=dict)

    def signatures(self) -> dict[str, Signature]:
        return {
            model: member.signature
            for model, member in self.members.items()
            if member.signature is not None
        }


def python_name(function: str, key: tuple[str, ...]) -> str:
    """The compiled function of an overload or an instance: `_ss_forward__Mlp`."""
    return "_ss_" + function + "".join("__" + part.replace(".", "_") for part in key)


def first_param_model(decl: ast.FnDecl, models) -> str | None:
    """The model a function's first parameter takes, as written, if it is one."""
    if decl.params and decl.params[0].type is not None:
        written = decl.params[0].type
        if written.shape is None and len(written.words) == 1 and written.dtype is None:
            word = written.words[0]
            if word.arg is None and word.name in models:
                return word.name
    return None


# ---------------------------------------------------------------------- declarations


@record
class _Seen:
    """The first function of a name: whether it takes a model first (which), or is generic."""

    decl: ast.FnDecl
    base: int
    model: str | None
    generic: bool


class FunctionNames:
    """Which functions of a file may share a name, as the declarations pass meets them."""

    def __init__(self, models: set[str], declared: set[str]) -> None:
        self.models = models
        self.declared = declared
        #: The first function of each name, as its declaration and base until another
        #: function of the name needs what it takes first (most names are declared once).
        self.first: dict[str, _Seen | tuple[ast.FnDecl, int]] = {}

    def _seen(self, decl: ast.FnDecl, base: int) -> _Seen:
        model = first_param_model(decl, self.models)
        generic = looks_generic(decl, self.declared)
        return _Seen(decl, base, None if generic else model, generic)

    def admit(self, scope: ModuleScope, decl: ast.FnDecl, base: int, reporter: Reporter) -> bool:
        """Whether the declarations pass declares `decl` as the name's symbol; False when
        it is a further overload of the name, or can't share the name (E2307)."""
        name = decl.name
        first = self.first.get(name)
        symbol = scope.symbols.get(name)
        if first is None or symbol is None or symbol.kind != "fn":
            if first is None:
                self.first[name] = (decl, base)
            return True
        if isinstance(first, tuple):
            first = self.first[name] = self._seen(*first)
        seen = self._seen(decl, base)
        if first.model is None and seen.model is None and not (first.generic or seen.generic):
            return True  # neither takes a model first: E0302, as for any name
        overloads = scope.overload_sets.get(decl.name)
        if overloads is None and first.model is not None:
            overloads = OverloadSet(decl.name)
            overloads.members[first.model] = Overload(first.model, first.decl, first.base)
        clash = _clash(first, seen, overloads)
        if clash is None and overloads is not None:
            overloads.members[seen.model] = Overload(seen.model, decl, base)
            scope.overload_sets[decl.name] = overloads
            return False
        message, other = clash or ("", first)
        reporter.report(
            "E2307",
            message,
            decl.name_span,
            "shares the name",
            secondary=[
                Label(reporter.local(_shifted(other.decl.name_span, other.base)), "the other one")
            ],
            help="rename one of them; functions share a name only when each takes another "
            "model first",
        )
        return False


def _clash(first: _Seen, seen: _Seen, overloads: OverloadSet | None) -> tuple[str, _Seen] | None:
    """Why `seen` can't share its name with the functions before it, and which one."""
    name = seen.decl.name
    if seen.generic or first.generic:
        return f"`{name}` is a generic function's name, so no other function can have it", first
    if seen.model is None or first.model is None:
        return (
            f"`{name}` is declared twice, and one of them doesn't take a model first",
            first,
        )
    taken = overloads.members.get(seen.model) if overloads is not None else None
    if taken is not None:
        other = _Seen(taken.decl, taken.base, taken.model, False)
        return f"`{name}` is declared twice for the model {seen.model}", other
    return None


def overload_members(scope: ModuleScope) -> list[tuple[str, ast.FnDecl, int]]:
    """Every overload but the first of each name (the first is in `scope.functions`)."""
    return [
        (name, member.decl, member.base)
        for name, overloads in scope.overload_sets.items()
        for member in overloads.members.values()
        if scope.functions.get(name) is not member.decl
    ]


def note_signature(scope: ModuleScope, decl: ast.FnDecl, signature: Signature) -> None:
    """Keep a resolved signature with its overload, when `decl` is one."""
    overloads = scope.overload_sets.get(decl.name)
    if overloads is None:
        return
    for member in overloads.members.values():
        if member.decl is decl:
            member.signature = signature


def signature_of(scope: ModuleScope, decl: ast.FnDecl) -> Signature | None:
    """The signature of a function declaration of the file, an overload's included."""
    signature = scope.signatures.get(decl.name)
    if signature is not None and signature.decl is decl:
        return signature
    overloads = scope.overload_sets.get(decl.name)
    if overloads is not None:
        for member in overloads.members.values():
            if member.decl is decl:
                return member.signature
    return None


def function_for(
    scope: ModuleScope, name: str, model: str | None
) -> tuple[ast.FnDecl | ast.ExternFnDecl | None, int, Signature | None]:
    """The file's function `name` for a first argument of `model` (the first of the name
    when that's None or none takes it), with its item's base and its signature."""
    overloads = scope.overload_sets.get(name)
    member = overloads.members.get(model) if overloads is not None and model else None
    if member is not None:
        return member.decl, member.base, member.signature
    return (
        scope.functions.get(name),
        scope.function_bases.get(name, 0),
        scope.signatures.get(name),
    )


def _shifted(span: Span, base: int) -> Span:
    return Span(span.start + base, span.end + base)
