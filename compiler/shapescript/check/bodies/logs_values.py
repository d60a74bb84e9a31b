"""Logs records and sinks in a function body, and `print`.

Making a record (`StepLogs(loss=l)`: E1401, E0406, and E0403/E0501/E0502/E0805 for a
value that doesn't fit its metric), reading a metric (`r.loss`, E1401), a sink's two
methods (`sink.write(r)`, E1403; `sink.flush()`; E0301, E0406) and `print`'s arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra import fixes
from shapescript.check.algebra.solver import solve
from shapescript.check.algebra.types import (
    UNKNOWN,
    FunctionType,
    HostType,
    LogsType,
    PythonType,
    SinkType,
    TensorType,
    Type,
    UnknownType,
    format_type,
)
from shapescript.check.declarations.module_scope import suggestion
from shapescript.check.declarations.signatures import ParamSig, Signature
from shapescript.check.declarations.symbols import Reference
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext
    from shapescript.check.bodies.env import Arg

#: The methods ShapeScript code may call on a sink.
SINK_METHODS = ("write", "flush")
#: The kind of `FunctionType` that stands for a sink's method before it is called.
SINK_METHOD = "sink method"


# ---------------------------------------------------------------------- making a record


def construct(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    """`StepLogs(loss=l, grad_norm=n)`: every metric once, by name, each value fitting it.

    The result is the record even when an argument is wrong: what it is can't be in doubt.
    """
    from shapescript.check.bodies.mutation import check_builtin_args

    result = LogsType(name)
    info = checker.scope.logs_infos.get(name)
    decl = checker.scope.records.get(name)
    if info is None or not isinstance(decl, ast.LogsDecl):
        return result
    if not check_builtin_args(checker, name, args):
        return result
    declared = [metric.name for metric in decl.metrics]
    name_spans = {arg.name: arg.name_span for arg in node.args if arg.name is not None}
    given: dict[str, Arg] = {}
    problem = False
    for arg in args:
        if arg.name is None:
            checker.reporter.report(
                "E0406",
                f"`{name}` takes each metric by name, as in `{name}({declared[0]}=…)`"
                if declared
                else f"`{name}` has no metrics to give",
                arg.span,
                "given by position",
            )
            problem = True
        elif arg.name not in declared:
            checker.reporter.report(
                "E1401",
                f"`{name}` has no metric `{arg.name}`",
                name_spans.get(arg.name) or arg.span,
                "no such metric",
                help=suggestion(arg.name, declared),
                fixes=fixes.spelling(arg.name, declared, name_spans[arg.name])
                if name_spans.get(arg.name)
                else [],
            )
            problem = True
        elif arg.name in given:
            checker.reporter.report(
                "E0406", f"`{arg.name}` is given twice", arg.span, "second time"
            )
            problem = True
        else:
            given[arg.name] = arg
    missing = [metric for metric in declared if metric not in given]
    if missing and not problem:
        shown = ", ".join(f"`{metric}`" for metric in missing)
        checker.reporter.report(
            "E0406",
            f"`{name}` is missing its metric{'s' if len(missing) > 1 else ''} {shown}",
            node.span,
            f"no {shown}",
            help="a record is made with every metric, each by name",
        )
    for index, (metric_name, arg) in enumerate(given.items()):
        metric = info.metrics.get(metric_name)
        if metric is not None:
            _fit_metric(checker, name, metric_name, metric.type, index, arg)
    return result


def _fit_metric(
    checker: BodyContext, record: str, metric: str, type_: Type, index: int, arg: Arg
) -> None:
    """A value must fit its metric as an argument fits a parameter of the metric's type."""
    param = ParamSig(metric, type_, None, False)
    signature = Signature(record, [param], None, None)
    index_equations: list = []
    outcome = checker._match_param(
        signature, param, (index, arg), {}, [], {}, [], None, index_equations
    )
    if outcome is False or not index_equations:
        return
    solution = solve(index_equations, checker.scope.dim_values)
    if solution.failures:
        failure = solution.failures[0]
        checker.reporter.report(
            "E0507",
            f"`{record}` can't take this as `{metric}`: its indices are below "
            f"{failure.rhs}, not {failure.lhs}",
            arg.span,
            format_type(arg.type),
            notes=[f"`{metric}` is {format_type(type_)}"],
        )


# ---------------------------------------------------------------------- members


