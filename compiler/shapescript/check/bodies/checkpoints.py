"""`save(path, values…)` and `load(path, Types…)`: checkpoints (E1601-E1603, E0406).

A checkpoint holds models, optimizer state and host scalars. `load`'s arguments after the
path are types, written as in a signature; the checker records the type each one names at
its span, for the compiler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.types import (
    BOOL,
    FLOAT,
    INT,
    UNKNOWN,
    BatchType,
    GradType,
    HostType,
    LogsType,
    ModelType,
    ModeType,
    OptimizerType,
    PythonType,
    ScheduleType,
    SeveralType,
    SinkType,
    StringType,
    TensorType,
    Type,
    UnknownType,
    format_type,
    is_type_variable,
)
from shapescript.check.declarations.builtin_table import BUILTINS
from shapescript.check.declarations.module_scope import KIND_WORDS, suggestion
from shapescript.check.declarations.type_exprs import BUILTIN_DOMAINS
from shapescript.syntax import ast
from shapescript.syntax.source import Span
from shapescript.syntax.tokens import DTYPES

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext
    from shapescript.check.bodies.env import Arg

HOST_TYPES = {"int": INT, "float": FLOAT, "bool": BOOL}
OPTIMIZER_KINDS = ("AdamW", "SGD")
LOAD_HELP = (
    "write the types of the file's values: a model's name, `AdamW[Mlp]` or `SGD[Mlp]`, "
    "int, float or bool"
)
#: Names of types that a checkpoint doesn't hold: tensor types' domains and dtypes, and
#: the types of other values.
OTHER_TYPE_NAMES = (
    BUILTIN_DOMAINS | DTYPES | frozenset({"Mode", "Schedule", "LogSink", "Grad", "Dataset"})
)


# ---------------------------------------------------------------------- the path


def names_a_type(checker: BodyContext, expr) -> bool:
    """Whether a `load` argument is written as a type it reads (`Mlp`, `AdamW[Mlp]`, `int`),
    so it isn't checked as a value."""
    if isinstance(expr, ast.Index):
        expr = expr.target
        if not (isinstance(expr, ast.Name) and expr.name in OPTIMIZER_KINDS):
            return False
    if not isinstance(expr, ast.Name) or expr.name in checker.env.values:
        return False
    if expr.name in checker.env.axes:
        return False
    symbol = checker.scope.symbols.get(expr.name)
    if symbol is not None:
        return symbol.kind == "model"
    return expr.name in HOST_TYPES or expr.name in OPTIMIZER_KINDS


