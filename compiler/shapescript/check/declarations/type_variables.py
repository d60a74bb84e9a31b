"""Type variables of generic functions: finding them in a signature (E2309), working them
out from a call's argument types, and writing the types they stand for in their place.

A type variable (`M`, `E`, `T2`) stands for a model or a data record. It appears as the
whole type of a parameter (`m: M`, `e: E`), inside `Grad[M]`, `AdamW[M]` and `SGD[M]`
(a model), and in `[b] E` and `Dataset[E]` (a data record).
"""

from __future__ import annotations

from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.syntax_facts import type_names
from shapescript.check.algebra.types import (
    BatchType,
    GradType,
    ModelType,
    NamedType,
    OptimizerType,
    Type,
)
from shapescript.check.declarations.type_exprs import is_type_variable_name
from shapescript.records import replace
from shapescript.syntax import ast

#: What a type variable may stand for, as its uses say.
MODEL = "model"
RECORD = "data record"
EITHER = "model or data record"

MODEL_WRAPPERS = ("Grad", "AdamW", "SGD")
TYPE_VARIABLE = ("type variable",)


def variables_in(type_: Type | None, named_types) -> list[tuple[str, str]]:
    """The type variables a resolved type uses, each with what it must stand for."""
    if isinstance(type_, NamedType):
        if type_.args == TYPE_VARIABLE:
            return [(type_.name, EITHER)]
        if type_.name in MODEL_WRAPPERS and len(type_.args) == 1:
            return [(type_.args[0], MODEL)]
        return [
            (arg, RECORD)
            for arg in type_.args
            if is_type_variable_name(arg) and arg not in named_types
        ]
    record_name = getattr(type_, "record", None)
    if isinstance(record_name, str) and _is_variable(record_name, named_types):
        return [(record_name, RECORD)]
    return []


def _is_variable(name: str, named_types) -> bool:
    return is_type_variable_name(name) and name not in named_types


def signature_variables(
    decl: ast.FnDecl | ast.ExternFnDecl,
    param_types: list[Type],
    return_type: Type | None,
    axes,
    named_types,
    reporter: Reporter,
) -> dict[str, str]:
    """The type variables of a signature's parameters, in order, with what each stands
    for; E2309 for one that also names an axis, or that only the return type uses."""
    found: dict[str, str] = {}
    for type_ in param_types:
        for name, kind in variables_in(type_, named_types):
            found[name] = kind if found.get(name, EITHER) == EITHER else found[name]
    for name in found:
        if name in axes:
            reporter.report(
                "E2309",
                f"`{name}` is a type variable of `{decl.name}`, and also an axis of its signature",
                _axis_span(decl, name) or decl.name_span,
                "an axis named like the type variable",
                help="name the axis otherwise, such as `n`, or use another letter",
            )
    for name, _ in variables_in(return_type, named_types):
        if name not in found and decl.return_type is not None:
            reporter.report(
                "E2309",
                f"only the return type of `{decl.name}` uses the type variable `{name}`, so "
                "no call can work out what it is",
                decl.return_type.span,
                "type variable no parameter has",
                help=f"give a parameter the type `{name}`, or write the type the function returns",
            )
    return found


def _axis_span(decl, name: str):
    for param in decl.params:
        if param.type is None:
            continue
        for used, span in type_names(param.type):
            if used == name and not _is_wrapper_arg(param.type, span):
                return span
    return None


def _is_wrapper_arg(written: ast.TypeExpr, span) -> bool:
    """Whether `span` is the M of a `Grad[M]`-style word, not an axis."""
    return any(word.arg is not None and word.arg.span == span for word in written.words)


# ---------------------------------------------------------------------- bindings


def binding_of(pattern: Type, actual: Type) -> list[tuple[str, str, str]]:
    """What an argument of type `actual` says about the type variables of a parameter of
    type `pattern`: (variable, kind, type name) for each it gives.

    A data record's types are told by their `record`: a batch's, a dataset's, and one
    example's (a batch with no axes); a record named as a plain type is a `NamedType`.
    """
    if isinstance(pattern, NamedType) and pattern.args == TYPE_VARIABLE:
        if isinstance(actual, ModelType):
            return [(pattern.name, MODEL, actual.name)]
        if isinstance(actual, NamedType) and not actual.args and actual.name != "LogSink":
            return [(pattern.name, RECORD, actual.name)]
        if _record_of(actual) is not None and getattr(actual, "axes", None) == ():
            return [(pattern.name, RECORD, _record_of(actual))]
        return []
    if isinstance(pattern, NamedType) and len(pattern.args) == 1:
        variable = pattern.args[0]
        if pattern.name == "Grad" and isinstance(actual, GradType):
            return [(variable, MODEL, actual.model)]
        if pattern.name in ("AdamW", "SGD") and isinstance(actual, OptimizerType):
            return [(variable, MODEL, actual.model)]
        if pattern.name == "Dataset":
            if isinstance(actual, NamedType) and actual.name == "Dataset" and len(actual.args) == 1:
                return [(variable, RECORD, actual.args[0])]
            if _record_of(actual) is not None and not hasattr(actual, "axes"):
                return [(variable, RECORD, _record_of(actual))]
        return []
    if isinstance(pattern, BatchType) and isinstance(actual, BatchType):
        return [(pattern.record, RECORD, actual.record)]
    return []


def _record_of(type_: Type) -> str | None:
    found = getattr(type_, "record", None)
    return found if isinstance(found, str) else None


def with_types(decl: ast.FnDecl, names: dict[str, str]) -> ast.FnDecl:
    """A copy of a generic function's declaration whose parameter and return types name,
    where they named a type variable, the model or record it stands for: resolved, it is
    the instance's signature, typed exactly as if the file had said so."""
    params = [replace(param, type=_renamed(param.type, names)) for param in decl.params]
    return replace(decl, params=params, return_type=_renamed(decl.return_type, names))


def _renamed(written: ast.TypeExpr | None, names: dict[str, str]) -> ast.TypeExpr | None:
    if written is None:
        return None
    words = []
    for word in written.words:
        arg = word.arg
        if isinstance(arg, ast.SizeName) and arg.name in names and word.name != "Index":
            arg = replace(arg, name=names[arg.name])
        words.append(replace(word, name=names.get(word.name, word.name), arg=arg))
    return replace(written, words=words)


# ---------------------------------------------------------------------- as written


def declared_type_names(module: ast.Module) -> set[str]:
    """The names a file's declarations give, which a type variable can't have."""
    kinds = ast.DimDecl | ast.AliasDecl | ast.DomainDecl | ast.ModelDecl | ast.DataDecl
    return {item.name for item in module.items if isinstance(item, kinds | ast.LogsDecl)}


def looks_generic(decl: ast.FnDecl, declared: set[str]) -> bool:
    """Whether a function's parameter types, as written, use a type variable: a word
    shaped as one that the file doesn't declare."""
    for param in decl.params:
        written = param.type
        if written is None:
            continue
        for word in written.words:
            name = word.name
            if name not in declared and is_type_variable_name(name):
                return True
            # `Grad[M]` and `Dataset[E]` name a variable in their argument; `Index[V]`
            # names an axis there.
            arg = word.arg
            if (
                isinstance(arg, ast.SizeName)
                and name != "Index"
                and arg.name not in declared
                and is_type_variable_name(arg.name)
            ):
                return True
    return False
