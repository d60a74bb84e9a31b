"""Batches and datasets as values in a function body.

Which value fits where a batch or a dataset is expected (E1303), reading a batch's field
(E1301), the dataset stages `shuffle` and `batches` (E1304), a `for` loop over batches
(the batch axis a fresh unknown size per loop, E0804 for a dataset not in batches), and
`as` or `to` with a batch or dataset type (E0303).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra import fixes
from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.solver import Equation
from shapescript.check.algebra.types import (
    DATA_TYPES,
    TRAINING_TYPES,
    UNKNOWN,
    Axis,
    BatchesType,
    BatchType,
    DatasetType,
    HostType,
    NamedType,
    PythonType,
    StringType,
    TensorType,
    Type,
    UnknownType,
    format_type,
    interval_of,
)
from shapescript.check.declarations.module_scope import suggestion
from shapescript.check.declarations.symbols import Reference, ScopeEntry
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext
    from shapescript.check.bodies.env import Arg

#: The name a loop over batches gives its batch axis, when the name is free.
BATCH_AXIS = "b"


# ---------------------------------------------------------------------- fitting


def fit_problem(expected: Type | None, actual: Type) -> tuple[str, str] | None:
    """Why `actual` can't be where a batch or dataset is expected, as (code, reason): E1303
    for another record, another number of batch axes, a dataset for a batch (or the other
    way round), or anything else that is typed. None if it fits (a batch's sizes are
    matched by the caller) or `expected` is neither."""
    if not isinstance(expected, (BatchType, DatasetType)):
        return None
    if isinstance(actual, (UnknownType, PythonType)):
        return None
    if isinstance(expected, BatchType):
        if isinstance(actual, BatchType):
            if actual.record != expected.record:
                return "E1303", f"it holds {actual.record} examples, not {expected.record}"
            if len(actual.axes) != len(expected.axes):
                if not actual.axes:
                    return "E1303", f"it is one {actual.record} example, not a batch"
                if not expected.axes:
                    return "E1303", "it is a batch, not one example"
                return "E1303", f"it has {_axes_count(actual)}, not {_axes_count(expected)}"
            return None
        if isinstance(actual, (DatasetType, BatchesType)):
            return "E1303", "a dataset isn't a batch: loop over its batches"
    else:
        if isinstance(actual, DatasetType):
            if actual.record != expected.record:
                return "E1303", f"it is a dataset of {actual.record}, not of {expected.record}"
            return None
        if isinstance(actual, BatchesType):
            return "E1303", "a dataset cut into batches is only for a `for` loop"
        if isinstance(actual, BatchType):
            return "E1303", f"{format_type(actual)} isn't a dataset"
    if isinstance(actual, TensorType | HostType | StringType | TRAINING_TYPES):
        return "E1303", f"{format_type(actual)} isn't {format_type(expected)}"
    return None


def _axes_count(batch: BatchType) -> str:
    count = len(batch.axes)
    return f"{count} batch ax{'i' if count == 1 else 'e'}s"


def argument(
    checker: BodyContext,
    signature,
    param,
    arg_index: int,
    value: Arg,
    variables: dict[str, Poly],
    equations: list[Equation],
    renames: dict[str, str | None],
) -> bool | None:
    """A call's argument for a batch or dataset parameter: True when it fits, with an
    equation per batch axis; False after E1303; None when the parameter is neither."""
    expected = param.type
    if not isinstance(expected, (BatchType, DatasetType)):
        return None
    actual = value.type
    problem = fit_problem(expected, actual)
    if problem is not None:
        code, reason = problem
        checker.reporter.report(
            code,
            f"`{signature.name}` can't take this as `{param.name}`: {reason}",
            value.span,
            "doesn't fit",
            notes=[f"`{param.name}` is {format_type(expected)}"],
        )
        return False
    if isinstance(expected, BatchType) and isinstance(actual, BatchType):
        for axis_index, (want, have) in enumerate(zip(expected.axes, actual.axes, strict=True)):
            generic = want.size.single_symbol()
            if generic is not None and generic in signature.generics:
                renames.setdefault(generic, have.name)
            equations.append(
                Equation(
                    want.size.substitute(variables),
                    have.size,
                    (arg_index, param, axis_index, have),
                )
            )
    return True


def check_return(checker: BodyContext, expected: Type | None, value: Type, span) -> bool:
    """A returned batch's sizes against the declared batch type (E0401, E0403); True when
    the return was a batch or dataset one, whether or not it fit."""
    if not isinstance(expected, (BatchType, DatasetType)):
        return isinstance(value, DATA_TYPES)
    if isinstance(expected, BatchType) and isinstance(value, BatchType):
        problem = checker._fit_axes(value.axes, expected.axes, allow_unknown=True)
        if problem is not None:
            code, notes = problem
            checker.reporter.report(
                code,
                f"`{checker.decl.name}` returns {format_type(value)}, not the declared "
                f"{format_type(expected)}",
                span,
                "returned here",
                notes=notes,
            )
    return True


# ---------------------------------------------------------------------- fields


def field(checker: BodyContext, target: Type, node: ast.Member) -> Type | None:
    """`batch.img`: the field's type with the batch's axes first (E1301 if the record has no
    such field); None when the target isn't a batch, example or dataset."""
    if isinstance(target, (DatasetType, BatchesType)):
        checker.reporter.report(
            "E1301",
            f"{format_type(target)} has no fields: its batches have",
            node.name_span,
            "no such field",
            help="loop over its batches: `for batch in train |> batches(64):`",
        )
        return UNKNOWN
    if not isinstance(target, BatchType):
        return None
    info = checker.scope.data_infos.get(target.record)
    if info is None:
        return UNKNOWN
    found = info.fields.get(node.name)
    if found is None:
        record = checker.scope.records.get(target.record)
        declared = [f.name for f in record.fields] if isinstance(record, ast.DataDecl) else []
        if node.name in declared:
            return UNKNOWN
        checker.reporter.report(
            "E1301",
            f"{target.record} has no field `{node.name}`",
            node.name_span,
            "no such field",
            help=suggestion(node.name, declared)
            or (f"its fields are {', '.join(declared)}" if declared else None),
            fixes=fixes.spelling(node.name, declared, node.name_span),
        )
        return UNKNOWN
    checker.facts.references.append(Reference(node.name_span, field=(target.record, node.name)))
    return found.in_batch(target.axes)


