"""How the checker types its own built-in operations, indexing and `causal`.

Which built-ins exist, with their documentation, is `builtin_table.BUILTINS`; this
module holds the typing rules, dispatched on each entry's kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra import ranges
from shapescript.check.algebra.assertions import non_negative
from shapescript.check.algebra.broadcast import ShapeError, broadcast
from shapescript.check.algebra.patterns import PatternError, check_pattern
from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.solver import sizes_equal
from shapescript.check.algebra.types import (
    MASK,
    UNKNOWN,
    Axis,
    Domain,
    HostType,
    PythonType,
    SeveralType,
    StackType,
    StringType,
    TensorType,
    Type,
    UnknownType,
    format_shape,
    format_type,
    interval_of,
    range_domain,
)
from shapescript.check.declarations.builtin_table import BUILTINS
from shapescript.check.declarations.symbols import Symbol
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext
    from shapescript.check.bodies.env import Arg

BUILTIN_PATH = "<builtins>"
KNOWN = frozenset(BUILTINS)
ELEMENTWISE = frozenset(name for name, entry in BUILTINS.items() if entry.kind == "elementwise")
REDUCTION_NAMES = frozenset({"sum", "mean", "max", "min", "prod"})
NONNEG_REDUCTIONS = frozenset({"std", "var", "norm"})
MASK_REDUCTIONS = frozenset({"any", "all"})

_SYMBOLS: dict[str, Symbol] = {}


def symbol(name: str) -> Symbol:
    """The declaration of a built-in, in the generated builtins.ss."""
    found = _SYMBOLS.get(name)
    if found is None:
        entry = BUILTINS[name]
        found = Symbol(
            name, "builtin", Span(0, 0), BUILTIN_PATH, entry.signature, entry.documentation
        )
        _SYMBOLS[name] = found
    return found


def call(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    kind = BUILTINS[name].kind
    handler = _HANDLERS.get(name) or _KIND_HANDLERS.get(kind)
    if handler is None:
        return UNKNOWN
    return handler(checker, name, args, node)


# ---------------------------------------------------------------------- helpers


def _positional(args: list[Arg]) -> list[Arg]:
    return [arg for arg in args if arg.name is None]


def _keyword(args: list[Arg], name: str) -> Arg | None:
    for arg in args:
        if arg.name == name:
            return arg
    return None


def _report_arity(checker: BodyContext, name: str, node: ast.Call, message: str) -> Type:
    checker.reporter.report("E0406", message, node.span, f"{name}(...)")
    return UNKNOWN


def _tensor_operand(checker: BodyContext, name: str, arg: Arg, needs_axes: bool) -> Type | None:
    """The operand as a tensor with axes; None (after at most one diagnostic) otherwise."""
    type_ = arg.type
    if isinstance(type_, TensorType) and type_.axes is not None:
        return type_
    if isinstance(type_, StringType):
        checker.reporter.report(
            "E0412", f"`{name}` needs a tensor, not a string", arg.span, "string"
        )
    elif isinstance(type_, PythonType) and needs_axes:
        checker._python_value_error(arg.span, f"given to `{name}`, which works along named axes")
    return None


def _over_axis(
    checker: BodyContext, name: str, tensor: TensorType, over: Arg, node: ast.Call
) -> int | None:
    """The position of the axis `over=` names (E0405, E0406)."""
    expr = over.expr
    if not isinstance(expr, ast.Name):
        checker.reporter.report(
            "E0406", "`over=` takes the name of an axis", over.span, "not an axis name"
        )
        return None
    for index, axis in enumerate(tensor.axes or ()):
        if axis.name == expr.name:
            owner = checker.env.axes.get(expr.name)
            if owner is not None:
                checker.refer(expr.span, owner[1])
            elif expr.name in checker.scope.symbols:
                checker.refer(expr.span, checker.scope.symbols[expr.name])
            return index
    named = [axis.name for axis in tensor.axes or () if axis.name]
    checker.reporter.report(
        "E0405",
        f"{format_type(tensor)} has no axis `{expr.name}`",
        expr.span,
        "not an axis of the tensor",
        notes=[
            "its named axes are " + ", ".join(f"`{n}`" for n in named)
            if named
            else "it has no named axes"
        ],
    )
    return None


def _without(axes: tuple[Axis, ...], index: int) -> tuple[Axis, ...]:
    return axes[:index] + axes[index + 1 :]


# ---------------------------------------------------------------------- reductions


def _reduction(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    positional = _positional(args)
    over = _keyword(args, "over")
    if not positional:
        return _report_arity(checker, name, node, f"`{name}` needs a tensor to reduce")
    if len(positional) > 1:
        return _report_arity(checker, name, node, f"`{name}` takes one tensor and `over=`")
    for arg in args:
        if arg.name not in (None, "over"):
            checker.reporter.report(
                "E0406", f"`{name}` has no parameter `{arg.name}`", arg.span, "unknown keyword"
            )
            return UNKNOWN
    operand = positional[0]
    if isinstance(operand.type, PythonType) and over is None:
        return PythonType()
    tensor = _tensor_operand(checker, name, operand, needs_axes=over is not None)
    if tensor is None:
        return UNKNOWN
    dtype = tensor.dtype
    if name not in MASK_REDUCTIONS and tensor.domain.name == "Mask":
        checker.reporter.report(
            "E0501",
            f"`{name}` needs numbers, not a Mask",
            operand.span,
            "a mask",
            help="convert it first: `m to Binary` counts true as 1",
        )
        return UNKNOWN
    domain, dtype = reduced_element(name, tensor)
    if over is None:
        return TensorType((), domain, dtype)
    index = _over_axis(checker, name, tensor, over, node)
    if index is None:
        return UNKNOWN
    semantic = tensor.domain.over
    if (
        semantic is not None
        and semantic != tensor.axes[index].name
        and (name == "mean" or tensor.domain.name == "Logit")
    ):
        domain = tensor.domain
    return TensorType(_without(tensor.axes, index), domain, dtype)


def reduced_element(name: str, tensor: TensorType) -> tuple[Domain, str | None]:
    """The domain and dtype a reduction gives: sum and prod of booleans and integers are
    i64, and the reductions that average (mean, std, var, norm, logsumexp) of integers give
    the default float."""
    if name in MASK_REDUCTIONS:
        return MASK, "bool"
    dtype = tensor.dtype
    whole = tensor.resolved_dtype in ("bool", "u8", "i8", "i16", "i32", "i64")
    if name in ("sum", "prod") and whole:
        dtype = "i64"
    elif name not in ("sum", "prod", "max", "min") and whole:
        dtype = None
    return _reduced_domain(name, tensor), dtype


def _reduced_domain(name: str, tensor: TensorType) -> Domain:
    """What a reduction leaves of the values' range (Range inference)."""
    interval = interval_of(tensor) or ranges.REAL
    if name in NONNEG_REDUCTIONS:
        return range_domain(ranges.NAMED_RANGES["NonNeg"])
    if name in ("sum", "prod"):
        return range_domain(ranges.sign_only(interval))
    if name in ("max", "min"):
        return range_domain(interval)
    if name == "mean":
        return range_domain(ranges.mean_of(interval))
    if name == "logsumexp":
        return range_domain(ranges.Interval(interval.lo, ranges.INF, interval.lo_closed, False))
    return Domain()


