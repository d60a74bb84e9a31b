"""Iterator chains: map, filter, zip and enumerate as pipe stages over sizes, ranges and tensors.

A chain's state between stages is an `Iteration`: the iterated axis and the element (or
the parts of a pair). `map` turns it back into a tensor whose first axis is the iterated
one; `filter` keeps some elements, along a new unknown size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.sizes import Poly, format_size
from shapescript.check.algebra.solver import sizes_equal
from shapescript.check.algebra.types import (
    UNKNOWN,
    Axis,
    Domain,
    HostType,
    PythonType,
    SeveralType,
    TensorType,
    Type,
    UnknownType,
    format_type,
)
from shapescript.records import record
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext

ITERATOR_STAGES = frozenset({"map", "filter", "zip", "enumerate"})
#: Built-ins a stage's function may not call: they do more than compute a value (E2403).
EFFECTFUL = frozenset(
    {
        "print",
        "save",
        "load",
        "value_and_grad",
        "update",
        "sgd",
        "adamw",
        "clip_norm",
        "cosine",
        "warmup",
        "shuffle",
        "batches",
        "Train",
        "Eval",
        "dropout",
    }
)


@record(frozen=True)
class Iteration:
    """What a chain iterates: the axis, and each element's parts (two for pairs)."""

    axis: Axis
    parts: tuple[Type, ...]


def stage_name(stage: ast.Expr) -> str | None:
    # The node classes have no subclasses: `type(x) is C` is `isinstance(x, C)`.
    callee = stage.callee if type(stage) is ast.Call else stage
    if type(callee) is ast.Name and callee.name in ITERATOR_STAGES:
        return callee.name
    return None


def _over(stage: ast.Expr) -> ast.Arg | None:
    if isinstance(stage, ast.Call):
        for arg in stage.args:
            if arg.name == "over":
                return arg
    return None


def index_element(size: Poly, zero_based: bool) -> TensorType:
    domain = Domain("Index", None, size) if zero_based else Domain()
    return TensorType((), domain, "i64")


def start(
    checker: BodyContext, current: Type, node: ast.Expr, stage: ast.Expr, from_chain: bool
) -> Iteration | None:
    """What the first iterator stage iterates (E2401, E0405, E0406)."""
    if isinstance(node, ast.Range):
        lo = checker.expr(node.lo)
        hi = checker.expr(node.hi)
        if (
            isinstance(lo, HostType)
            and lo.size is not None
            and isinstance(hi, HostType)
            and hi.size is not None
        ):
            size = hi.size - lo.size
            zero = lo.size.value == 0
            name = hi.size.single_symbol() if zero else None
            return Iteration(Axis(size, name), (index_element(hi.size, zero),))
        return _not_iterable(checker, node, "a range whose ends aren't sizes")
    if isinstance(current, HostType) and current.kind == "int" and current.size is not None:
        size = current.size
        value = size.value
        if value is not None and value < 1:
            return _not_iterable(checker, node, f"{value}, which isn't a positive size")
        return Iteration(Axis(size, size.single_symbol()), (index_element(size, True),))
    if isinstance(current, TensorType) and current.axes:
        over = _over(stage)
        axes = current.axes
        if over is not None and isinstance(over.value, ast.Name):
            for index, axis in enumerate(axes):
                if axis.name == over.value.name:
                    if _split_iteration(checker, axis, node):
                        return None
                    return _slice(current, index)
            named = ", ".join(f"`{a.name}`" for a in axes if a.name)
            checker.reporter.report(
                "E0405",
                f"{format_type(current)} has no axis `{over.value.name}`",
                over.value.span,
                "not an axis",
                notes=[f"its named axes are {named}" if named else "it has no named axes"],
            )
            return None
        if len(axes) == 1 or from_chain:
            return _slice(current, 0)
        checker.reporter.report(
            "E0406",
            f"which axis of {format_type(current)} to iterate? add `over=`",
            stage.span,
            "no `over=`",
            help=f"name the axis, as `over={axes[0].name or 'n'}`",
        )
        return None
    if isinstance(current, UnknownType):
        return None
    return _not_iterable(checker, node, format_type(current))


def _split_iteration(checker: BodyContext, axis: Axis, node: ast.Expr) -> bool:
    """E2404: a stage over a batch axis that is split across several devices."""
    if axis.name is None or axis.name not in checker.split_axes:
        return False
    checker.reporter.report(
        "E2404",
        f"an iterator stage over `{axis.name}`, the batch axis split across the "
        f"{checker.scope.device_count} devices, has no lowering on each device's part",
        node.span,
        "split across devices",
        help="write it with operations on whole tensors, which the checker splits: "
        "`x * 2.0` rather than `x |> map(row => row * 2.0, over=b)`",
    )
    return True


def _zip_tensor(
    checker: BodyContext, iteration: Iteration, tensor: TensorType, node: ast.Expr, stage
) -> Iteration | None:
    """zip's other tensor, of several axes: iterated along its first axis when it is a map
    or filter's result, else along the axis named like the chain's (E0406 otherwise)."""
    axes = tensor.axes
    from_chain = isinstance(node, ast.Pipe) and stage_name(node.stages[-1]) in ("map", "filter")
    index = 0 if from_chain else None
    if index is None and iteration.axis.name is not None:
        index = next((i for i, a in enumerate(axes) if a.name == iteration.axis.name), None)
    if index is None:
        checker.reporter.report(
            "E0406",
            f"which axis of {format_type(tensor)} to zip with? none is named like the chain's axis",
            node.span,
            "no axis to zip along",
            help="give the axis the chain's name, or iterate it with `|> map(...)` first",
        )
        return None
    checker.facts.zip_axes[stage.span] = index
    return _slice(tensor, index)