# ---------------------------------------------------------------------- as and to


def cast(checker: BodyContext, node: ast.Cast, operand: Type, target: Type) -> Type | None:
    """`as` or `to` with a batch or dataset on either side; None when neither is one. Only
    a Python value can be asserted to be a dataset; nothing is made a batch (E0303)."""
    if isinstance(operand, DATA_TYPES) and not isinstance(target, DATA_TYPES):
        checker.reporter.report(
            "E0412",
            f"{format_type(operand)} isn't a tensor, so `{node.kind}` can't make one of it",
            node.span,
            "not a tensor",
            help="use one of its fields, as `batch.img`"
            if isinstance(operand, BatchType)
            else None,
        )
        return UNKNOWN
    if not isinstance(target, DATA_TYPES):
        return None
    asserted = isinstance(target, DatasetType) and node.kind == "as"
    if asserted and (isinstance(operand, (PythonType, UnknownType)) or operand == target):
        return target
    reason = (
        "a batch comes from a loop over a dataset's batches, or from a parameter"
        if isinstance(target, BatchType)
        else "only a Python value can be asserted to be a dataset"
    )
    checker.reporter.report(
        "E0303",
        f"`{node.kind} {format_type(target)}` isn't possible: {reason}",
        node.type.span,
        "not a type for `as` or `to`",
    )
    return UNKNOWN


# ---------------------------------------------------------------------- stages


