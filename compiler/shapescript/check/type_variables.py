"""Type variables of generic functions: finding them in a signature (E2309), working them
out from a call's argument types, and putting the types they stand for in their place.

A type variable (`M`, `E`, `T2`) stands for a model or a data record. It appears as the
whole type of a parameter (`m: M`, `e: E`), inside `Grad[M]`, `AdamW[M]` and `SGD[M]`
(a model), and in `[b] E` and `Dataset[E]` (a data record).
"""

from __future__ import annotations

from shapescript.check.reporter import Reporter
from shapescript.check.syntax_facts import type_names
from shapescript.check.type_exprs import is_type_variable_name
from shapescript.check.types import (
    BatchType,
    GradType,
    ModelType,
    NamedType,
    OptimizerType,
    Type,
)
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
    type `pattern`: (variable, kind, type name) for each it gives."""
    if isinstance(pattern, NamedType):
        if pattern.args == TYPE_VARIABLE:
            if isinstance(actual, ModelType):
                return [(pattern.name, MODEL, actual.name)]
            if isinstance(actual, NamedType) and not actual.args and actual.name != "LogSink":
                return [(pattern.name, RECORD, actual.name)]
            return []
        if pattern.name == "Grad" and isinstance(actual, GradType):
            return [(pattern.args[0], MODEL, actual.model)]
        if pattern.name in ("AdamW", "SGD") and isinstance(actual, OptimizerType):
            return [(pattern.args[0], MODEL, actual.model)]
        if (
            isinstance(actual, NamedType)
            and actual.name == pattern.name
            and len(actual.args) == len(pattern.args)
        ):
            return [
                (want, RECORD, have)
                for want, have in zip(pattern.args, actual.args, strict=True)
                if want != have
            ]
        return []
    want = getattr(pattern, "record", None)
    have = getattr(actual, "record", None)
    if isinstance(want, str) and type(pattern) is type(actual) and isinstance(have, str):
        return [(want, RECORD, have)]
    return []


def substitute(type_: Type | None, bindings: dict[str, tuple[str, str]]) -> Type | None:
    """The type with each bound type variable replaced by the model or record it stands
    for: `bindings` maps a variable to (kind, name)."""
    if type_ is None or not bindings:
        return type_
    if isinstance(type_, NamedType):
        if type_.args == TYPE_VARIABLE:
            bound = bindings.get(type_.name)
            if bound is None:
                return type_
            kind, name = bound
            return ModelType(name) if kind == MODEL else NamedType(name)
        if type_.name in MODEL_WRAPPERS and len(type_.args) == 1:
            bound = bindings.get(type_.args[0])
            if bound is None:
                return type_
            if type_.name == "Grad":
                return GradType(bound[1])
            return OptimizerType(type_.name, bound[1])
        args = tuple(bindings[arg][1] if arg in bindings else arg for arg in type_.args)
        return NamedType(type_.name, args) if args != type_.args else type_
    if isinstance(type_, BatchType) or hasattr(type_, "record"):
        record_name = type_.record
        if isinstance(record_name, str) and record_name in bindings:
            return replace(type_, record=bindings[record_name][1])
    return type_


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
            names = [word.name]
            # `Grad[M]` and `Dataset[E]` name a variable in their argument; `Index[V]`
            # names an axis there.
            if isinstance(word.arg, ast.SizeName) and word.name != "Index":
                names.append(word.arg.name)
            if any(is_type_variable_name(name) and name not in declared for name in names):
                return True
    return False