def _slice(tensor: TensorType, index: int) -> Iteration:
    axes = tensor.axes
    element = TensorType(axes[:index] + axes[index + 1 :], tensor.domain, tensor.dtype)
    return Iteration(axes[index], (element,))


def _not_iterable(checker: BodyContext, node: ast.Expr, what: str) -> None:
    checker.reporter.report(
        "E2401",
        f"an iterator chain can't iterate {what}: its length must be known from the types",
        node.span,
        "not a size, range or tensor",
        help="iterate an axis name, a dim, a number, a range of those, or a tensor; give a "
        "Python value a shape with `as` first",
    )
    return None


def _lambda(stage: ast.Expr) -> ast.Lambda | None:
    if isinstance(stage, ast.Call):
        for arg in stage.args:
            if isinstance(arg.value, ast.Lambda) and arg.name is None:
                return arg.value
    return None


def _function_arg(stage: ast.Expr) -> ast.Arg | None:
    if isinstance(stage, ast.Call):
        for arg in stage.args:
            if arg.name is None:
                return arg
    return None


def apply(checker: BodyContext, iteration: Iteration, stage: ast.Expr) -> Type | Iteration:
    """One iterator stage: a new iteration (zip, enumerate, filter) or a tensor (map)."""
    name = stage_name(stage)
    if name == "enumerate":
        index = index_element(iteration.axis.size, True)
        return Iteration(iteration.axis, (index, *iteration.parts))
    if name == "zip":
        other_arg = _function_arg(stage)
        if other_arg is None:
            checker.reporter.report("E0406", "zip needs what to zip with", stage.span, "zip()")
            return UNKNOWN
        other_type = checker.expr(other_arg.value)
        if isinstance(other_type, TensorType) and other_type.axes and len(other_type.axes) > 1:
            other = _zip_tensor(checker, iteration, other_type, other_arg.value, stage)
        else:
            other = start(checker, other_type, other_arg.value, stage, True)
        if other is None:
            return UNKNOWN
        if not sizes_equal(iteration.axis.size, other.axis.size, checker.scope.dim_values):
            checker.reporter.report(
                "E0401",
                "zip's two iterations have different lengths",
                other_arg.span,
                f"{format_size(other.axis.size)} long",
                notes=[
                    f"the chain iterates {format_size(iteration.axis.size)} elements, this "
                    f"{format_size(other.axis.size)}"
                ],
            )
            return UNKNOWN
        return Iteration(iteration.axis, iteration.parts + other.parts)
    function = _function_arg(stage)
    if function is None:
        checker.reporter.report("E0406", f"{name} needs a function", stage.span, f"{name}()")
        return UNKNOWN
    result = _apply_function(checker, iteration, function.value, stage)
    if isinstance(result, UnknownType):
        return UNKNOWN
    if name == "filter":
        if not (
            isinstance(result, TensorType) and result.domain.name == "Mask" and (result.axes == ())
        ) and not (isinstance(result, HostType) and result.kind == "bool"):
            checker.reporter.report(
                "E0501",
                f"filter's function must give a [] Mask for each element, not "
                f"{format_type(result)}",
                function.span,
                "not a mask",
            )
            return UNKNOWN
        kept = Axis(Poly.symbol(checker.fresh_unknown("k")))
        return Iteration(kept, iteration.parts)
    if isinstance(result, HostType):
        result = TensorType((), Domain(), None if result.kind != "int" else "i64")
    if not isinstance(result, TensorType) or result.axes is None:
        if isinstance(result, PythonType):
            return PythonType()
        return UNKNOWN
    return TensorType((iteration.axis, *result.axes), result.domain, result.dtype)


def _apply_function(checker: BodyContext, iteration: Iteration, function, stage) -> Type:
    parts = iteration.parts
    if isinstance(function, ast.Lambda):
        if len(function.params) != len(parts):
            what = "pairs" if len(parts) == 2 else f"{len(parts)} parts"
            checker.reporter.report(
                "E3206",
                f"the elements are {what}, but the lambda takes {len(function.params)} "
                f"parameter(s)",
                function.span,
                "one parameter per part",
                help="take each part apart: `(i, row) => ...`",
            )
            return UNKNOWN
        return checker.lambda_body(function, parts)
    if len(parts) != 1:
        checker.reporter.report(
            "E3206",
            "a stage given by name takes one element, not pairs",
            function.span,
            "pairs",
            help="use a lambda with one parameter per part: `(i, row) => ...`",
        )
        return UNKNOWN
    checker.note_stage_function(function, parts[0])
    if isinstance(function, ast.ToStage):
        cast = ast.Cast("to", function, function.type, function.span)
        return checker.to_stage(parts[0], cast)
    if isinstance(function, ast.Call):
        return checker.call(function, _element_arg(parts[0], function.span))
    call = ast.Call(function, [], function.span)
    return checker.call(call, _element_arg(parts[0], function.span))


def _element_arg(element: Type, span: Span):
    from shapescript.check.bodies.env import Arg

    return Arg(None, element, span)


def finish(checker: BodyContext, value: Type | Iteration, span: Span) -> Type:
    """A chain's value at its end: pairs can't end a chain (E3205)."""
    if isinstance(value, Iteration):
        if len(value.parts) > 1:
            checker.reporter.report(
                "E3205",
                "a chain can't end with pairs: take them apart with a map or filter",
                span,
                "pairs",
                help="add a stage such as `|> map((i, row) => ...)`",
            )
            return UNKNOWN
        element = value.parts[0]
        if isinstance(element, TensorType) and element.axes is not None:
            return TensorType((value.axis, *element.axes), element.domain, element.dtype)
        return UNKNOWN
    return value


def as_several(value: Type | Iteration) -> Type:
    if isinstance(value, Iteration):
        return SeveralType(value.parts)
    return value
