"""Models, gradients, optimizer state and modes as values in a function body.

Which value fits where one of these types is expected (E0904, E1502, E1503, E1504,
E1202, E0412, E1108), reading a field (`m.w1`, `g.w1`, E0901) and making a model
(`Mlp.init(seed=…)`, E0303, E0301).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra import fixes
from shapescript.check.algebra.types import (
    DATA_TYPES,
    LOGGING_TYPES,
    TRAINING_TYPES,
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
    SinkType,
    StackType,
    StringType,
    TensorType,
    Type,
    UnknownType,
    format_type,
    interval_of,
)
from shapescript.check.bodies import data_values
from shapescript.check.declarations.module_scope import suggestion
from shapescript.check.declarations.symbols import Reference
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext
    from shapescript.check.bodies.env import Arg

#: Types that say for certain what a value is, so a value of one of them that is expected
#: to be another is reported.
_DEFINITE = TensorType | HostType | TRAINING_TYPES | LOGGING_TYPES | DATA_TYPES
#: The types of tensors and host values, exactly.
_VALUE_TYPES = (TensorType, HostType)
#: Values that aren't tensors.
_NOT_TENSORS = TRAINING_TYPES | LOGGING_TYPES | DATA_TYPES
#: What can't be where a logs record or a sink is expected, besides those.
_NOT_LOGGING = _DEFINITE | StringType | BatchType


def fit_problem(expected: Type | None, actual: Type) -> tuple[str, str] | None:
    """Why a value of type `actual` can't be where `expected` is wanted, as (code, reason),
    for the types of models, gradients, optimizer state, schedules, modes, logs records and
    sinks; None if it fits or isn't one of these cases. A Python value or an unknown one
    fits anything."""
    if expected is None or isinstance(actual, (UnknownType, PythonType)):
        return None
    # The common case, a tensor or a host value where one of these is wanted, fits here
    # (shapes and kinds are the caller's to match).
    if type(expected) in _VALUE_TYPES and type(actual) in _VALUE_TYPES:
        return None
    data = data_values.fit_problem(expected, actual)
    if data is not None:
        return data
    if isinstance(expected, ModelType):
        if isinstance(actual, ModelType) and actual.name == expected.name:
            return None
        if isinstance(actual, ModelType):
            return "E0904", f"it is a {actual.name}, not a {expected.name}"
        if isinstance(actual, _DEFINITE):
            return "E0904", f"{format_type(actual)} isn't the model {expected.name}"
        return None
    if isinstance(expected, GradType):
        if isinstance(actual, GradType) and actual.model == expected.model:
            return None
        if isinstance(actual, _DEFINITE):
            return "E0904", f"{format_type(actual)} isn't a gradient of {expected.model}"
        return None
    if isinstance(expected, OptimizerType):
        if isinstance(actual, OptimizerType) and actual.kind == expected.kind:
            if actual.model == expected.model:
                return None
            return "E1502", f"it is state for a {actual.model}, not a {expected.model}"
        if isinstance(actual, _DEFINITE):
            return "E1503", f"{format_type(actual)} isn't {format_type(expected)}"
        return None
    if isinstance(expected, ScheduleType):
        if isinstance(actual, ScheduleType) or (
            isinstance(actual, HostType) and actual.kind in ("int", "float")
        ):
            return None
        if isinstance(actual, _DEFINITE):
            return "E1504", f"{format_type(actual)} isn't a number or a Schedule"
        return None
    if isinstance(expected, ModeType):
        if isinstance(actual, ModeType):
            return None
        if isinstance(actual, _DEFINITE):
            return "E1202", f"{format_type(actual)} isn't a Mode: pass Train(seed=…) or Eval"
        return None
    if isinstance(expected, LogsType):
        if isinstance(actual, LogsType) and actual.name == expected.name:
            return None
        if isinstance(actual, LogsType):
            return "E1403", f"it is a {actual.name} record, not a {expected.name}"
        if isinstance(actual, _NOT_LOGGING):
            return "E1403", f"{format_type(actual)} isn't a {expected.name} record"
        return None
    if isinstance(expected, SinkType):
        if isinstance(actual, SinkType):
            return None
        if isinstance(actual, _NOT_LOGGING):
            return (
                "E1404",
                f"{format_type(actual)} isn't a LogSink: a sink is a Python object passed in",
            )
        return None
    if isinstance(expected, (TensorType, HostType)):
        if isinstance(actual, GradType):
            return "E1108", "a gradient isn't a tensor: only its fields are"
        if isinstance(actual, _NOT_TENSORS):
            return "E0412", f"{format_type(actual)} isn't a tensor"
    return None


def report_misfit(checker: BodyContext, problem: tuple[str, str], message: str, span) -> None:
    code, reason = problem
    checker.reporter.report(code, f"{message}: {reason}", span, "doesn't fit")


# ---------------------------------------------------------------------- fields


def names_model(checker: BodyContext, node: ast.Member) -> bool:
    """Whether `node` is `Mlp.something`, with `Mlp` a model's name."""
    target = node.target
    return isinstance(target, ast.Name) and _is_model_name(checker, target.name)


