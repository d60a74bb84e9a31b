"""The checker's types, and the one function that prints them for every consumer."""

from __future__ import annotations

from shapescript.check.algebra.ranges import LOG_PROB, NAMED_RANGES, PROB, Interval, name_of
from shapescript.check.algebra.ranges import REAL as REAL_RANGE
from shapescript.check.algebra.sizes import Poly, format_size
from shapescript.records import field, record

DEFAULT_FLOAT = "f32"
FLOAT_DTYPES = frozenset({"f16", "bf16", "f32", "f64"})
INT_DTYPES = frozenset({"u8", "i8", "i16", "i32", "i64"})


@record(frozen=True)
class Domain:
    """What a tensor's values may be: `Real`, `Prob over C`, `Index[V]`, `Mask`, ..."""

    name: str = "Real"
    over: str | None = None
    size: Poly | None = None
    #: For a range domain (name "Real", or a user domain's name): its interval.
    interval: Interval | None = None

    @property
    def default_dtype(self) -> str:
        if self.name == "Mask":
            return "bool"
        if self.name == "Index":
            return "i64"
        return DEFAULT_FLOAT


REAL = Domain()
MASK = Domain("Mask")
NUMERIC_DOMAINS = frozenset({"Real", "Logit", "Prob", "LogProb", "Binary", "Additive", "Index"})


def range_domain(interval: Interval) -> Domain:
    """The plain range domain of an interval (shown by name when it has one)."""
    interval = interval.normalized()
    return REAL if interval == REAL_RANGE else Domain("Real", interval=interval)


def interval_of(type_: Type) -> Interval | None:
    """The range of a numeric value; None for masks and what isn't numeric."""
    kind = type(type_)  # the type classes have no subclasses
    if kind is HostType:
        if type_.interval is not None:
            return type_.interval
        if type_.size is not None and type_.size.value is not None:
            return Interval.point(float(type_.size.value))
        return REAL_RANGE if type_.kind != "bool" else None
    if kind is not TensorType:
        return None
    domain = type_.domain
    if domain.name == "Mask":
        return None
    if domain.interval is not None:
        return domain.interval
    if domain.name in ("Prob", "Binary"):
        return PROB
    if domain.name in ("LogProb", "Additive"):
        return LOG_PROB
    if domain.name == "Index":
        top = domain.size.value if domain.size is not None else None
        return Interval.make(0.0, float(top - 1)) if top else NAMED_RANGES["NonNeg"]
    return REAL_RANGE


@record(frozen=True)
class Axis:
    """One axis: its size and, when it has one, its name (`D`, `n`); `rest` marks `...`.

    A group keeps how it was written (`(H Dh)`, `16gh`) and its parts, for printing and
    drawing only: two axes of the same size are the same axis whatever their spelling."""

    size: Poly
    name: str | None = None
    rest: bool = False
    written: str | None = field(default=None, compare=False)
    parts: tuple[Axis, ...] | None = field(default=None, compare=False)


class Type:
    """Base of all types."""

    __slots__ = ()


@record(frozen=True)
class TensorType(Type):
    """A tensor: its axes (None for a shapeless parameter type), domain and dtype."""

    axes: tuple[Axis, ...] | None
    domain: Domain = REAL
    dtype: str | None = None

    @property
    def rank(self) -> int:
        return len(self.axes) if self.axes is not None else -1

    @property
    def resolved_dtype(self) -> str:
        if self.dtype:
            return self.dtype
        # As `self.domain.default_dtype`, without a second property call.
        name = self.domain.name
        return "bool" if name == "Mask" else "i64" if name == "Index" else DEFAULT_FLOAT

    def with_axes(self, axes: tuple[Axis, ...] | None) -> TensorType:
        return TensorType(axes, self.domain, self.dtype)

    def with_domain(self, domain: Domain) -> TensorType:
        return TensorType(self.axes, domain, self.dtype)


@record(frozen=True)
class HostType(Type):
    """A host scalar: `int`, `float` or `bool`. An int may know its size (`n`, `2*h`)."""

    kind: str
    size: Poly | None = None
    interval: Interval | None = None


@record(frozen=True)
class PythonType(Type):
    """A value from Python: untyped until an `as` says what it is."""

    module: str | None = None


@record(frozen=True)
class StringType(Type):
    pass


@record(frozen=True)
class UnknownType(Type):
    """The type of what failed to check: fits everything and never causes another error."""


@record(frozen=True)
class FunctionType(Type):
    """A function used as a value: a fn, extern fn, prelude stub or built-in, by name."""

    name: str
    kind: str


@record(frozen=True)
class NamedType(Type):
    """Types this checker passes through without looking inside yet: models, records, ..."""

    name: str
    args: tuple[str, ...] = ()


@record(frozen=True)
class ModelType(Type):
    """A model declared with `model Name:`; models are matched by name."""

    name: str


@record(frozen=True)
class GradType(Type):
    """`Grad[M]`: a gradient with respect to the params of the model M."""

    model: str


@record(frozen=True)
class StackType(Type):
    """A stack of models, `[L] Block` as a model's field `h: [L] Block` holds it, or the
    gradient of one (`element` is then a `GradType`). `count` is how many it holds, `size`
    how the field writes it (a dim's name or a number)."""

    element: ModelType | GradType
    count: int
    size: str = field(default="", compare=False)


@record(frozen=True)
class OptimizerType(Type):
    """Optimizer state, `AdamW[M]` or `SGD[M]`: `kind` is "AdamW" or "SGD"."""

    kind: str
    model: str


