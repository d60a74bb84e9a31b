"""Calls of overloaded functions: which of the functions of a name a call means, by its
first argument's model (E2308), looking in the calling file and in the file that declares
the model (`functions_for`). The declarations side is `declarations/overloads.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.types import ModelType, PythonType, Type, UnknownType, format_type
from shapescript.check.declarations.overloads import Overload, OverloadSet, _shifted, python_name
from shapescript.check.declarations.symbols import CallTarget, Reference, Symbol
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext
    from shapescript.check.bodies.env import Arg
    from shapescript.check.declarations.module_scope import ModuleScope
    from shapescript.check.declarations.signatures import Signature


def functions_for(checker: BodyContext, name: str, model: str) -> dict[str, Signature]:
    """The functions a call of `name` with a first argument of model `model` may mean, by
    the model each takes first: the calling file's functions of that name, and those of
    the file that declares the model (the calling file's own first). A qualified name,
    `attention.forward`, means only that file's."""
    from shapescript.check.declarations import imports

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


def _foreign_home(checker: BodyContext) -> str | None:
    """In an instance of another file's generic function, the prefix of that file."""
    instance = getattr(checker, "instance", None)
    return instance.home.prefix if instance is not None else None


def _model_files(checker: BodyContext, name: str, model: str) -> dict[str, Signature]:
    """The functions `name` of the file that declares `model` that take a model first."""
    from shapescript.check.declarations import imports

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
    checker: BodyContext,
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
    from shapescript.check.declarations import imports

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


def means_builtin(checker: BodyContext, name: str) -> bool:
    """Whether a plain name called in an instance of another file's generic function is a
    built-in (or the prelude's) there, whatever this file declares: that file's names
    mean what they mean in it."""
    instance = getattr(checker, "instance", None)
    if instance is None or instance.home.prefix is None or "." in name:
        return False
    from shapescript.check.bodies.builtin_rules import KNOWN

    return name in KNOWN or name in checker.program.prelude.signatures


def needs_model(checker: BodyContext, type_: Type | None) -> bool:
    """Whether `type_` is the model of a type variable of the generic instance being checked."""
    instance = getattr(checker, "instance", None)
    return instance is not None and isinstance(type_, ModelType) and type_.name in instance.models


def _no_overload(checker: BodyContext, overloads: OverloadSet, first: Arg, where: Span) -> None:
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


def _refer(checker: BodyContext, where: Span, member: Overload) -> None:
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
