"""Turning written types (`TypeExpr`) into checker types, introducing axis names as it goes."""

from __future__ import annotations

from collections.abc import Callable, Set

from shapescript.check.algebra import fixes
from shapescript.check.algebra.ranges import NAMED_RANGES, Interval
from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.sizes import InexactDivision, Poly, SizeOverflow
from shapescript.check.algebra.types import (
    BOOL,
    FLOAT,
    FLOAT_DTYPES,
    INT,
    MODE,
    REAL,
    SCHEDULE,
    SINK,
    UNKNOWN,
    Axis,
    BatchType,
    DatasetType,
    Domain,
    GradType,
    LogsType,
    ModelType,
    NamedType,
    OptimizerType,
    TensorType,
    Type,
    axis_text,
    domain_text,
)
from shapescript.check.declarations.qualified import BadName, QualifiedNames, canonical_type
from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.source import Span

BUILTIN_DOMAINS = frozenset(
    {
        "Real",
        "Logit",
        "Prob",
        "LogProb",
        "Mask",
        "Index",
        "Binary",
        "Additive",
        "NonNeg",
        "Pos",
        "Unit",
        "Signed",
    }
)
SEMANTIC_DOMAINS = frozenset({"Logit", "Prob", "LogProb"})
WRAPPER_TYPES = frozenset({"Grad", "AdamW", "SGD", "Dataset"})
#: Wrapper types whose argument must be a model.
MODEL_WRAPPERS = frozenset({"Grad", "AdamW", "SGD"})
OTHER_NAMED_TYPES = frozenset({"LogSink", "Mode", "Schedule"})


#: Type words that are a type of their own, besides the file's models and logs records.
_OWN_TYPE_WORDS = MODEL_WRAPPERS | {"Mode", "Schedule", "LogSink"}


class TypeError_(Exception):
    """A written type that can't be used; already reported."""


@record
class TypeContext:
    """Where a type is written, and what its names may refer to.

    `axes` maps axis names in scope to their sizes; in "param" mode a new name is added
    to it as a generic axis. In "closed" mode (return types, `as`, `to`) a new name is an
    unknown size (E0301). "field" allows only numbers and dims.
    """

    dims: dict[str, Poly]
    aliases: dict[str, list[ast.Axis]]
    domains: set[str]
    named_types: set[str]
    axes: dict[str, Poly]
    mode: str = "param"
    extern: bool = False
    rounding: bool = False
    introduced: list[tuple[str, Span]] = field(default_factory=list)
    unknown_sizes: dict[str, str] = field(default_factory=dict)
    fresh_unknown: Callable[[str], str] | None = None
    dim_values: dict[str, Poly] = field(default_factory=dict)
    on_reference: Callable[[str, Span], None] | None = None
    domain_intervals: dict[str, Interval] = field(default_factory=dict)
    #: Dims and aliases whose declaration is an error: a type using one is unknown, silently.
    broken: set[str] = field(default_factory=set)
    #: The names of the file's models (a subset of `named_types`).
    models: Set[str] = frozenset()
    #: The names of the file's logs records (a subset of `named_types`).
    logs: Set[str] = frozenset()
    #: The names of the file's data records (a subset of `named_types`).
    data_records: Set[str] = frozenset()
    #: Values in scope where the type is written (parameters, locals): such a name where
    #: a size or a domain is expected is E0303, not an unknown name.
    values: Set[str] = frozenset()
    #: The file's imports, for qualified names such as `attention.Mlp`.
    modules: QualifiedNames | None = None