def stage(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    """`shuffle(seed=s)` and `batches(n)` (E0406, E0502, E0805, E1304)."""
    from shapescript.check.bodies.training_arguments import host_argument, match_named

    if name == "shuffle":
        matched = match_named(
            checker,
            name,
            args,
            node,
            ("data", "seed"),
            required=("data", "seed"),
            keyword=("seed",),
        )
        number = "seed"
    else:
        matched = match_named(checker, name, args, node, ("data", "n"), required=("data", "n"))
        number = "n"
    if matched is None:
        return UNKNOWN
    record = _dataset_record(checker, name, matched["data"], node)
    if not host_argument(checker, name, number, matched[number], "int"):
        return UNKNOWN
    if name == "batches" and not _batch_size_ok(checker, matched["n"]):
        return UNKNOWN
    if record is None:
        return UNKNOWN
    return DatasetType(record) if name == "shuffle" else BatchesType(record)


def _dataset_record(checker: BodyContext, name: str, data: Arg, node: ast.Call) -> str | None:
    """The record of the dataset a stage is given; None (after E1304) for anything else."""
    type_ = data.type
    if isinstance(type_, DatasetType):
        return type_.record
    if isinstance(type_, UnknownType) or (
        isinstance(type_, NamedType)
        and (type_.name == "Dataset" or type_.args == ("type variable",))
    ):
        return None
    if isinstance(type_, BatchesType):
        message = (
            "`shuffle` comes before `batches`: after it, it would shuffle whole batches"
            if name == "shuffle"
            else "the dataset is already cut into batches"
        )
        help_text = (
            "write `train |> shuffle(seed=epoch) |> batches(64)`"
            if name == "shuffle"
            else "use `batches` once"
        )
        checker.reporter.report("E1304", message, node.span, "already in batches", help=help_text)
        return None
    if isinstance(type_, PythonType):
        message = f"`{name}` needs a dataset, and a Python value isn't known to be one"
        help_text = "say which records it holds with `as`, as in `data as Dataset[Digit]`"
    else:
        message = f"`{name}` needs a dataset, not {format_type(type_)}"
        help_text = "a dataset is a `Dataset[R]` parameter, given from Python"
    checker.reporter.report("E1304", message, node.span, "not a dataset", help=help_text)
    return None


def _batch_size_ok(checker: BodyContext, n: Arg) -> bool:
    """A batch size known to be less than 1 is E1304."""
    type_ = n.type
    if not isinstance(type_, HostType):
        return True
    known = None
    if type_.size is not None:
        known = type_.size.substitute(checker.scope.dim_values).value
    interval = interval_of(type_)
    if known is not None and known >= 1:
        return True
    if known is None and (interval is None or interval.hi >= 1):
        return True
    shown = str(known) if known is not None else f"in {interval}"
    checker.reporter.report(
        "E1304",
        f"a batch holds at least 1 example, and this batch size is {shown}",
        n.span,
        "less than 1",
    )
    return False


# ---------------------------------------------------------------------- loops


def loop_variable(checker: BodyContext, source: Type, stmt: ast.For) -> Type | None:
    """The variable of a `for` over batches: `[b] Digit`, with b a fresh unknown size;
    None when the loop isn't over a dataset (E0804 for a dataset not in batches)."""
    if isinstance(source, BatchesType):
        size = Poly.symbol(checker.fresh_unknown(BATCH_AXIS))
        name = BATCH_AXIS if _axis_name_free(checker, stmt.var.name) else None
        return BatchType(source.record, (Axis(size, name),))
    if isinstance(source, (DatasetType, BatchType)):
        help_text = (
            "loop over its batches: `for batch in train |> batches(64):`"
            if isinstance(source, DatasetType)
            else "a batch is looped over with an iterator chain over its batch axis"
        )
        checker.reporter.report(
            "E0804",
            f"a for loop can't loop over {format_type(source)}",
            stmt.iterable.span,
            "not iterable",
            help=help_text,
        )
        return UNKNOWN
    return None


def _axis_name_free(checker: BodyContext, variable: str) -> bool:
    name = BATCH_AXIS
    return (
        name != variable
        and name not in checker.env.values
        and name not in checker.env.axes
        and name not in checker.scope.symbols
    )


def bind_loop_axis(checker: BodyContext, stmt: ast.For, variable: Type) -> None:
    """Inside a loop over batches, the batch axis's name is its size, when it has one. The
    name has no span of its own, so its symbol is at the loop variable's, which keeps its
    own type and reference."""
    if not isinstance(variable, BatchType):
        return
    for axis in variable.axes:
        name = axis.name
        if name is None or name in checker.env.axes:
            continue
        symbol = checker.symbol(name, "axis", stmt.var.span, str(axis.size))
        checker.env.axes[name] = (axis.size, symbol)
        if checker.program.editor_facts:
            checker.facts.entries.append(
                ScopeEntry(name, symbol, HostType("int", axis.size), stmt.var.span.end, stmt.span)
            )