def model_name_member(checker: BodyContext, node: ast.Member) -> Type:
    """`Mlp.init` not called (E0303), or `Mlp.other` (E0301)."""
    target = node.target
    checker.refer(target.span, checker.scope.symbols[target.name])
    if node.name == "init":
        checker.reporter.report(
            "E0303",
            f"`{target.name}.init` makes a model when called: `{target.name}.init(seed=0)`",
            node.span,
            "not called",
        )
    else:
        checker.reporter.report(
            "E0301",
            f"a model has nothing named `{node.name}`: `init` is all its name offers",
            node.name_span,
            "unknown",
            help=f"make one with `{target.name}.init(seed=0)`",
        )
    return UNKNOWN


def member(checker: BodyContext, node: ast.Member, target: Type) -> Type | None:
    """`m.w1` and `g.w1`; None when the target is none of the training types."""
    if isinstance(target, ModelType):
        return field_type(checker, target.name, node.name, node.name_span, node.span, False)
    if isinstance(target, GradType):
        return field_type(checker, target.model, node.name, node.name_span, node.span, True)
    if isinstance(target, StackType):
        checker.reporter.report(
            "E0901",
            f"{format_type(target)} is a stack of models, which has no fields: "
            f"its models have them",
            node.name_span,
            "no such field",
            help=f"index it first, as in `[0].{node.name}`, or loop over it with `for`",
        )
        return UNKNOWN
    if isinstance(target, (ModeType, OptimizerType, ScheduleType)):
        checker.reporter.report(
            "E0901",
            f"{format_type(target)} has no fields",
            node.name_span,
            "no such field",
        )
        return UNKNOWN
    return None


def field_type(
    checker: BodyContext, model: str, name: str, name_span, span, gradient: bool
) -> Type:
    """The type of field `name` of `model` (a param's, for a gradient), after E0901."""
    info = checker.scope.model_infos.get(model)
    if info is None:
        return UNKNOWN
    found = info.fields.get(name)
    if found is None or (gradient and not (found.is_param or found.is_model)):
        candidates = [
            f.name for f in info.fields.values() if f.is_param or f.is_model or not gradient
        ]
        if found is not None:
            message = f"`{name}` is a buffer of {model}, and a gradient has only its params"
        else:
            message = f"{model} has no field `{name}`"
        checker.reporter.report(
            "E0901",
            message,
            name_span,
            "no such field",
            help=suggestion(name, candidates),
            fixes=fixes.spelling(name, candidates, name_span),
        )
        return UNKNOWN
    checker.facts.references.append(Reference(name_span, field=(model, name)))
    checker.facts.fields[span] = (model, name)
    if gradient and found.is_model:
        return gradient_of_held(found.type)
    return found.type


def gradient_of_held(type_: Type) -> Type:
    """What a gradient holds for a field that holds models: their gradients."""
    if isinstance(type_, ModelType):
        return GradType(type_.name)
    if isinstance(type_, StackType) and isinstance(type_.element, ModelType):
        return StackType(GradType(type_.element.name), type_.count, type_.size)
    return type_


