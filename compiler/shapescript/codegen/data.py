"""Data records and datasets: record classes, the argument checks of batch and dataset
parameters, the batch axis's sizes, batch fields, and the stages `shuffle` and `batches`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.types import BatchType, DatasetType, Type, axis_text
from shapescript.check.declarations.data_info import DataInfo
from shapescript.codegen import casts
from shapescript.codegen.context import ModuleContext, Unsupported, python_name
from shapescript.codegen.emit import SourceBuilder
from shapescript.codegen.sizes import MissingSize, SizeNames, size_expr
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator

STANDALONE = "data records and datasets need the shapescript runtime"


def is_data(type_: Type | None) -> bool:
    return isinstance(type_, BatchType | DatasetType)


def where(context: ModuleContext, base: int, span: Span) -> str:
    """`path:line:column` of a `.ss` position, as the runtime names it in errors."""
    line, column = context.location(base, span)
    return f"{context.source.path}:{line}:{column}"


# ---------------------------------------------------------------------- record classes


def record_class(context: ModuleContext, info: DataInfo, origin, body: SourceBuilder) -> None:
    """`class Digit(_ss_rt.data.Record):` with its doc and its fields."""
    if context.standalone:
        raise Unsupported(STANDALONE)
    if not info.ok:
        raise Unsupported(f"the data record {info.name}, which has errors")
    body.blank()
    body.add(0, f"class {python_name(info.name)}(_ss_rt.data.Record):", origin)
    if info.doc:
        body.add(1, repr(info.doc), origin)
    body.add(1, f"_ss_name = {info.name!r}", origin)
    body.add(1, "_ss_fields = (", origin)
    for field in info.fields.values():
        bad, promise = _domain_test(context, field.type)
        located = where(context, 0, field.span)
        body.add(
            2,
            f"_ss_rt.data.RecordField({field.name!r}, {field.shape!r}, {field.dtype!r}, "
            f"{located!r}, {field.type_text!r}, {bad}, {promise!r}),",
            origin,
        )
    body.add(1, ")", origin)
    body.blank()


def _domain_test(context: ModuleContext, type_) -> tuple[str, str | None]:
    """The field's `domain_bad` function as Python source, and what the domain promises;
    `None` where the domain has no test or value checks are compiled out."""
    if context.value_checks == "never":
        return "None", None
    test = casts.domain_test_with(context, dim_numbers(context), "v", type_)
    if test is None:
        return "None", None
    condition, promise = test
    function = f"lambda v: {condition}"
    if context.value_checks == "debug":
        function = f"(({function}) if __debug__ else None)"
    return function, promise


def dim_numbers(context: ModuleContext) -> dict[str, str]:
    """Each dim's value as Python, made once per module: every field asks for it."""
    if context.dim_numbers is None:
        context.dim_numbers = {
            name: str(value) for name, value in context.checked.dim_values.items()
        }
    return context.dim_numbers


# ---------------------------------------------------------------------- parameters


def parameter_lines(
    gen: FunctionGenerator, known: SizeNames
) -> tuple[list[str], list[str], list[str]]:
    """The lines batch and dataset parameters add to a function's prologue: each dataset
    parameter's check; each batch parameter's conversion to a batch, which checks its
    fields, with the reads of its batch axes' sizes that `known` (the sizes the tensor
    arguments give) lacks; and, to run after the tensors' reads, the checks of its other
    batch axes. The conversions and reads always run: a dict becomes a batch there, and
    the body may use the sizes; the checks follow the check modes."""
    checks: list[str] = []
    lines: list[str] = []
    later: list[str] = []
    known = known.copy()
    for param in gen.signature.params:
        type_ = param.type
        if not is_data(type_):
            continue
        if gen.context.standalone:
            raise Unsupported(STANDALONE, param.decl.span)
        name = python_name(param.name)
        record = python_name(type_.record)
        located = where(gen.context, gen.base, param.decl.span)
        arguments = f"{name}, {record}, {located!r}, {param.name!r}, function={gen.decl.name!r}"
        if isinstance(type_, DatasetType):
            checks.append(f"_ss_rt.data.check_dataset({arguments})")
            continue
        if len(type_.axes) != 1:
            arguments += f", axes={len(type_.axes)}"
        lines.append(f"{name} = _ss_rt.data.as_batch({arguments})")
        for position, axis in enumerate(type_.axes):
            read = _axis_read(gen, name, type_.record, position)
            symbol = axis.size.single_symbol()
            if symbol is not None and symbol not in known and not symbol.startswith("?"):
                known[symbol] = python_name(symbol)
                lines.append(f"{python_name(symbol)} = {read}")
                continue
            try:
                expected = size_expr(axis.size, known)
            except MissingSize:
                continue
            problem = (
                f"its batch axis {position + 1} should be {axis_text(axis)} = {{{expected}}}, "
                f"got {{{read}}}"
            )
            located_at = ", ".join(
                f"{key}={value!r}"
                for key, value in _location(gen, param.decl.span, param.name).items()
            )
            later.append(
                f"if {read} != {expected}:\n    raise _ss_rt.ShapeError(f{problem!r}, {located_at})"
            )
    return checks, lines, later