def _path(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> bool:
    """The path, first and by position: a string or a Python value (E1603); False after an
    error, with the other arguments left unchecked."""
    for arg in args:
        if arg.name == "path":
            checker.reporter.report(
                "E1603",
                f"`{name}` takes the path first, by position, not by name",
                arg.span,
                "path given by name",
                help=f'write `{name}("ckpt.pt", …)`',
            )
            return False
    positional = [arg for arg in args if arg.name is None]
    if not positional:
        checker.reporter.report(
            "E0406",
            f"`{name}` takes the checkpoint's path first",
            node.span,
            "no path",
            help=f'write `{name}("ckpt.pt", …)`',
        )
        return False
    path = positional[0]
    if name == "load" and names_a_type(checker, path.expr):
        checker.reporter.report(
            "E1603",
            "`load` takes the checkpoint's path first, and the types after it",
            path.span,
            "a type, not a path",
            help='write `load("ckpt.pt", …)`',
        )
        return False
    if args[0] is not path or not isinstance(path.type, StringType | PythonType | UnknownType):
        checker.reporter.report(
            "E1603",
            f"`{name}`'s first argument is the checkpoint's path, a string, not "
            f"{_described(path.type)}",
            path.span,
            "not a path",
            help=f'write the path first, as in `{name}("ckpt.pt", …)`',
        )
        return False
    return True


def _described(type_: Type) -> str:
    if isinstance(type_, HostType):
        return f"{'an' if type_.kind == 'int' else 'a'} {type_.kind}"
    if isinstance(type_, TensorType):
        return f"the tensor {format_type(type_)}"
    if isinstance(type_, ModelType):
        return f"the model {type_.name}"
    if isinstance(type_, LogsType):
        return f"the logs record {type_.name}"
    return format_type(type_)


def _rest(checker: BodyContext, name: str, what: str, args: list[Arg], node) -> list[Arg] | None:
    """The arguments after the path, by position, at least one (E0406)."""
    for arg in args[1:]:
        if arg.name is not None:
            checker.reporter.report(
                "E0406",
                f"`{name}` takes the {what} by position, not by name",
                arg.span,
                "given by name",
            )
            return None
    if len(args) < 2:
        checker.reporter.report(
            "E0406",
            f"`{name}` needs at least one of the {what} after the path",
            node.span,
            f"no {what}",
            help='write `save("ckpt.pt", m, opt)`'
            if name == "save"
            else 'write `load("ckpt.pt", Mlp)`',
        )
        return None
    return args[1:]


# ---------------------------------------------------------------------- save


def save(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    """`save(path, values…)`: models, optimizer state and host scalars; no result."""
    if not _path(checker, name, args, node):
        return UNKNOWN
    values = _rest(checker, name, "values", args, node)
    for arg in values or ():
        problem = _unsaveable(arg.type)
        if problem is not None:
            what, help_text = problem
            checker.reporter.report(
                "E1601",
                f"a checkpoint can't hold {what}",
                arg.span,
                format_type(arg.type) if not isinstance(arg.type, SeveralType) else "several",
                help=help_text,
            )
    return UNKNOWN


def _unsaveable(type_: Type) -> tuple[str, str | None] | None:
    """What a value is and what to do instead, when a checkpoint can't hold it."""
    if isinstance(type_, ModelType | OptimizerType | HostType | PythonType | UnknownType):
        return None
    if is_type_variable(type_):
        return None
    keep = "a checkpoint holds models, optimizer state, and int, float and bool values"
    if isinstance(type_, TensorType):
        return (
            "a tensor on its own",
            "keep tensor state in a model, as a buffer if it isn't trained",
        )
    if isinstance(type_, GradType):
        return "a gradient", keep
    if isinstance(type_, ScheduleType):
        return "a schedule", "save the optimizer state that uses it: the schedule is part of it"
    if isinstance(type_, ModeType):
        return "a Mode", keep
    if isinstance(type_, LogsType):
        return "a logs record", "write it to a sink instead"
    if isinstance(type_, SinkType):
        return "a sink", keep
    if isinstance(type_, SeveralType):
        return "several results at once", "name them first, and save the ones it can hold"
    if isinstance(type_, BatchType):
        return "a batch", keep
    if isinstance(type_, StringType):
        return "a string", keep
    return format_type(type_), keep


# ---------------------------------------------------------------------- load


def load(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    """`load(path, Types…)`: one value of each type; one type gives one value."""
    if not _path(checker, name, args, node):
        return UNKNOWN
    types = _rest(checker, name, "types", args, node)
    if types is None:
        return UNKNOWN
    loaded: list[Type] = []
    for arg in types:
        type_ = _loaded_type(checker, arg.expr) if arg.expr is not None else None
        if type_ is None:
            if arg.expr is None:
                _not_loadable(checker, arg.span, "a piped value", None)
            loaded.append(UNKNOWN)
            continue
        checker.record(arg.expr.span, type_)
        loaded.append(type_)
    if any(isinstance(type_, UnknownType) for type_ in loaded):
        return UNKNOWN
    return loaded[0] if len(loaded) == 1 else SeveralType(tuple(loaded))


def _loaded_type(checker: BodyContext, expr) -> Type | None:
    """The type a `load` argument names; None after an error."""
    if isinstance(expr, ast.Name):
        return _named_type(checker, expr)
    if (
        isinstance(expr, ast.Index)
        and isinstance(expr.target, ast.Name)
        and expr.target.name not in checker.env.values
    ):
        wrapper = expr.target.name
        if wrapper in OPTIMIZER_KINDS:
            return _optimizer_type(checker, wrapper, expr)
        if wrapper in OTHER_TYPE_NAMES:
            _not_loadable(checker, expr.span, f"`{wrapper}[…]`", None)
            return None
    _not_loadable(checker, expr.span, "an expression that isn't a type", LOAD_HELP)
    return None


def _named_type(checker: BodyContext, expr: ast.Name) -> Type | None:
    name = expr.name
    local = checker.env.values.get(name)
    if local is not None or name in checker.env.axes:
        symbol = local[1] if local is not None else checker.env.axes[name][1]
        checker.refer(expr.span, symbol)
        shown = format_type(local[0]) if local is not None else "int"
        help_text = f"write its type: `load(…, {shown})`" if local is not None else LOAD_HELP
        _not_loadable(checker, expr.span, f"the value `{name}`", help_text)
        return None
    if name in HOST_TYPES:
        return HOST_TYPES[name]
    symbol = checker.scope.symbols.get(name)
    if symbol is not None:
        checker.refer(expr.span, symbol)
        if symbol.kind == "model":
            return ModelType(name)
        what = KIND_WORDS.get(symbol.kind, symbol.kind)
        _not_loadable(checker, expr.span, f"`{name}`, {what}", LOAD_HELP)
        return None
    if name in OPTIMIZER_KINDS:
        checker.reporter.report(
            "E0303",
            f"`{name}` is optimizer state for a model: say which, as in `{name}[Mlp]`",
            expr.span,
            "no model",
        )
        return None
    if (
        name in OTHER_TYPE_NAMES
        or name in BUILTINS
        or name in checker.program.prelude.signatures
        or name == "none"
    ):
        _not_loadable(checker, expr.span, f"`{name}`", LOAD_HELP)
        return None
    candidates = [s for s, sym in checker.scope.symbols.items() if sym.kind == "model"]
    checker.reporter.report(
        "E0301",
        f"unknown name `{name}`",
        expr.span,
        "not declared",
        help=suggestion(name, candidates + list(HOST_TYPES)),
    )
    return None


def _optimizer_type(checker: BodyContext, kind: str, expr: ast.Index) -> Type | None:
    """`AdamW[Mlp]` or `SGD[Mlp]`: the state for a model (E0303, E0301)."""
    items = expr.items
    inner = items[0] if len(items) == 1 else None
    if isinstance(inner, ast.Name) and inner.name not in checker.env.values:
        symbol = checker.scope.symbols.get(inner.name)
        if symbol is not None:
            checker.refer(inner.span, symbol)
            if symbol.kind == "model":
                return OptimizerType(kind, inner.name)
        elif inner.name not in checker.env.axes:
            checker.reporter.report(
                "E0301",
                f"unknown model `{inner.name}`",
                inner.span,
                "not declared",
                help=f"declare it with `model {inner.name}:`",
            )
            return None
    shown = f"`{inner.name}`" if isinstance(inner, ast.Name) else "this"
    checker.reporter.report(
        "E0303",
        f"`{kind}[..]` takes a model, and {shown} isn't one",
        expr.span,
        "not a model",
        help=f"write the name of a model, as in `{kind}[Mlp]`",
    )
    return None


def _not_loadable(checker: BodyContext, span: Span, what: str, help_text: str | None) -> None:
    checker.reporter.report(
        "E1602",
        f"`load` reads models, optimizer state and host scalars, so it can't be given {what}",
        span,
        "not a type load can read",
        help=help_text or LOAD_HELP,
    )