def stack_index(checker: BodyContext, node: ast.Index, target: StackType) -> Type:
    """`m.h[l]`: one of a stack's models, `l` an int; E3403 when `l` is known to be outside
    0..count-1."""
    if len(node.items) != 1 or isinstance(node.items[0], (ast.Slice, ast.SpacedIndex)):
        checker.reporter.report(
            "E0403",
            f"{format_type(target)} is indexed by one int, the model's position",
            node.span,
            "one int",
            help="write `m.h[l]` with `l` an int, or loop over the models with `for blk in m.h:`",
        )
        return UNKNOWN
    item = node.items[0]
    index = checker.expr(item)
    if isinstance(index, (PythonType, UnknownType)):
        return target.element
    if not (isinstance(index, HostType) and index.kind == "int"):
        checker.reporter.report(
            "E0805",
            f"a stack of models is indexed by an int, not {format_type(index)}",
            item.span,
            "not an int",
            help="use a loop variable of `for l in 0..L:`, an int parameter or a number",
        )
        return UNKNOWN
    known = interval_of(index)
    if known is not None and (known.lo > target.count - 1 or known.hi < 0):
        shown = f"{int(known.lo)}" if known.lo == known.hi else f"in {known}"
        checker.reporter.report(
            "E3403",
            f"index {shown} is outside {format_type(target)}, whose models are "
            f"0 to {target.count - 1}",
            item.span,
            "out of range",
            help=f"index with an int from 0 to {target.count - 1}",
        )
        return UNKNOWN
    return target.element


def _is_model_name(checker: BodyContext, name: str) -> bool:
    if name in checker.env.values or name in checker.env.axes:
        return False
    symbol = checker.scope.symbols.get(name)
    return symbol is not None and symbol.kind == "model"


# ---------------------------------------------------------------------- Mlp.init


def init_call(checker: BodyContext, node: ast.Call, args: list[Arg]) -> Type | None:
    """`Mlp.init(seed=s)` and `Mlp.other(...)`; None when the callee isn't a model's."""
    callee = node.callee
    if not (
        isinstance(callee, ast.Member)
        and isinstance(callee.target, ast.Name)
        and _is_model_name(checker, callee.target.name)
    ):
        return None
    model = callee.target.name
    checker.refer(callee.target.span, checker.scope.symbols[model])
    if callee.name != "init":
        checker.reporter.report(
            "E0301",
            f"a model has nothing named `{callee.name}`: `init` is all its name offers",
            callee.name_span,
            "unknown",
            help=f"make one with `{model}.init(seed=0)`",
        )
        return UNKNOWN
    from shapescript.check.bodies.training_arguments import host_argument, match_named

    for arg in args:
        if arg.mut:
            checker.reporter.report(
                "E1101",
                f"`{model}.init` changes nothing, so its arguments aren't mut",
                arg.span,
                "mut not allowed",
            )
            return UNKNOWN
    matched = match_named(
        checker, f"{model}.init", args, node, ("seed",), required=("seed",), keyword=("seed",)
    )
    if matched is None:
        return UNKNOWN
    if not host_argument(checker, f"{model}.init", "seed", matched["seed"], "int"):
        return UNKNOWN
    return ModelType(model)


def model_called(checker: BodyContext, name: str, span) -> None:
    """`Mlp(...)`: a model's name isn't a function."""
    checker.reporter.report(
        "E0303",
        f"`{name}` is a model, not a function: make one with `{name}.init(seed=0)`",
        span,
        "called here",
    )


def cast(checker: BodyContext, node: ast.Cast, operand: Type, target: Type) -> Type | None:
    """`as` and `to` with a model, gradient, optimizer state, schedule, mode, logs record or
    sink on either side; None when neither is one. Only a Python value can be asserted to
    be a model, optimizer state, a schedule, a mode, a record or a sink; nothing is
    converted to one, and nothing is asserted to be a gradient (E0303)."""
    if isinstance(operand, _NOT_TENSORS) and not isinstance(target, _NOT_TENSORS):
        checker.reporter.report(
            "E0412",
            f"{format_type(operand)} isn't a tensor, so `{node.kind}` can't make one of it",
            node.span,
            "not a tensor",
        )
        return UNKNOWN
    if not isinstance(target, _NOT_TENSORS):
        return None
    asserted = node.kind == "as" and not isinstance(target, GradType)
    if asserted and (isinstance(operand, (PythonType, UnknownType)) or operand == target):
        return target
    checker.reporter.report(
        "E0303",
        f"`{node.kind} {format_type(target)}` isn't possible: "
        + (
            "a gradient comes from value_and_grad"
            if isinstance(target, GradType)
            else "only a Python value can be asserted to be one"
        ),
        node.type.span,
        "not a type for `as` or `to`",
    )
    return UNKNOWN