def batch_sizes(gen: FunctionGenerator) -> dict[str, str]:
    """The sizes the batch parameters give to the body: each generic batch axis that no
    tensor argument gives, read from the first batch that has it."""
    sizes: dict[str, str] = {}
    for param in gen.signature.params:
        type_ = param.type
        if not isinstance(type_, BatchType):
            continue
        for axis in type_.axes:
            symbol = axis.size.single_symbol()
            if (
                symbol is not None
                and not symbol.startswith("?")
                and symbol not in gen.sizes
                and symbol not in sizes
            ):
                sizes[symbol] = python_name(symbol)
    return sizes


def _location(gen: FunctionGenerator, span: Span, parameter: str) -> dict[str, object]:
    line, column = gen.context.location(gen.base, span)
    return {
        "path": gen.context.source.path,
        "line": line,
        "column": column,
        "function": gen.decl.name,
        "parameter": parameter,
    }


def _axis_read(gen: FunctionGenerator, value: str, record: str, position: int) -> str:
    """A batch's size along its batch axis `position`: `len(batch)` for the first, else a
    field's size there."""
    if position == 0:
        return f"{gen.context.builtin('len')}({value})"
    info = record_info(gen.context, record)
    first = next(iter(info.fields), None) if info is not None else None
    if first is None:
        raise Unsupported(f"a batch axis of the record {record}, which has no fields")
    return f"{value}.{first}.shape[{position}]"


def record_info(context: ModuleContext, record: str) -> DataInfo | None:
    """A data record's fields: this file's, or another file's by its qualified name."""
    checked = context.checked
    info = checked.data.get(record)
    if info is None and "." in record and checked.imports is not None:
        info = checked.imports.data_infos.get(record)
    return info


# ---------------------------------------------------------------------- bodies


def member(gen: FunctionGenerator, node: ast.Member) -> str | None:
    """`batch.img`: a field of a batch or example is an attribute."""
    if not isinstance(gen.type(node.target), BatchType):
        return None
    return f"{gen.expr(node.target)}.{node.name}"


def loop_sizes(gen: FunctionGenerator, stmt: ast.For) -> None:
    """Inside a loop over batches, its batch axis's unknown size is the batch's length."""
    type_ = gen.view.type(stmt.var.span)
    if not isinstance(type_, BatchType):
        return
    variable = python_name(stmt.var.name)
    for position, axis in enumerate(type_.axes):
        symbol = axis.size.single_symbol()
        if symbol is not None:
            gen.sizes[symbol] = _axis_read(gen, variable, type_.record, position)


def stage(gen: FunctionGenerator, name: str, node: ast.Call, piped: str | None) -> str:
    """`shuffle(seed=s)` and `batches(n)`."""
    if gen.context.standalone:
        raise Unsupported(STANDALONE, node.span)
    args = gen.call_args(node, piped)
    values = list(args.positional)
    dataset = gen.arg(values[0], piped)
    if name == "shuffle":
        return f"_ss_rt.data.shuffle({dataset}, {gen.arg(args.keywords['seed'], piped)})"
    count = values[1] if len(values) > 1 else args.keywords["n"]
    result = gen.type(node)
    record = getattr(result, "record", None)
    if record is None:
        raise gen.unsupported("`batches` of this", node.span)
    located = where(gen.context, gen.base, node.span)
    return (
        f"_ss_rt.data.batches({dataset}, {gen.arg(count, piped)}, {python_name(record)}, "
        f"{located!r})"
    )
