"""Logs records, sinks, `print`, and checkpoints: record classes, their argument checks, and
the runtime calls of `sink.write`, `sink.flush`, `print`, `save` and `load`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.types import HostType, LogsType, ModelType, OptimizerType, SinkType
from shapescript.check.declarations.logs_info import LogsInfo
from shapescript.codegen.context import ModuleContext, Unsupported, python_name
from shapescript.codegen.emit import SourceBuilder
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator

STANDALONE = "logs records, sinks and checkpoints need the shapescript runtime"


def logs_class(context: ModuleContext, info: LogsInfo, origin, body: SourceBuilder) -> None:
    """`class StepLogs(_ss_rt.logs.Logs):` with its doc, name and metrics."""
    if context.standalone:
        raise Unsupported(STANDALONE)
    if not info.ok:
        raise Unsupported(f"the logs record {info.name}")
    body.blank()
    body.add(0, f"class {python_name(info.name)}(_ss_rt.logs.Logs):", origin)
    if info.doc:
        body.add(1, repr(info.doc), origin)
    body.add(1, f"_ss_name = {info.name!r}", origin)
    body.add(1, "_ss_metrics = (", origin)
    for metric in info.metrics.values():
        body.add(2, f"{(metric.name, metric.combine, metric.dtype)!r},", origin)
    body.add(1, ")", origin)
    body.blank()


def is_logging(type_) -> bool:
    return isinstance(type_, LogsType | SinkType)


def _where(gen: FunctionGenerator, span) -> str:
    """`"path:line:col"` of a span of the function, as the runtime names places."""
    line, column = gen.context.location(gen.base, span)
    return repr(f"{gen.context.source.path}:{line}:{column}")


def check_line(gen: FunctionGenerator, param) -> str | None:
    """The runtime check of a LogSink or logs record argument (under `--checks`)."""
    type_ = param.type
    if not is_logging(type_):
        return None
    if gen.context.standalone:
        raise Unsupported(STANDALONE, param.decl.span)
    if gen.context.checks == "never":
        return None
    name = python_name(param.name)
    where = _where(gen, param.decl.span)
    if isinstance(type_, SinkType):
        return (
            f"_ss_rt.logs.check_sink({name}, {where}, {param.name!r}, function={gen.decl.name!r})"
        )
    line, column = gen.context.location(gen.base, param.decl.span)
    kind = gen.context.builtin("type")
    is_instance = gen.context.builtin("isinstance")
    message = f"expected a {type_.name} logs record, got {{{kind}({name}).__name__}}"
    location = (
        f"path={gen.context.source.path!r}, line={line}, column={column}, "
        f"function={gen.decl.name!r}, parameter={param.name!r}"
    )
    return (
        f"if not {is_instance}({name}, {python_name(type_.name)}): "
        f'raise _ss_rt.ShapeError(f"{message}", {location})'
    )


def construct(gen: FunctionGenerator, name: str, node: ast.Call) -> str:
    """`StepLogs(loss=l, grad_norm=n)`: the record keeps the values as they are."""
    if gen.context.standalone:
        raise Unsupported(STANDALONE, node.span)
    parts = [f"{python_name(arg.name)}={gen.expr(arg.value)}" for arg in node.args]
    return f"{python_name(name)}({', '.join(parts)})"


def member(gen: FunctionGenerator, node: ast.Member) -> str | None:
    """`r.loss`, a metric of a logs record."""
    if not isinstance(gen.type(node.target), LogsType):
        return None
    return f"{gen.expr(node.target)}.{node.name}"


def sink_call(gen: FunctionGenerator, node: ast.Call, piped: str | None) -> str | None:
    """`sink.write(r)` and `sink.flush()`; None when the callee isn't a sink's method."""
    callee = node.callee
    if not isinstance(callee, ast.Member) or not isinstance(gen.type(callee.target), SinkType):
        return None
    if gen.context.standalone:
        raise Unsupported(STANDALONE, node.span)
    sink = gen.expr(callee.target)
    if callee.name == "flush":
        return f"_ss_rt.logs.flush({sink})"
    args = gen.call_args(node, piped)
    return f"_ss_rt.logs.write({sink}, {gen.arg(args.positional[0], piped)})"


def print_call(gen: FunctionGenerator, name: str, node: ast.Call, piped: str | None) -> str:
    """`print(a, b, ...)`: the runtime's, which prints tensors and records as numbers."""
    args = gen.call_args(node, piped)
    values = ", ".join(gen.arg(value, piped) for value in args.positional)
    if gen.context.standalone:
        return f"{gen.context.builtin('print')}({values})"
    return f"_ss_rt.logs.print_values({values})"


def save_call(gen: FunctionGenerator, name: str, node: ast.Call, piped: str | None) -> str:
    """`save(path, values…)`, with the call's place for the runtime's errors."""
    if gen.context.standalone:
        raise Unsupported(STANDALONE, node.span)
    args = gen.call_args(node, piped)
    parts = [gen.arg(value, piped) for value in args.positional]
    parts.append(f"where={_where(gen, node.span)}")
    return f"_ss_rt.checkpoints.save({', '.join(parts)})"


def load_call(gen: FunctionGenerator, name: str, node: ast.Call, piped: str | None) -> str:
    """`load(path, Types…)`: the types as the runtime takes them, from the checker's record
    of what each argument names."""
    if gen.context.standalone:
        raise Unsupported(STANDALONE, node.span)
    args = gen.call_args(node, piped)
    path, *types = args.positional
    parts = [gen.arg(path, piped)]
    for value in types:
        parts.append(_runtime_type(gen, value))
    parts.append(f"where={_where(gen, node.span)}")
    return f"_ss_rt.checkpoints.load({', '.join(parts)})"


def _runtime_type(gen: FunctionGenerator, value) -> str:
    type_ = gen.type(value) if hasattr(value, "span") else None
    if isinstance(type_, ModelType):
        return python_name(type_.name)
    if isinstance(type_, OptimizerType):
        return f"_ss_rt.checkpoints.OptimizerType({type_.kind!r}, {python_name(type_.model)})"
    if isinstance(type_, HostType):
        return gen.context.builtin(type_.kind)
    raise gen.unsupported("this type in load", getattr(value, "span", None))