class TypeResolver:
    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        #: One object per distinct plain axis and tensor type resolved (`_plain_axis`,
        #: `_tensor`): a big file writes the same few types thousands of times, and
        #: every signature keeps its own.
        self._axes_made: dict[tuple[Poly, str | None], Axis] = {}
        self._tensors_made: dict[
            tuple[tuple[Axis, ...] | None, Domain, str | None], TensorType
        ] = {}

    def _plain_axis(self, size: Poly, name: str | None = None) -> Axis:
        """`Axis(size, name)`, the same object for equal sizes and names."""
        key = (size, name)
        found = self._axes_made.get(key)
        if found is None:
            found = self._axes_made[key] = Axis(size, name)
        return found

    def _tensor(
        self, axes: tuple[Axis, ...] | None, domain: Domain, dtype: str | None
    ) -> TensorType:
        """`TensorType(axes, domain, dtype)`, the same object for equal ones. Only types
        whose every part prints as it compares are shared: axes compare without how a
        group was written, and an interval's bounds compare -0.0 equal to 0.0."""
        if domain.interval is not None or (
            axes is not None and any(axis.parts is not None or axis.written for axis in axes)
        ):
            return TensorType(axes, domain, dtype)
        key = (axes, domain, dtype)
        found = self._tensors_made.get(key)
        if found is None:
            found = self._tensors_made[key] = TensorType(axes, domain, dtype)
        return found

    # ------------------------------------------------------------------ types

    def resolve(self, written: ast.TypeExpr, ctx: TypeContext) -> Type:
        """The type a `TypeExpr` denotes; UNKNOWN (after one diagnostic) when it can't."""
        try:
            if ctx.modules is not None:
                written = canonical_type(written, ctx.modules, self.reporter.report)
            return self._resolve(written, ctx)
        except (TypeError_, BadName):
            return UNKNOWN

    def _resolve(self, written: ast.TypeExpr, ctx: TypeContext) -> Type:
        # The written lists themselves: nothing here changes them.
        words = written.words
        axes_ast: list[ast.Axis] | None = None
        if written.shape is not None:
            axes_ast = written.shape.axes
        elif words and words[0].name in ctx.aliases and words[0].arg is None:
            self._note_reference(ctx, words[0].name, words[0].span)
            axes_ast = ctx.aliases[words[0].name]
            words = words[1:]
        if axes_ast is None and not words:
            if written.dtype == "bool":
                return BOOL
            return TensorType(None, REAL, written.dtype)
        if axes_ast is None and len(words) == 1 and written.dtype is None:
            single = self._single_word_type(words[0], ctx)
            if single is not None:
                return single
        domain = REAL
        if words:
            batch = self._data_type(written, words, axes_ast, ctx)
            if batch is not None:
                return batch
            self._check_no_training_word(words, ctx)
            if axes_ast is not None and _batch_of_type_variable(written, words, ctx):
                # `[b] E`: a batch of a generic function's data record, whatever it is.
                return BatchType(words[0].name, tuple(self._axes(axes_ast, ctx)))
            domain = self._domain(words[-1], ctx)
        axes = None
        if axes_ast is not None:
            axes = tuple(self._axes(axes_ast, ctx))
        if written.dtype == "bool" and domain.name == "Real" and domain.interval is None:
            domain = Domain("Mask")
        self._check_domain_and_dtype(written, domain, axes, ctx)
        return self._tensor(axes, domain, written.dtype)

    def _single_word_type(self, word: ast.TypeWord, ctx: TypeContext) -> Type | None:
        name = word.name
        if name == "int" and word.arg is None:
            return INT
        if name == "float" and word.arg is None:
            return FLOAT
        if name in MODEL_WRAPPERS:
            return self._model_wrapper(word, ctx)
        if name == "Dataset":
            return self._dataset(word, ctx)
        if name in ctx.data_records:
            return None
        if name == "Mode" and word.arg is None:
            return MODE
        if name == "Schedule" and word.arg is None:
            return SCHEDULE
        if name in ctx.models and word.arg is None:
            self._note_reference(ctx, name, word.span)
            return ModelType(name)
        if name in ctx.logs and word.arg is None:
            self._note_reference(ctx, name, word.span)
            return LogsType(name)
        if name == "LogSink" and word.arg is None:
            return SINK
        if name in OTHER_NAMED_TYPES or name in ctx.named_types:
            self._note_reference(ctx, name, word.span)
            return NamedType(name)
        if _is_type_variable(name, ctx):
            return NamedType(name, ("type variable",))
        return None

    def _model_wrapper(self, word: ast.TypeWord, ctx: TypeContext) -> Type:
        """`Grad[M]`, `AdamW[M]`, `SGD[M]`: M must be a model (E0303)."""
        inner = word.arg
        if isinstance(inner, ast.SizeName) and inner.name in ctx.models:
            self._note_reference(ctx, inner.name, inner.span)
            if word.name == "Grad":
                return GradType(inner.name)
            return OptimizerType(word.name, inner.name)
        if (
            isinstance(inner, ast.SizeName)
            and _is_type_variable(inner.name, ctx)
            and inner.name not in ctx.dims
            and inner.name not in ctx.named_types
        ):
            return NamedType(word.name, (inner.name,))
        shown = inner.name if isinstance(inner, ast.SizeName) else "this"
        if isinstance(inner, ast.SizeName) and not _declared(inner.name, ctx):
            self.reporter.report(
                "E0301",
                f"unknown model `{shown}`",
                inner.span,
                "not declared",
                help=f"declare it with `model {shown}:`",
            )
            raise TypeError_
        self.reporter.report(
            "E0303",
            f"`{word.name}[..]` takes a model, and `{shown}` isn't one",
            word.span,
            "not a model",
            help=f"write the name of a model, as in `{word.name}[Mlp]`",
        )
        raise TypeError_

    def _dataset(self, word: ast.TypeWord, ctx: TypeContext) -> Type:
        """`Dataset[Digit]`: what is in the brackets must be a data record (E0303)."""
        inner = word.arg
        if isinstance(inner, ast.SizeName) and inner.name in ctx.data_records:
            self._note_reference(ctx, inner.name, inner.span)
            return DatasetType(inner.name)
        if (
            isinstance(inner, ast.SizeName)
            and _is_type_variable(inner.name, ctx)
            and inner.name not in ctx.dims
            and inner.name not in ctx.named_types
        ):
            return NamedType("Dataset", (inner.name,))
        if isinstance(inner, ast.SizeName) and not _declared(inner.name, ctx):
            self.reporter.report(
                "E0301",
                f"unknown data record `{inner.name}`",
                inner.span,
                "not declared",
                help=f"declare it with `data {inner.name}:`",
            )
            raise TypeError_
        shown = f"`{inner.name}` isn't one" if isinstance(inner, ast.SizeName) else "got none"
        if inner is not None and not isinstance(inner, ast.SizeName):
            shown = "this isn't one"
        self.reporter.report(
            "E0303",
            f"`Dataset[..]` takes the name of a data record, and {shown}",
            word.span,
            "not a data record",
            help="write the name of a data record, as in `Dataset[Digit]`",
        )
        raise TypeError_

    def _data_type(
        self,
        written: ast.TypeExpr,
        words: list[ast.TypeWord],
        axes_ast: list[ast.Axis] | None,
        ctx: TypeContext,
    ) -> Type | None:
        """`[b] Digit`, a batch; None when no word is a data record or `Dataset`. A record's
        name takes only a shape before it, and `Dataset[..]` nothing else at all (E0303)."""
        for word in words:
            if word.name == "Dataset":
                self.reporter.report(
                    "E0303",
                    "`Dataset[..]` is a type of its own: it has no shape, domain or dtype",
                    written.span,
                    "not a dataset type",
                    help="write `Dataset[Digit]` alone; its batches get the batch axes",
                )
                raise TypeError_
        record_word = next((word for word in words if word.name in ctx.data_records), None)
        if record_word is None:
            return None
        name = record_word.name
        if (
            len(words) > 1
            or record_word.arg is not None
            or record_word.over is not None
            or written.dtype is not None
        ):
            self.reporter.report(
                "E0303",
                f"`{name}` is a data record: it takes only a shape before it, as in `[b] {name}`",
                written.span,
                "not a tensor type",
                help="the fields have their own domains and dtypes",
            )
            raise TypeError_
        self._note_reference(ctx, name, record_word.span)
        return BatchType(name, tuple(self._axes(axes_ast or [], ctx)))

    def _check_no_training_word(self, words: list[ast.TypeWord], ctx: TypeContext) -> None:
        """A model, logs record, Mode, Schedule, LogSink or Grad/AdamW/SGD is a type of its
        own, never a part of another (E0303)."""
        for word in words:
            if word.name in ctx.models or word.name in ctx.logs or word.name in _OWN_TYPE_WORDS:
                self.reporter.report(
                    "E0303",
                    f"`{word.name}` is a type of its own, so it can't be part of another type",
                    word.span,
                    "not a domain",
                    help=f"write `{word.name}` alone",
                )
                raise TypeError_

    def _domain(self, word: ast.TypeWord, ctx: TypeContext) -> Domain:
        name = word.name
        if name not in BUILTIN_DOMAINS and name not in ctx.domains:
            if "." in name:
                return Domain(name)
            if name in ctx.values:
                self.reporter.report(
                    "E0303",
                    f"`{name}` is a value, not a domain",
                    word.span,
                    "not a domain",
                    help="a domain is a built-in one or one declared with `domain`",
                )
                raise TypeError_
            self.reporter.report(
                "E0301",
                f"unknown domain `{name}`",
                word.span,
                "not a domain",
                help="the built-in domains are Real, Logit, Prob, LogProb, Mask, Index, "
                "Binary, Additive, NonNeg, Pos, Unit and Signed",
            )
            raise TypeError_
        self._note_reference(ctx, name, Span(word.span.start, word.span.start + len(name)))
        size = None
        if word.arg is not None:
            if name != "Index":
                self._invalid_domain(word.span, f"only Index takes a size, not `{name}`")
            size = self._size_in_type(word.arg, ctx)
        if word.over is not None and word.over_span is not None:
            if name not in SEMANTIC_DOMAINS:
                self._invalid_domain(
                    word.span, f"only Logit, Prob and LogProb are over an axis, not `{name}`"
                )
            self._note_reference(ctx, word.over, word.over_span)
        if name in ("Prob", "LogProb") and word.over is None:
            self._invalid_domain(
                word.span, f"{name} needs the axis it sums to 1 over, as in `{name} over C`"
            )
        if name in NAMED_RANGES:
            return Domain("Real", interval=NAMED_RANGES[name])
        if name in ctx.domain_intervals:
            return Domain(name, interval=ctx.domain_intervals[name])
        return Domain(name, word.over, size)

    def _invalid_domain(self, span: Span, message: str) -> None:
        self.reporter.report("E0503", message, span, "invalid domain")
        raise TypeError_

    def _check_domain_and_dtype(
        self, written: ast.TypeExpr, domain: Domain, axes, ctx: TypeContext
    ) -> None:
        """E0503: a domain and dtype that don't go together, or `over` a missing axis."""
        dtype = written.dtype
        span = written.dtype_span or written.span
        if dtype is not None:
            kind = "bool" if dtype == "bool" else "float" if dtype in FLOAT_DTYPES else "int"
            name = domain.name
            bad = (
                (name == "Mask" and kind != "bool")
                or (name == "Index" and kind != "int")
                or (name in SEMANTIC_DOMAINS | {"Binary", "Additive"} and kind != "float")
                or (domain.interval is not None and kind == "bool")
            )
            if bad:
                shown = domain_text(domain)
                self._invalid_domain(
                    span,
                    f"`{shown} {dtype}` makes no sense: {shown} values can't be stored as {dtype}",
                )
        over = domain.over
        if over is not None and axes is not None and all(axis.name != over for axis in axes):
            self._invalid_domain(written.span, f"`over {over}` names no axis of the type")

    def _size_in_type(self, size: ast.SizeExpr, ctx: TypeContext) -> Poly:
        if (
            ctx.mode == "param"
            and isinstance(size, ast.SizeName)
            and size.name not in ctx.dims
            and size.name not in ctx.axes
        ):
            ctx.axes[size.name] = Poly.symbol(size.name)
            ctx.introduced.append((size.name, size.span))
        return self.size(size, ctx)

    # ------------------------------------------------------------------ axes

    def _axes(self, written: list[ast.Axis], ctx: TypeContext) -> list[Axis]:
        axes: list[Axis] = []
        rest_seen = False
        # The node classes have no subclasses: `type(x) is C` is `isinstance(x, C)`.
        for axis in written:
            kind = type(axis)
            if kind is ast.SizeAxis:
                size = axis.size
                if type(size) is ast.SizeName and size.name in ctx.aliases:
                    self._note_reference(ctx, size.name, size.span)
                    axes.extend(self._axes(ctx.aliases[size.name], ctx))
                    continue
            elif kind is ast.RestAxis:
                if not ctx.extern:
                    self.reporter.report(
                        "E0306",
                        "`...` can only be used in an extern fn",
                        axis.span,
                        "rest axes",
                        help="name the axes, or declare the Python function as an extern fn",
                    )
                    raise TypeError_
                if rest_seen:
                    self.reporter.report(
                        "E0306", "a type can have only one `...`", axis.span, "second `...`"
                    )
                    raise TypeError_
                rest_seen = True
                axes.append(Axis(Poly.const(0), "...", rest=True))
                continue
            axes.append(self._axis(axis, ctx))
        return axes

    def _axis(self, axis: ast.Axis, ctx: TypeContext) -> Axis:
        if type(axis) is ast.SizeAxis:
            size = axis.size
            if type(size) is ast.SizeName:
                name = size.name
                if name in ctx.dims:
                    self._note_reference(ctx, name, size.span)
                    return self._plain_axis(Poly.symbol(name), name)
                return self._plain_axis(self._axis_name_size(name, size.span, ctx), name)
            self._check_no_alias(size, ctx)
            return self._plain_axis(self.size(size, ctx))
        if isinstance(axis, ast.GroupedSizeAxis):
            part = self._axis_name_size(axis.name, axis.span, ctx)
            parts = (Axis(part, axis.name), Axis(Poly.const(axis.count)))
            return Axis(part * axis.count, written=f"{axis.count}{axis.name}", parts=parts)
        if isinstance(axis, ast.UnknownAxis):
            if ctx.mode == "param":
                self.reporter.report(
                    "E0306",
                    f"`?{axis.name}` can't be in a parameter's type",
                    axis.span,
                    "unknown size",
                    help=f"the caller chooses a parameter's sizes: write `{axis.name}`",
                    fixes=fixes.replace(axis.span, axis.name, f"Write `{axis.name}`"),
                )
                raise TypeError_
            return Axis(Poly.symbol(self._unknown(axis.name, ctx)))
        if isinstance(axis, ast.GroupAxis):
            size = Poly.const(1)
            parts: list[Axis] = []
            for part in axis.items:
                if (
                    isinstance(part, ast.SizeAxis)
                    and isinstance(part.size, ast.SizeName)
                    and part.size.name in ctx.aliases
                ):
                    self.report_alias_in_axis(part.size.name, part.size.span)
                    raise TypeError_
                if isinstance(part, ast.RestAxis):
                    self.reporter.report(
                        "E0306", "`...` can't be inside a group", part.span, "rest axes"
                    )
                    raise TypeError_
                parts.append(self._axis(part, ctx))
                size = size * parts[-1].size
            written = "(" + " ".join(axis_text(part) for part in parts) + ")"
            return Axis(size, written=written, parts=tuple(parts))
        if isinstance(axis, ast.ErrorAxis):
            raise TypeError_
        self.reporter.report("E0306", "`...` isn't allowed here", axis.span, "rest axes")
        raise TypeError_

    def report_alias_in_axis(self, name: str, span: Span) -> None:
        self.reporter.report(
            "E2202",
            f"the shape alias `{name}` stands for several axes, so it can't be part of one",
            span,
            "alias inside a group or arithmetic",
            help=f"use `{name}` among the shape's axes, as in `[{name} D]`",
        )

    def _check_no_alias(self, size: ast.SizeExpr, ctx: TypeContext) -> None:
        if isinstance(size, ast.SizeBinary):
            self._check_no_alias(size.left, ctx)
            self._check_no_alias(size.right, ctx)
        elif isinstance(size, ast.SizeName) and size.name in ctx.aliases:
            self.report_alias_in_axis(size.name, size.span)
            raise TypeError_

    def _unknown(self, name: str, ctx: TypeContext) -> str:
        if name in ctx.unknown_sizes:
            return ctx.unknown_sizes[name]
        symbol = ctx.fresh_unknown(name) if ctx.fresh_unknown else f"?{name}"
        ctx.unknown_sizes[name] = symbol
        return symbol

    def _axis_name_size(self, name: str, span: Span, ctx: TypeContext) -> Poly:
        if "." in name:
            self.reporter.report(
                "E0303",
                f"`{name}` isn't a dim",
                span,
                "not a size",
                help="sizes are numbers, dims and axis names",
            )
            raise TypeError_
        if name in ctx.axes:
            self._note_reference(ctx, name, span)
            return ctx.axes[name]
        if name in ctx.dims:
            self._note_reference(ctx, name, span)
            return Poly.symbol(name)
        if name in ctx.broken:
            self._note_reference(ctx, name, span)
            raise TypeError_
        if ctx.mode == "param":
            size = Poly.symbol(name)
            ctx.axes[name] = size
            ctx.introduced.append((name, span))
            return size
        if ctx.mode == "field":
            self.reporter.report(
                "E0301",
                f"unknown size `{name}`",
                span,
                "not a dim",
                help="a field's shape is made of numbers and dims only",
            )
            raise TypeError_
        if name in ctx.values:
            self.reporter.report(
                "E0303",
                f"`{name}` is a value, not a size",
                span,
                "a value",
                help="sizes are numbers, dims and axis names; a size known only when the "
                "program runs is written `?k`",
            )
            raise TypeError_
        self.reporter.report(
            "E0301",
            f"unknown size `{name}`",
            span,
            "not in scope",
            help=f"sizes here must already be in scope; write `?{name}` for a size the "
            "function chooses or that is only known at run time",
        )
        raise TypeError_

    # ------------------------------------------------------------------ sizes

    def size(self, written: ast.SizeExpr, ctx: TypeContext) -> Poly:
        """A size expression's polynomial; division exact unless `ctx.rounding`."""
        try:
            return self._size(written, ctx)
        except SizeOverflow:
            self.reporter.report(
                "E0414",
                "size too large: it doesn't fit in 128 bits",
                written.span,
                "overflows",
            )
            raise TypeError_ from None

    def _size(self, written: ast.SizeExpr, ctx: TypeContext) -> Poly:
        if isinstance(written, ast.SizeInt):
            return Poly.const(written.value)
        if isinstance(written, ast.SizeName):
            if written.name in ctx.dims:
                self._note_reference(ctx, written.name, written.span)
                return Poly.symbol(written.name)
            return self._axis_name_size(written.name, written.span, ctx)
        left = self._size(written.left, ctx)
        right = self._size(written.right, ctx)
        if written.op == "+":
            return left + right
        if written.op == "-":
            return left - right
        if written.op == "*":
            return left * right
        return self.divide(left, right, written, ctx)

    def divide(self, left: Poly, right: Poly, written: ast.SizeBinary, ctx: TypeContext) -> Poly:
        try:
            return left.divide_exact(right)
        except InexactDivision:
            pass
        numeric_left = left.substitute(ctx.dim_values)
        numeric_right = right.substitute(ctx.dim_values)
        try:
            return numeric_left.divide_exact(numeric_right)
        except InexactDivision:
            pass
        if ctx.rounding and numeric_left.value is not None and numeric_right.value:
            return Poly.const(numeric_left.value // numeric_right.value)
        if ctx.rounding and ctx.mode == "declaration":
            return Poly.symbol(f"({left})/{right}" if len(left.terms) > 1 else f"{left}/{right}")
        if ctx.rounding and numeric_right.value == 0:
            self.reporter.report("E0406", "a size divides by 0", written.span, "division by 0")
            raise TypeError_
        self.reporter.report(
            "E0402",
            "size isn't divisible: the division doesn't come out whole",
            written.span,
            f"{_poly_text(numeric_left)} / {_poly_text(numeric_right)}",
            help="write the other size as a multiple instead, as `[2*n]` and `[n]`",
        )
        raise TypeError_

    @staticmethod
    def _note_reference(ctx: TypeContext, name: str, span: Span) -> None:
        if ctx.on_reference is not None:
            ctx.on_reference(name, span)


def _poly_text(size: Poly) -> str:
    return str(size)


def is_type_variable_name(name: str) -> bool:
    """Shaped as a generic function's type variable: `M`, `T2` (a capital letter, maybe
    digits); it is one where nothing in scope declares the name."""
    return name[:1].isupper() and name[:1].isascii() and (len(name) == 1 or name[1:].isdigit())


def _is_type_variable(name: str, ctx: TypeContext) -> bool:
    """A generic function's type variable: shaped as one, and not a dim or a domain."""
    return (
        is_type_variable_name(name)
        and name not in ctx.domains
        and name not in BUILTIN_DOMAINS
        and name not in ctx.dims
    )


def _batch_of_type_variable(written: ast.TypeExpr, words: list[ast.TypeWord], ctx) -> bool:
    """`[b] E`, E a type variable: a batch of some data record."""
    return (
        ctx.mode != "field"
        and written.dtype is None
        and len(words) == 1
        and words[0].arg is None
        and words[0].over is None
        and _is_type_variable(words[0].name, ctx)
        and words[0].name not in ctx.named_types
    )


def _declared(name: str, ctx: TypeContext) -> bool:
    return (
        name in ctx.dims
        or name in ctx.named_types
        or name in ctx.domains
        or name in ctx.aliases
        or name in BUILTIN_DOMAINS
        or name in ctx.axes
    )
