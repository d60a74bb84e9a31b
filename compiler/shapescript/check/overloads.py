"""Overloaded functions: several functions of one name, each taking another model first.

The declarations pass admits them (E2307 for those that can't share a name); a call picks
the one for its first argument's model (E2308). Where a call looks is one question,
`functions_for`: the calling file's functions of the name, and those of the file that
declares the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.program import CallTarget, Reference, Symbol
from shapescript.check.type_variables import looks_generic
from shapescript.check.types import ModelType, PythonType, Type, UnknownType, format_type
from shapescript.diagnostics.diagnostic import Label
from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.bodies import BodyChecker
    from shapescript.check.env import Arg
    from shapescript.check.module_scope import ModuleScope
    from shapescript.check.reporter import Reporter
    from shapescript.check.signatures import Signature


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


# ---------------------------------------------------------------------- calls


def functions_for(checker: BodyChecker, name: str, model: str) -> dict[str, Signature]:
    """The functions a call of `name` with a first argument of model `model` may mean, by
    the model each takes first: the calling file's functions of that name, and those of
    the file that declares the model (the calling file's own first). A qualified name,
    `attention.forward`, means only that file's."""
    from shapescript.check import imports

    scope = checker.scope
    home = _foreign_home(checker)
    if "." in name:
        prefix, _, plain = name.rpartition(".")
        found = imports.functions_in(scope, prefix, plain)
        if prefix == home and model.rpartition(".")[0] != home:
            # In an instance of that file's generic function, the model's file is
            # looked in too, after the generic function's own.
            return _model_files(checker, plain, model) | found
        return found
    if home is not None and "." in model:
        # The generic function's file doesn't declare the name: only the model's file has
        # it (not this file, unless it declares the model).
        return _model_files(checker, name, model)
    found: dict[str, Signature] = {}
    prefix, dot, _ = model.rpartition(".")
    if dot:
        found.update(imports.functions_in(scope, prefix, name))
    return found | _own_functions(scope, name)


def _foreign_home(checker: BodyChecker) -> str | None:
    """In an instance of another file's generic function, the prefix of that file."""
    instance = getattr(checker, "instance", None)
    return instance.home.prefix if instance is not None else None


def _model_files(checker: BodyChecker, name: str, model: str) -> dict[str, Signature]:
    """The functions `name` of the file that declares `model` that take a model first."""
    from shapescript.check import imports

    prefix, dot, _ = model.rpartition(".")
    if dot:
        return imports.functions_in(checker.scope, prefix, name)
    return _own_functions(checker.scope, name)


def _own_functions(scope: ModuleScope, name: str) -> dict[str, Signature]:
    """This file's functions `name` that take a model first, by the model."""
    overloads = scope.overload_sets.get(name)
    if overloads is not None:
        return overloads.signatures()
    own = scope.signatures.get(name)
    if own is None or own.extern or not own.params:
        return {}
    first = own.params[0].type
    return {first.name: own} if isinstance(first, ModelType) else {}


#: What `pick` gives for a name no file declares and no instance needs.
NOT_DECLARED = object()


def pick(
    checker: BodyChecker,
    name: str,
    args: list[Arg],
    where: Span,
    returns: str | None = None,
):
    """The function a call of `name` means, for its first argument (`args` as given);
    None after E2308, after noting a function a generic instance needs (E2311), or when
    an unknown type leaves it open; `NOT_DECLARED` for a name no function has.

    A generic function of the calling file is the function, whatever the argument. Of
    the functions that take a model first (`functions_for`), the one for the argument's
    model; a name of one function means it whatever the argument (a misfit is reported as
    for any call), except in a generic instance, where a model none takes is a need.
    `returns` is what the needed function must return, for E2311's help.
    """
    from shapescript.check import imports

    scope = checker.scope
    own = scope.signatures.get(name) or imports.signature_of(scope, name)
    if own is not None and own.is_generic:
        return own
    first = first_argument(args)
    first_type = first.type if first is not None else None
    overloads = scope.overload_sets.get(name) or imports.overload_set(scope, name)
    if isinstance(first_type, ModelType):
        found = functions_for(checker, name, first_type.name)
        chosen = found.get(first_type.name)
        if chosen is None and found and own is None and overloads is None:
            # Only the model's file has functions of the name, for other models.
            overloads = OverloadSet(name)
            for model, signature in found.items():
                overloads.members[model] = Overload(model, signature.decl, 0, signature)
        if chosen is not None:
            imported = imports.call_target(scope, chosen, first_type.name)
            if imported is not None:
                if imported.python_name != name:
                    checker.facts.call_targets[where] = imported
            elif "." in name:
                # Another file's name, in an instance of its generic function, that found
                # this file's function for this file's model.
                key = (first_type.name,)
                own_set = scope.overload_sets.get(chosen.name)
                python = python_name(chosen.name, key) if own_set is not None else chosen.name
                checker.facts.call_targets[where] = CallTarget(chosen.name, key, python)
            elif overloads is not None:
                key = (first_type.name,)
                checker.facts.call_targets[where] = CallTarget(name, key, python_name(name, key))
                _refer(checker, where, overloads.members[first_type.name])
            return chosen
        if needs_model(checker, first_type):
            checker.instance.need(checker, name, first_type.name, where, args, returns)
            return None
    if overloads is None:
        return own if own is not None else NOT_DECLARED
    if first is None:
        return own  # the missing argument is reported as for any call
    if isinstance(first_type, UnknownType):
        return None
    _no_overload(checker, overloads, first, where)
    return None


def first_argument(args: list[Arg]) -> Arg | None:
    """The argument a call picks its overload by: the first one given by position."""
    return next((arg for arg in args if arg.name is None), None)


def means_builtin(checker: BodyChecker, name: str) -> bool:
    """Whether a plain name called in an instance of another file's generic function is a
    built-in (or the prelude's) there, whatever this file declares: that file's names
    mean what they mean in it."""
    instance = getattr(checker, "instance", None)
    if instance is None or instance.home.prefix is None or "." in name:
        return False
    from shapescript.check.builtin_rules import KNOWN

    return name in KNOWN or name in checker.program.prelude.signatures


def needs_model(checker: BodyChecker, type_: Type | None) -> bool:
    """Whether `type_` is the model of a type variable of the generic instance being checked."""
    instance = getattr(checker, "instance", None)
    return instance is not None and isinstance(type_, ModelType) and type_.name in instance.models


def _no_overload(checker: BodyChecker, overloads: OverloadSet, first: Arg, where: Span) -> None:
    models = list(overloads.members)
    taken = ", ".join(models[:-1]) + f" or {models[-1]}" if len(models) > 1 else models[0]
    type_ = first.type
    if isinstance(type_, ModelType):
        message = f"no `{overloads.name}` takes the model {type_.name} first"
        help_text = (
            f"declare a `{overloads.name}` for {type_.name}, in this file or the one that "
            "declares it"
        )
    else:
        shown = "a value from Python" if isinstance(type_, PythonType) else format_type(type_)
        message = f"`{overloads.name}` is chosen by its first argument's model, and this is {shown}"
        help_text = "pass a model first; a Python value can say which with `as`, as in `x as Mlp`"
    checker.reporter.report(
        "E2308",
        message,
        first.span,
        format_type(type_),
        notes=[f"the `{overloads.name}` functions take {taken} first"],
        help=help_text,
    )


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


def _refer(checker: BodyChecker, where: Span, member: Overload) -> None:
    """The name at `where` refers to the overload picked, not the first of its name."""
    if checker.scope.functions.get(member.decl.name) is member.decl:
        return
    doc = member.decl.doc.text if member.decl.doc is not None else None
    symbol = Symbol(
        member.decl.name,
        "fn",
        _shifted(member.decl.name_span, member.base),
        checker.scope.path,
        doc=doc,
    )
    references = checker.facts.references
    for index in range(len(references) - 1, -1, -1):
        if references[index].span == where:
            references[index] = Reference(where, symbol)
            return