@record(frozen=True)
class ScheduleType(Type):
    """A learning rate that changes with the step count, made by `cosine` or `warmup`."""


@record(frozen=True)
class ModeType(Type):
    """A mode: `Train(seed=s)` or `Eval`."""


#: The types of training state and modes: not tensors, never operands of arithmetic.
TRAINING_TYPES = ModelType | GradType | StackType | OptimizerType | ScheduleType | ModeType


@record(frozen=True)
class LogsType(Type):
    """A logs record declared with `logs Name:`; records are matched by name."""

    name: str


@record(frozen=True)
class SinkType(Type):
    """`LogSink`: a Python object with a `write(dict)` method, passed in from Python."""


#: Logs records and sinks: values that are neither tensors nor training state.
LOGGING_TYPES = LogsType | SinkType


@record(frozen=True)
class BatchType(Type):
    """`[b] Digit`: a batch of a data record's examples, whose fields get the batch axes.
    With no axes it is one example, `Digit`, whose fields have their declared types."""

    record: str
    axes: tuple[Axis, ...]


@record(frozen=True)
class DatasetType(Type):
    """`Dataset[Digit]`: a map-style dataset of a data record's examples, from Python."""

    record: str


@record(frozen=True)
class BatchesType(Type):
    """What `batches(n)` gives: a dataset cut into batches, only for a `for` loop."""

    record: str


#: Data records' values: not tensors, never operands of arithmetic.
DATA_TYPES = BatchType | DatasetType | BatchesType


@record(frozen=True)
class SeveralType(Type):
    """The several results of split, topk or value_and_grad, before they are named."""

    items: tuple[Type, ...] = field(default_factory=tuple)


UNKNOWN = UnknownType()
MODE = ModeType()
SCHEDULE = ScheduleType()
SINK = SinkType()
INT = HostType("int")
FLOAT = HostType("float")
BOOL = HostType("bool")


def is_type_variable(type_: Type) -> bool:
    """A generic function's type variable (`M`), or `Grad[M]`, `AdamW[M]`, `SGD[M]` of one:
    what it stands for is checked in each instance."""
    return isinstance(type_, NamedType) and (
        type_.args == ("type variable",) or type_.name in ("Grad", "AdamW", "SGD")
    )


def is_unknown(type_: Type) -> bool:
    return isinstance(type_, UnknownType)


def axis_text(axis: Axis) -> str:
    if axis.rest:
        return "..."
    if axis.name is not None:
        return axis.name
    if axis.written is not None:
        return axis.written
    text = format_size(axis.size)
    return text.replace(" ", "") if " " in text else text


def domain_text(domain: Domain) -> str:
    if domain.interval is not None:
        named = name_of(domain.interval)
        if domain.name != "Real":
            return domain.name
        return named or str(domain.interval)
    text = domain.name
    if domain.size is not None:
        text += f"[{format_size(domain.size).replace(' ', '')}]"
    if domain.over is not None:
        text += f" over {domain.over}"
    return text


def format_type(type_: Type) -> str:
    """A type exactly as the reference prints it: `[b n D]`, `[b C] Prob over C`, `int`."""
    if isinstance(type_, TensorType):
        axes, domain, dtype = type_.axes, type_.domain, type_.dtype
        if axes is None:
            parts = [domain_text(domain)]
        else:
            # An axis with a name is written as its name (the common case, without a call).
            shape = " ".join(
                [
                    axis.name if axis.name is not None and not axis.rest else axis_text(axis)
                    for axis in axes
                ]
            )
            if domain is REAL or domain == REAL:
                if dtype is None:
                    return f"[{shape}]"
                parts = [f"[{shape}]"]
            else:
                parts = [f"[{shape}]", domain_text(domain)]
        if dtype is not None and dtype != domain.default_dtype:
            parts.append(dtype)
        return " ".join(parts)
    if isinstance(type_, HostType):
        return type_.kind
    if isinstance(type_, PythonType):
        return "Python value"
    if isinstance(type_, StringType):
        return "string"
    if isinstance(type_, FunctionType):
        return f"fn {type_.name}"
    if isinstance(type_, ModelType):
        return type_.name
    if isinstance(type_, GradType):
        return f"Grad[{type_.model}]"
    if isinstance(type_, StackType):
        return f"[{type_.size or type_.count}] {format_type(type_.element)}"
    if isinstance(type_, OptimizerType):
        return f"{type_.kind}[{type_.model}]"
    if isinstance(type_, ScheduleType):
        return "Schedule"
    if isinstance(type_, ModeType):
        return "Mode"
    if isinstance(type_, LogsType):
        return type_.name
    if isinstance(type_, SinkType):
        return "LogSink"
    if isinstance(type_, NamedType):
        if type_.args == ("type variable",):
            return type_.name
        return type_.name + (f"[{', '.join(type_.args)}]" if type_.args else "")
    if isinstance(type_, SeveralType):
        return "(" + ", ".join(format_type(item) for item in type_.items) + ")"
    if isinstance(type_, BatchType):
        return (format_shape(type_.axes) + " " if type_.axes else "") + type_.record
    if isinstance(type_, DatasetType):
        return f"Dataset[{type_.record}]"
    if isinstance(type_, BatchesType):
        return f"Batches[{type_.record}]"
    return "unknown"


def format_shape(axes: tuple[Axis, ...]) -> str:
    return "[" + " ".join(axis_text(axis) for axis in axes) + "]"