def _along_axis(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    positional = _positional(args)
    over = _keyword(args, "over")
    expected = 2 if name in ("topk", "cross_entropy") else 1
    if name == "masked_fill":
        return _masked_fill(checker, name, args, node)
    if name in ("cat", "stack"):
        return _join(checker, name, args, node)
    if name in ("gather", "scatter"):
        return _gather_scatter(checker, name, args, node)
    if not positional:
        return _report_arity(checker, name, node, f"`{name}` needs a tensor")
    for arg in args:
        if arg.name not in (None, "over"):
            checker.reporter.report(
                "E0406", f"`{name}` has no parameter `{arg.name}`", arg.span, "unknown keyword"
            )
            return UNKNOWN
    if over is None:
        checker.reporter.report(
            "E0406",
            f"`{name}` needs `over=`: the axis it works along",
            node.span,
            "no `over=`",
            help=f"name the axis, as `{name}(x, over=n)`",
        )
        return UNKNOWN
    if len(positional) != expected:
        return _report_arity(
            checker, name, node, f"`{name}` takes {expected} argument(s) and `over=`"
        )
    tensor = _tensor_operand(checker, name, positional[0], needs_axes=True)
    if tensor is None:
        return UNKNOWN
    index = _over_axis(checker, name, tensor, over, node)
    if index is None:
        return UNKNOWN
    axes = tensor.axes
    axis = axes[index]
    axis_name = axis.name
    if tensor.domain.name == "Mask":
        checker.reporter.report(
            "E0501",
            f"`{name}` needs numbers, not a Mask",
            positional[0].span,
            "a mask",
            help="convert it first, as in `m to Binary`",
        )
        return UNKNOWN
    if name in ("softmax", "log_softmax", "cross_entropy") and tensor.domain.name == "Prob":
        question = (
            "softmax applied twice?"
            if name != "cross_entropy"
            else ("softmax applied before cross_entropy?")
        )
        checker.reporter.report(
            "E0501",
            f"`{name}` takes logits, but this is a Prob over {tensor.domain.over}: {question}",
            positional[0].span,
            format_type(tensor),
            help="pass the logits, before the softmax"
            if name != "cross_entropy"
            else "cross_entropy applies log_softmax itself: pass the logits",
        )
        return UNKNOWN
    if name == "softmax":
        return TensorType(axes, Domain("Prob", axis_name), tensor.dtype)
    if name == "log_softmax":
        return TensorType(axes, Domain("LogProb", axis_name), tensor.dtype)
    if name in ("argmax", "argmin"):
        return TensorType(_without(axes, index), Domain("Index", None, axis.size), "i64")
    if name == "argsort":
        return TensorType(axes, Domain("Index", None, axis.size), "i64")
    if name == "topk":
        return _topk(checker, tensor, index, positional[1], node)
    if name == "cross_entropy":
        return _cross_entropy(checker, tensor, index, positional[1])
    return TensorType(axes, Domain(), tensor.dtype)


def _topk(checker: BodyContext, tensor: TensorType, index: int, k: Arg, node) -> Type:
    axis = tensor.axes[index]
    count = k.type.size if isinstance(k.type, HostType) and k.type.kind == "int" else None
    if count is None:
        if isinstance(k.type, (HostType, PythonType)):
            size = Poly.symbol(checker.fresh_unknown("k"))
        else:
            checker.reporter.report("E0406", "topk's `k` must be an int", k.span, "not an int")
            return UNKNOWN
    else:
        size = count
        count_value = count.substitute(checker.scope.dim_values).value
        axis_value = axis.size.substitute(checker.scope.dim_values).value
        if count_value is not None and (
            count_value < 0 or (axis_value is not None and count_value > axis_value)
        ):
            checker.reporter.report(
                "E0415",
                f"topk asks for {count_value} values of an axis of {axis_value}"
                if count_value >= 0
                else "topk can't ask for a negative number of values",
                k.span,
                "too many" if count_value >= 0 else "negative",
            )
            return UNKNOWN
    values_axes = tensor.axes[:index] + (Axis(size),) + tensor.axes[index + 1 :]
    return SeveralType(
        (
            TensorType(values_axes, Domain(), tensor.dtype),
            TensorType(values_axes, Domain("Index", None, axis.size), "i64"),
        )
    )


def _cross_entropy(checker: BodyContext, logits: TensorType, index: int, labels: Arg) -> Type:
    target = labels.type
    classes = logits.axes[index].size
    if (
        isinstance(target, TensorType)
        and target.domain.name == "Index"
        and target.domain.size is not None
        and not sizes_equal(target.domain.size, classes, checker.scope.dim_values)
    ):
        checker.reporter.report(
            "E0507",
            f"the labels are indices below {target.domain.size}, but there are {classes} classes",
            labels.span,
            format_type(target),
        )
        return UNKNOWN
    if isinstance(target, TensorType) and target.axes is not None:
        expected = _without(logits.axes, index)
        if len(target.axes) != len(expected):
            checker.reporter.report(
                "E0403",
                f"cross_entropy's labels need the logits' axes without the class axis: "
                f"{format_shape(expected)}",
                labels.span,
                format_type(target),
            )
            return UNKNOWN
    return TensorType((), range_domain(ranges.NAMED_RANGES["NonNeg"]), logits.dtype)


def _masked_fill(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    positional = _positional(args)
    if len(positional) != 3:
        return _report_arity(checker, name, node, "masked_fill takes a tensor, a mask and a value")
    tensor = _tensor_operand(checker, name, positional[0], needs_axes=False)
    mask = positional[1].type
    if tensor is None or not isinstance(mask, TensorType) or mask.axes is None:
        return tensor or UNKNOWN
    tensor_names = {axis.name for axis in tensor.axes if axis.name}
    extra = [axis.name for axis in mask.axes if axis.name and axis.name not in tensor_names]
    if extra or len(mask.axes) > len(tensor.axes):
        checker.reporter.report(
            "E0404",
            f"the mask {format_type(mask)} has axes the tensor {format_type(tensor)} doesn't",
            positional[1].span,
            "mask",
            help="the mask must broadcast to the tensor without adding axes",
        )
        return UNKNOWN
    try:
        broadcast(tensor.axes, mask.axes, checker.scope.dim_values)
    except ShapeError as error:
        checker.reporter.report(
            error.code, error.message, positional[1].span, "mask", notes=error.notes
        )
        return UNKNOWN
    checker.align(node.span, [tensor, mask], tensor)
    return tensor


def _join(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    positional = _positional(args)
    over = _keyword(args, "over")
    if over is None or not isinstance(over.expr, ast.Name):
        checker.reporter.report(
            "E0406", f"`{name}` needs `over=` with an axis name", node.span, "no `over=`"
        )
        return UNKNOWN
    tensors = []
    for arg in positional:
        tensor = _tensor_operand(checker, name, arg, needs_axes=True)
        if tensor is None:
            return UNKNOWN
        tensors.append((arg, tensor))
    if not tensors:
        return _report_arity(checker, name, node, f"`{name}` needs tensors to join")
    masks = [tensor.domain.name == "Mask" for _, tensor in tensors]
    if any(masks) and not all(masks):
        odd = next(arg for arg, tensor in tensors if tensor.domain.name == "Mask")
        checker.reporter.report(
            "E0501",
            f"`{name}` can't join a Mask with numbers",
            odd.span,
            "a mask",
            help="convert the mask first, as in `m to Binary`",
        )
        return UNKNOWN
    first_arg, first = tensors[0]
    axis_name = over.expr.name
    dims = checker.scope.dim_values
    if name == "stack":
        for arg, tensor in tensors[1:]:
            if not _same_axes(checker, name, first.axes, tensor.axes, arg):
                return UNKNOWN
        size = Poly.const(len(tensors))
        checker.bind_axis(axis_name, size, over.expr.span, checker.decl.span)
        return TensorType((Axis(size, axis_name), *first.axes), first.domain, first.dtype)
    index = _over_axis(checker, name, first, over, node)
    if index is None:
        return UNKNOWN
    total = first.axes[index].size
    for arg, tensor in tensors[1:]:
        other_index = next(
            (i for i, axis in enumerate(tensor.axes) if axis.name == axis_name), None
        )
        if other_index is None:
            other_index = _over_axis(checker, name, tensor, over, node)
            if other_index is None:
                return UNKNOWN
        rest_a = _without(first.axes, index)
        rest_b = _without(tensor.axes, other_index)
        if not _same_axes(checker, name, rest_a, rest_b, arg):
            return UNKNOWN
        total = total + tensor.axes[other_index].size
    axes = list(first.axes)
    axes[index] = Axis(total, axis_name)
    del dims
    return TensorType(tuple(axes), first.domain, first.dtype)


def _same_axes(checker, name, a: tuple[Axis, ...], b: tuple[Axis, ...], arg: Arg) -> bool:
    if len(a) != len(b):
        checker.reporter.report(
            "E0403",
            f"the tensors `{name}` joins have different numbers of axes",
            arg.span,
            f"{len(b)} axes, not {len(a)}",
        )
        return False
    for left, right in zip(a, b, strict=True):
        if left.name and right.name and left.name != right.name:
            checker.reporter.report(
                "E0404",
                f"axes `{left.name}` and `{right.name}` meet in `{name}`",
                arg.span,
                format_shape(b),
            )
            return False
        if not sizes_equal(left.size, right.size, checker.scope.dim_values):
            checker.reporter.report(
                "E0401",
                f"the tensors `{name}` joins have different sizes",
                arg.span,
                format_shape(b),
                notes=[f"{left.size} is not known to equal {right.size}"],
            )
            return False
    return True


def _gather_scatter(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    positional = _positional(args)
    if name == "gather" and len(positional) >= 2:
        index = positional[1].type
        source = positional[0].type
        if isinstance(index, TensorType) and isinstance(source, TensorType):
            return TensorType(index.axes, source.domain, source.dtype)
        return UNKNOWN
    if positional:
        return positional[0].type if isinstance(positional[0].type, TensorType) else UNKNOWN
    return UNKNOWN


# ---------------------------------------------------------------------- elementwise


_ARITHMETIC_NAMES = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


def _elementwise(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    positional = _positional(args)
    if not positional:
        return _report_arity(checker, name, node, f"`{name}` needs an argument")
    for arg in positional:
        type_ = arg.type
        if isinstance(type_, StringType):
            checker.reporter.report(
                "E0412", f"`{name}` needs numbers, not a string", arg.span, "string"
            )
            return UNKNOWN
        if isinstance(type_, UnknownType):
            return UNKNOWN
        if isinstance(type_, PythonType):
            return PythonType()
    if name in _ARITHMETIC_NAMES:
        if len(positional) != 2:
            return _report_arity(checker, name, node, f"`{name}` takes two arguments")
        result = checker.combine(
            _ARITHMETIC_NAMES[name], positional[0].type, positional[1].type, node.span, node.span
        )
        checker.align(node.span, [arg.type for arg in positional], result)
        return result
    if name == "where":
        result = _where(checker, positional, node)
        checker.align(node.span, [arg.type for arg in positional], result)
        return result
    shape = positional[0].type
    for arg in positional[1:]:
        shape = checker.combine("*", shape, _numeric(arg.type), node.span, node.span)
        if isinstance(shape, UnknownType):
            return UNKNOWN
    first = positional[0].type
    if isinstance(first, TensorType) and first.domain.name == "Mask":
        checker.reporter.report(
            "E0505",
            f"`{name}` of a mask",
            positional[0].span,
            "a mask",
            help="convert it first, as in `m to Binary`",
        )
        return UNKNOWN
    interval = _elementwise_range(name, first, [arg.type for arg in positional[1:]], args)
    checker.align(node.span, [arg.type for arg in positional], shape)
    if isinstance(shape, TensorType):
        dtype = shape.dtype
        return TensorType(shape.axes, range_domain(interval) if interval else Domain(), dtype)
    if isinstance(shape, HostType):
        kind = shape.kind if name in ("abs", "relu", "maximum", "minimum", "clamp") else "float"
        return HostType(kind, None, interval)
    return shape


def _numeric(type_: Type) -> Type:
    """An argument's type as a number, for broadcasting (a mask argument's shape counts)."""
    if isinstance(type_, TensorType) and type_.domain.name == "Mask":
        return TensorType(type_.axes, Domain(), None)
    return type_


def _bound_value(type_: Type) -> float | None:
    interval = interval_of(type_)
    if interval is not None and interval.lo == interval.hi:
        return interval.lo
    return None


def _elementwise_range(name: str, first: Type, rest: list[Type], args: list[Arg]):
    interval = interval_of(first)
    if interval is None:
        return None
    if name == "abs":
        return ranges.abs_(interval)
    if name == "relu":
        return ranges.relu(interval)
    if name == "square":
        return ranges.square(interval)
    if name in ("floor", "ceil", "round"):
        return ranges.whole(interval)
    if name == "clamp":
        lo = _bound_value(rest[0]) if rest else None
        hi = _bound_value(rest[1]) if len(rest) > 1 else None
        for arg in args:
            if arg.name == "lo":
                lo = _bound_value(arg.type)
            elif arg.name == "hi":
                hi = _bound_value(arg.type)
        return ranges.clamp(interval, lo, hi)
    if name in ("maximum", "minimum") and rest:
        other = interval_of(rest[0]) or ranges.REAL
        if name == "maximum":
            return ranges.Interval(max(interval.lo, other.lo), max(interval.hi, other.hi))
        return ranges.Interval(min(interval.lo, other.lo), min(interval.hi, other.hi))
    if name == "pow" and rest:
        exponent = _bound_value(rest[0])
        if exponent == 1:
            return interval
        if exponent == 2:
            return ranges.square(interval)
        if interval.lo >= 0:
            return ranges.NAMED_RANGES["NonNeg"]
    return None


def _where(checker: BodyContext, positional: list[Arg], node: ast.Call) -> Type:
    if len(positional) != 3:
        return _report_arity(checker, "where", node, "where takes a mask and two values")
    condition, first, second = positional
    if not (
        isinstance(condition.type, (TensorType, HostType))
        and (
            (isinstance(condition.type, TensorType) and condition.type.domain.name == "Mask")
            or (isinstance(condition.type, HostType) and condition.type.kind == "bool")
        )
    ):
        checker.reporter.report(
            "E0501",
            f"where's condition must be a mask, not {format_type(condition.type)}",
            condition.span,
            "not a mask",
            help="compare to get a mask, as in `x > 0`",
        )
        return UNKNOWN
    shape = checker.combine(
        "+", _numeric(condition.type), _numeric(first.type), node.span, node.span
    )
    shape = checker.combine("+", shape, _numeric(second.type), node.span, node.span)
    if not isinstance(shape, TensorType):
        return shape
    a, b = interval_of(first.type), interval_of(second.type)
    domain = Domain()
    if isinstance(first.type, TensorType) and first.type.domain.name == "Logit":
        domain = first.type.domain
    elif a is not None and b is not None:
        domain = range_domain(a.hull(b))
    return TensorType(shape.axes, domain, shape.dtype)


# ---------------------------------------------------------------------- patterns and matmul


def _pattern(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    if name == "matmul":
        return _matmul(checker, name, args, node)
    patterns = [arg for arg in args if isinstance(arg.expr, ast.Pattern)]
    if len(patterns) != 1:
        checker.reporter.report(
            "E0407",
            f"`{name}` needs exactly one pattern, as `{name}(x, b n D -> b D n)`",
            node.span,
            "no pattern" if not patterns else "two patterns",
        )
        return UNKNOWN
    pattern: ast.Pattern = patterns[0].expr
    operand_args = [arg for arg in args if arg.name is None and arg is not patterns[0]]
    reduction = None
    if name == "reduce" and len(operand_args) == 2:
        reduction = operand_args.pop()
        if not (isinstance(reduction.expr, ast.Name) and reduction.expr.name in REDUCTION_NAMES):
            checker.reporter.report(
                "E0406",
                "reduce's reduction is one of sum, mean, max, min and prod",
                reduction.span,
                "unknown reduction",
            )
            return UNKNOWN
    if name == "reduce" and reduction is None and len(operand_args) == 1:
        checker.reporter.report(
            "E0406",
            "reduce needs its reduction after the pattern: sum, mean, max, min or prod",
            node.span,
            "no reduction",
            help="as in `reduce(x, b n D -> b D, mean)`",
        )
        return UNKNOWN
    expected_operands = len(pattern.inputs) if name == "einsum" else 1
    if len(operand_args) != expected_operands:
        checker.reporter.report(
            "E0407" if name == "einsum" else "E0406",
            f"`{name}` got {len(operand_args)} operand(s) for a pattern with "
            f"{len(pattern.inputs)} input side(s)",
            node.span,
            "operands",
        )
        return UNKNOWN
    if _uses_broken_dim(checker, pattern):
        return _unknown_result(checker, pattern)
    operands: list[tuple[Axis, ...]] = []
    operand_types: list[TensorType] = []
    dtype = None
    for arg in operand_args:
        tensor = _tensor_operand(checker, name, arg, needs_axes=True)
        if tensor is None:
            return _unknown_result(checker, pattern)
        operands.append(tensor.axes)
        operand_types.append(tensor)
        dtype = dtype or tensor.dtype
    if name == "einsum" and len({t.resolved_dtype for t in operand_types}) > 1:
        shown = " and ".join(sorted({t.resolved_dtype for t in operand_types}))
        checker.reporter.report(
            "E0502",
            f"einsum needs one dtype, but these are {shown}",
            node.span,
            "different dtypes",
            help="convert the operands to one dtype first, with `to`",
        )
        return UNKNOWN
    keyword_sizes: dict[str, tuple[Poly, Span]] = {}
    for arg in args:
        if arg.name is None:
            continue
        type_ = arg.type
        if isinstance(type_, HostType) and type_.kind == "int":
            size = type_.size or Poly.symbol(checker.fresh_unknown(arg.name))
            keyword_sizes[arg.name] = (size, arg.span)
        elif isinstance(type_, (PythonType, UnknownType)):
            keyword_sizes[arg.name] = (Poly.symbol(checker.fresh_unknown(arg.name)), arg.span)
        else:
            checker.reporter.report(
                "E0406",
                f"the size `{arg.name}=` must be a whole number",
                arg.span,
                format_type(type_),
            )
            return UNKNOWN
    scope = checker.env.axis_sizes()
    try:
        result = check_pattern(
            name,
            pattern,
            operands,
            keyword_sizes,
            scope,
            checker.scope.dim_values,
            checker.program.fresh_variable,
            checker.text_of,
        )
    except PatternError as error:
        checker.reporter.report(
            error.code, error.message, error.span, error.label, notes=error.notes, help=error.help
        )
        return _unknown_result(checker, pattern)
    for axis_name, span in result.name_spans:
        if axis_name in result.introduced:
            checker.bind_axis(axis_name, result.introduced[axis_name], span, checker.decl.span)
    for axis_name, (size, span) in keyword_sizes.items():
        checker.bind_axis(axis_name, size, span, checker.decl.span)
    domain = Domain()
    if name in ("rearrange", "repeat", "split") and len(operand_types) == 1:
        domain = _carried_domain(operand_types[0], pattern, result.outputs[0])
    if name == "reduce" and reduction is not None:
        domain, dtype = reduced_element(reduction.expr.name, operand_types[0])
    tensors = tuple(TensorType(axes, domain, dtype) for axes in result.outputs)
    if name == "split":
        return SeveralType(tensors)
    return tensors[0]


def _pattern_names(pattern: ast.Pattern) -> list[tuple[str, Span]]:
    """Every axis name a pattern writes, input sides first, with the span of each use."""
    names: list[tuple[str, Span]] = []
    for side in (*pattern.inputs, pattern.output):
        for axis in side.axes:
            names.extend(_flat_pattern_names(axis))
    return names


def _flat_pattern_names(axis: ast.PatternAxis) -> list[tuple[str, Span]]:
    if isinstance(axis, ast.PatternName | ast.PatternGroupedSize):
        return [(axis.name, axis.span)]
    if isinstance(axis, ast.PatternGroup):
        return [pair for item in axis.items for pair in _flat_pattern_names(item)]
    return []


def _uses_broken_dim(checker: BodyContext, pattern: ast.Pattern) -> bool:
    """Whether the pattern names a dim whose declaration failed (reported there)."""
    broken = checker.scope.broken_names
    return any(
        name in broken and name not in checker.env.axes for name, _ in _pattern_names(pattern)
    )


def _unknown_result(checker: BodyContext, pattern: ast.Pattern) -> Type:
    """An unknown result whose new axis names are still bound, with sizes nobody knows, so
    that later uses of them (`causal[n m]` after a failed einsum) raise nothing more."""
    known = checker.scope.dims.keys() | checker.scope.broken_names
    for axis_name, span in _pattern_names(pattern):
        if axis_name in checker.env.axes or axis_name in known:
            continue
        size = Poly.symbol(checker.fresh_unknown(axis_name))
        checker.bind_axis(axis_name, size, span, checker.decl.span)
    return UNKNOWN


def _carried_domain(operand: TensorType, pattern: ast.Pattern, output) -> Domain:
    """A pattern that only renames the axis a semantic domain is over carries the domain to
    the new name; grouping that axis leaves just its range; moves keep the domain."""
    domain = operand.domain
    if domain.over is None:
        return domain
    side = pattern.inputs[0]
    for axis, entry in zip(operand.axes, side.axes, strict=False):
        if axis.name != domain.over:
            continue
        if isinstance(entry, ast.PatternName) and any(
            isinstance(out, ast.PatternName) and out.name == entry.name
            for out in pattern.output.axes
        ):
            return Domain(domain.name, entry.name, domain.size, domain.interval)
        break
    interval = interval_of(operand)
    return range_domain(interval) if interval is not None else Domain()


def _matmul(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    positional = _positional(args)
    if len(positional) != 2:
        return _report_arity(checker, name, node, "matmul takes two tensors")
    left, right = positional[0].type, positional[1].type
    if not isinstance(left, TensorType) or not isinstance(right, TensorType):
        return checker.combine("@", left, right, node.span, node.span)
    if left.axes is None or right.axes is None:
        return UNKNOWN
    return checker.matmul(left, right, node.span, positional[1].expr)


# ---------------------------------------------------------------------- other built-ins


def _several(count: int):
    def handler(checker, name, args, node) -> Type:
        return SeveralType((UNKNOWN,) * count)

    return handler


def _opaque(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    return UNKNOWN


def _special(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    """`print`, `save` and `load`."""
    from shapescript.check.bodies import checkpoints, logs_values

    if name == "print":
        return logs_values.print_call(checker, name, args, node)
    if name == "save":
        return checkpoints.save(checker, name, args, node)
    return checkpoints.load(checker, name, args, node)


_KIND_HANDLERS = {
    "reduction": _reduction,
    "along_axis": _along_axis,
    "elementwise": _elementwise,
    "pattern": _pattern,
    "matmul": _matmul,
    "special": _special,
}
_HANDLERS = {
    "positions": lambda checker, name, args, node: positions(checker, args, node),
    "masked_fill": _masked_fill,
    "cat": _join,
    "stack": _join,
    "gather": _gather_scatter,
    "scatter": _gather_scatter,
    "value_and_grad": _several(2),
    "matmul": _matmul,
    "zeros_like": lambda checker, name, args, node: (
        _positional(args)[0].type if _positional(args) else UNKNOWN
    ),
}


# ---------------------------------------------------------------------- causal and indexing


def causal(checker: BodyContext, node: ast.Index) -> Type:
    """`causal[n m]`: a [n m] Mask, true where the m index is at most the n index."""
    checker.refer(node.target.span, symbol("causal"))
    items = node.items
    names: list[ast.Expr] = []
    if len(items) == 1 and isinstance(items[0], ast.SpacedIndex):
        names = list(items[0].items)
    elif len(items) == 2 and all(isinstance(item, ast.Name) for item in items):
        names = list(items)
    if len(names) != 2 or not all(isinstance(name, ast.Name) for name in names):
        checker.reporter.report(
            "E0406",
            "causal takes two axis names separated by a space, as `causal[n m]`",
            node.span,
            "not two axis names",
        )
        return UNKNOWN
    axes = []
    for name in names:
        found = checker.env.axes.get(name.name)
        if found is not None:
            checker.refer(name.span, found[1])
            axes.append(Axis(found[0], name.name))
            continue
        if name.name in checker.scope.dims:
            checker.refer(name.span, checker.scope.symbols[name.name])
            axes.append(Axis(Poly.symbol(name.name), name.name))
            continue
        if name.name in checker.scope.broken_names:
            return UNKNOWN  # a dim whose own declaration failed, reported there
        checker.reporter.report(
            "E0301",
            f"unknown axis name `{name.name}`",
            name.span,
            "not an axis in scope",
        )
        return UNKNOWN
    result = TensorType(tuple(axes), MASK, "bool")
    checker.record(node.span, result)
    return result


def positions(checker: BodyContext, args: list[Arg], node: ast.Call) -> Type:
    """`positions(n)`: the indices along the axis `n`, a `[n] Index[n]`."""
    name = args[0].expr if len(args) == 1 and args[0].name is None else None
    if not isinstance(name, ast.Name):
        checker.reporter.report(
            "E0406",
            "positions takes one axis name, by position, as `positions(n)`",
            node.span,
            "not one axis name",
        )
        return UNKNOWN
    found = checker.env.axes.get(name.name)
    if found is not None:
        size = found[0]
    elif name.name in checker.scope.dims:
        size = Poly.symbol(name.name)
    elif name.name in checker.scope.broken_names:
        return UNKNOWN
    elif isinstance(args[0].type, UnknownType):
        return UNKNOWN  # an unknown name, reported where it was read
    else:
        checker.reporter.report(
            "E0406",
            f"positions takes an axis name, and `{name.name}` isn't one",
            name.span,
            "not an axis",
            help="name an axis of a parameter's shape, such as `n` of `ids: [b n]`, or a dim",
        )
        return UNKNOWN
    result = TensorType((Axis(size, name.name),), Domain("Index", None, size), "i64")
    checker.record(node.span, result)
    return result


def _index_bound_help(
    checker: BodyContext, item: ast.Expr, indices: TensorType, bound: Poly, size: Poly
) -> str:
    """What to do about indices below `bound` for an axis of `size`: below an axis of the
    function's own (`positions(n)` into a table of T), say with `as` that they fit, which
    is checked when it runs; otherwise they belong to another axis."""
    name = bound.single_symbol()
    if name is None or bound != Poly.symbol(name) or name not in checker.env.axes:
        return "these indices are for another axis: check which vocabulary or table they belong to"
    shown = format_type(TensorType(indices.axes, Domain("Index", None, size), indices.dtype))
    written = checker.text_of(item.span)
    return (
        f"if `{name}` is at most {size}, say so: `{written} as {shown}`, "
        "which is checked when it runs"
    )


def index(checker: BodyContext, node: ast.Index, target: Type) -> Type:
    if isinstance(target, StackType):
        from shapescript.check.bodies import model_values

        return model_values.stack_index(checker, node, target)
    if isinstance(target, PythonType):
        for item in node.items:
            if not isinstance(item, (ast.Slice, ast.SpacedIndex)):
                checker.expr(item)
        return PythonType()
    if not isinstance(target, TensorType) or target.axes is None:
        for item in node.items:
            if not isinstance(item, (ast.Slice, ast.SpacedIndex)):
                checker.expr(item)
        return UNKNOWN
    axes = target.axes
    if len(node.items) > len(axes):
        checker.reporter.report(
            "E0403",
            f"{len(node.items)} indices for {format_type(target)}, which has {len(axes)} axes",
            node.span,
            "too many indices",
        )
        return UNKNOWN
    result: list[Axis] = []
    for position, item in enumerate(node.items):
        axis = axes[position]
        if isinstance(item, ast.Slice):
            if ast.whole_slice(item):
                result.append(axis)  # its name included
                continue
            size = _slice_size(checker, item, axis)
            if size is None:
                return UNKNOWN
            result.append(axis if _same_size(checker, size, axis.size) else Axis(size))
            continue
        if isinstance(item, ast.SpacedIndex):
            checker.reporter.report(
                "E0406",
                "only causal takes names separated by spaces",
                item.span,
                "separate indices with commas",
            )
            return UNKNOWN
        type_ = checker.expr(item)
        if isinstance(type_, HostType) and type_.kind == "int":
            continue
        if isinstance(type_, TensorType) and type_.axes is not None:
            if type_.domain.name == "Mask":
                result.append(Axis(Poly.symbol(checker.fresh_unknown("k"))))
                result.extend(axes[position + type_.rank :])
                return TensorType(tuple(result), target.domain, target.dtype)
            if type_.resolved_dtype in ("i64", "i32", "i16", "i8", "u8"):
                bound = type_.domain.size if type_.domain.name == "Index" else None
                if bound is not None and not sizes_equal(
                    bound, axis.size, checker.scope.dim_values
                ):
                    checker.reporter.report(
                        "E0507",
                        f"indices below {bound} index an axis of {axis.size}",
                        item.span,
                        format_type(type_),
                        help=_index_bound_help(checker, item, type_, bound, axis.size),
                    )
                    return UNKNOWN
                result.extend(type_.axes)
                continue
        if isinstance(type_, (UnknownType, PythonType)):
            return UNKNOWN
        checker.reporter.report(
            "E0406",
            f"{format_type(type_)} can't index an axis",
            item.span,
            "not an index",
            help="index with an int, a slice, an Index tensor or a Mask",
        )
        return UNKNOWN
    result.extend(axes[len(node.items) :])
    return TensorType(tuple(result), target.domain, target.dtype)


def _bound(checker: BodyContext, expr: ast.Expr | None) -> Poly | None | bool:
    """A slice bound as a size; None when absent; False when it is only known at run time."""
    if expr is None:
        return None
    type_ = checker.expr(expr)
    if isinstance(type_, HostType) and type_.kind == "int":
        return type_.size if type_.size is not None else False
    if isinstance(type_, (PythonType, UnknownType)):
        return False
    checker.reporter.report(
        "E0406", "a slice's bounds and step must be integers", expr.span, format_type(type_)
    )
    raise _BadSlice


class _BadSlice(Exception):
    pass


def _same_size(checker: BodyContext, size: Poly, other: Poly) -> bool:
    """Whether two sizes are surely equal: the same, or the same number once dims are known."""
    if size == other:
        return True
    dims = checker.scope.dim_values
    value = size.substitute(dims).value
    return value is not None and value == other.substitute(dims).value


def _slice_size(checker: BodyContext, item: ast.Slice, axis: Axis) -> Poly | None:
    try:
        lo = _bound(checker, item.lo)
        hi = _bound(checker, item.hi)
        step = _bound(checker, item.step)
    except _BadSlice:
        return None
    dims = checker.scope.dim_values
    unknown = Poly.symbol(checker.fresh_unknown("k"))
    if lo is False or hi is False or step is False:
        return unknown
    length = axis.size
    step_value = 1 if step is None else step.substitute(dims).value
    if step_value is None or step_value <= 0:
        if step_value is not None:
            checker.reporter.report(
                "E0406", "a slice's step must be positive", item.step.span, "step"
            )
            return None
        return unknown
    numeric_length = length.substitute(dims).value
    lo_value = None if lo is None else lo.substitute(dims).value
    hi_value = None if hi is None else hi.substitute(dims).value
    if (
        numeric_length is not None
        and (lo is None or lo_value is not None)
        and (hi is None or hi_value is not None)
    ):
        return Poly.const(len(range(numeric_length)[lo_value:hi_value:step_value]))
    start = Poly.const(0) if lo is None else _from_end(lo, length, dims)
    stop = length if hi is None else _from_end(hi, length, dims)
    known = checker.size_facts
    if not (
        _non_negative(start, dims, known)
        and _non_negative(stop - start, dims, known)
        and _non_negative(length - stop, dims, known)
    ):
        return unknown
    span = stop - start
    if step_value == 1:
        return span
    for numerator in (span, span + (step_value - 1)):
        try:
            return numerator.divide_exact(Poly.const(step_value))
        except ArithmeticError:
            continue
    return unknown


def _from_end(bound: Poly, length: Poly, dims) -> Poly:
    value = bound.substitute(dims).value
    if value is not None and value < 0:
        return length + bound
    return bound


def _non_negative(size: Poly, dims, known: list[Poly]) -> bool:
    """Provably at least 0, taking generic sizes as at least 1, unknown sizes at least 0,
    and the sizes `known` (from asserts before it) at least 0."""
    return non_negative(size.substitute(dims), known)