def member(checker: BodyContext, node: ast.Member, target: Type) -> Type | None:
    """`r.loss` of a logs record, `sink.write` of a sink; None for other targets."""
    if isinstance(target, LogsType):
        return _metric(checker, node, target.name)
    if isinstance(target, SinkType):
        if node.name in SINK_METHODS:
            return FunctionType(node.name, SINK_METHOD)
        checker.reporter.report(
            "E0301",
            f"a LogSink has no method `{node.name}`: ShapeScript code can only call its "
            "write and flush",
            node.name_span,
            "unknown method",
            help=suggestion(node.name, SINK_METHODS),
        )
        return UNKNOWN
    return None


def _metric(checker: BodyContext, node: ast.Member, record: str) -> Type:
    info = checker.scope.logs_infos.get(record)
    decl = checker.scope.records.get(record)
    if info is None or not isinstance(decl, ast.LogsDecl):
        return UNKNOWN
    found = info.metrics.get(node.name)
    if found is not None:
        checker.facts.references.append(Reference(node.name_span, field=(record, node.name)))
        return found.type
    declared = [metric.name for metric in decl.metrics]
    if node.name not in declared:
        checker.reporter.report(
            "E1401",
            f"`{record}` has no metric `{node.name}`",
            node.name_span,
            "no such metric",
            help=suggestion(node.name, declared),
            fixes=fixes.spelling(node.name, declared, node.name_span),
        )
    return UNKNOWN


# ---------------------------------------------------------------------- sinks


def sink_call(checker: BodyContext, method: Type, args: list[Arg], node: ast.Call) -> Type | None:
    """`sink.write(record)` and `sink.flush()`, with no result; None if `method` isn't a
    sink's."""
    if not (isinstance(method, FunctionType) and method.kind == SINK_METHOD):
        return None
    from shapescript.check.bodies.mutation import check_builtin_args

    name = f"sink.{method.name}"
    if not check_builtin_args(checker, name, args):
        return UNKNOWN
    for arg in args:
        if arg.name is not None:
            checker.reporter.report(
                "E0406", f"`{name}` takes no arguments by name", arg.span, "given by name"
            )
            return UNKNOWN
    wanted = 1 if method.name == "write" else 0
    if len(args) != wanted:
        checker.reporter.report(
            "E0406",
            f"`{name}` takes {'one record' if wanted else 'no arguments'}, not {len(args)}",
            node.span,
            f"{len(args)} argument{'s' if len(args) != 1 else ''}",
            help="write a record with `sink.write(r)`" if wanted else "write `sink.flush()`",
        )
        return UNKNOWN
    if wanted:
        record = args[0].type
        if not isinstance(record, LogsType | PythonType | UnknownType):
            checker.reporter.report(
                "E1403",
                f"a sink is written logs records, not {_described(record)}",
                args[0].span,
                "not a logs record",
                help="make a record of it first, as in `sink.write(StepLogs(loss=l))`",
            )
    return UNKNOWN


# ---------------------------------------------------------------------- effects


def effect(scope, decl: ast.FnDecl | None, node: ast.Call, values=None) -> str | None:
    """What a call does besides computing a value, when it makes a logs record or calls a
    sink's method (E2403 in an iterator stage); None otherwise.

    `values` are the names in scope with their types (a body's checker's), else the sinks
    are `decl`'s LogSink parameters.
    """
    callee = node.callee
    if isinstance(callee, ast.Name):
        symbol = scope.symbols.get(callee.name)
        shadowed = values is not None and callee.name in values
        if symbol is not None and symbol.kind == "logs" and not shadowed:
            return f"makes the logs record `{callee.name}`"
        return None
    if not (isinstance(callee, ast.Member) and isinstance(callee.target, ast.Name)):
        return None
    name = callee.target.name
    if values is not None:
        found = values.get(name)
        is_sink = found is not None and isinstance(found[0], SinkType)
    else:
        signature = scope.signatures.get(decl.name) if decl is not None else None
        is_sink = signature is not None and any(
            param.name == name and isinstance(param.type, SinkType) for param in signature.params
        )
    return f"calls the sink's `{callee.name}`" if is_sink else None


# ---------------------------------------------------------------------- print


def print_call(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    """`print(a, b, ...)`: any values, by position; no result."""
    for arg in args:
        if arg.name is not None:
            checker.reporter.report(
                "E0406",
                "`print` takes its arguments by position",
                arg.span,
                "given by name",
                help='to print a label, give it as a string: `print("loss", l)`',
            )
            break
    return UNKNOWN


def _described(type_: Type) -> str:
    if isinstance(type_, TensorType):
        return f"the tensor {format_type(type_)}"
    if isinstance(type_, HostType):
        return f"{'an' if type_.kind == 'int' else 'a'} {type_.kind}"
    return format_type(type_)
