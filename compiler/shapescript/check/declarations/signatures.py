"""Function signatures: parameters with their resolved types, generics and return type."""

from __future__ import annotations

import keyword

from shapescript.check.algebra import fixes
from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.syntax_facts import walk
from shapescript.check.algebra.types import (
    DATA_TYPES,
    TRAINING_TYPES,
    UNKNOWN,
    HostType,
    ModelType,
    NamedType,
    OptimizerType,
    ScheduleType,
    TensorType,
    Type,
    UnknownType,
    format_type,
    is_type_variable,
)
from shapescript.check.declarations.type_exprs import TypeContext, TypeResolver
from shapescript.check.declarations.type_variables import signature_variables
from shapescript.records import field, record
from shapescript.syntax import ast

SPECIAL_PARAMETERS = frozenset({"Axis", "Axes", "Size"})


#: The types a parameter may be mut for: a model and an optimizer state.
STATE_TYPES = ModelType | OptimizerType


def check_mut_params(decl, params, reporter: Reporter, extern: bool) -> None:
    """Only a model or optimizer state parameter of a fn can be mut (E1101)."""
    for param, signature_param in zip(decl.params, params, strict=False):
        if not param.mut:
            continue
        type_ = signature_param.type
        if extern:
            reporter.report(
                "E1101",
                f"an extern fn changes nothing it is given, so `{param.name}` can't be mut",
                param.span,
                "mut on an extern fn",
            )
        elif not isinstance(type_, STATE_TYPES | UnknownType) and not is_type_variable(type_):
            reporter.report(
                "E1101",
                f"only a model or optimizer state can be mut, not {format_type(type_)}",
                param.span,
                "mut not allowed",
                help="a tensor, host scalar or schedule is a value: return a new one instead",
            )


@record
class ParamSig:
    """One parameter. `special` is "Axis", "Axes" or "Size" for an extern's such parameter."""

    name: str
    type: Type
    decl: ast.Param
    has_default: bool
    special: str | None = None
    special_size: Poly | None = None
    mut: bool = False

    @property
    def is_shapeless(self) -> bool:
        return isinstance(self.type, TensorType) and self.type.axes is None


@record
class Signature:
    name: str
    params: list[ParamSig]
    return_type: Type | None
    decl: ast.FnDecl | ast.ExternFnDecl
    generics: dict[str, Poly] = field(default_factory=dict)
    extern: bool = False
    path: str = ""
    #: Where the declaration came from: "file", "prelude" or "nn".
    origin: str = "file"
    #: A generic function's type variables, in order, each with what it stands for
    #: (`type_variables.MODEL`, `RECORD` or `EITHER`); empty for any other function.
    type_variables: dict[str, str] = field(default_factory=dict)

    @property
    def is_generic(self) -> bool:
        return bool(self.type_variables)

    @property
    def is_elementwise(self) -> bool:
        """Every parameter and the return type have no shape."""
        tensors = False
        for param in self.params:
            type_ = param.type
            if isinstance(type_, TensorType):
                if type_.axes is not None:
                    return False
                tensors = True
        if not tensors:
            return False
        return_type = self.return_type
        return return_type is None or (
            isinstance(return_type, TensorType) and return_type.axes is None
        )

    @property
    def has_rounding(self) -> bool:
        return self.extern and self.decl.return_type is not None


def build_signature(
    decl: ast.FnDecl | ast.ExternFnDecl,
    resolver: TypeResolver,
    base: TypeContext,
    *,
    origin: str = "file",
) -> Signature:
    """Resolve a declaration's parameter and return types, reporting E0306 and E0308."""
    extern = isinstance(decl, ast.ExternFnDecl)
    reporter = resolver.reporter
    axes: dict[str, Poly] = {}
    ctx = TypeContext(
        base.dims,
        base.aliases,
        base.domains,
        base.named_types,
        axes,
        mode="param",
        extern=extern,
        dim_values=base.dim_values,
        on_reference=base.on_reference,
        domain_intervals=base.domain_intervals,
        broken=base.broken,
        models=base.models,
        modules=base.modules,
        logs=base.logs,
        data_records=base.data_records,
    )
    params: list[ParamSig] = []
    seen: dict[str, ast.Param] = {}
    for param in decl.params:
        if param.name in seen:
            reporter.report(
                "E0302",
                f"parameter `{param.name}` is declared twice",
                param.name_span,
                "second declaration",
                secondary=[_label(seen[param.name].name_span, "first declared here")],
            )
        seen.setdefault(param.name, param)
        params.append(_param(param, resolver, ctx, extern))
    return_type = None
    if decl.return_type is not None:
        ctx.values = frozenset(param.name for param in decl.params)
        ctx.mode = "declaration" if extern else "closed"
        ctx.rounding = extern
        # Names a broken parameter type would have introduced are unknown, silently.
        broken = any(isinstance(p.type, UnknownType) and not p.has_default for p in params)
        reporter.muted += broken
        try:
            return_type = resolver.resolve(decl.return_type, ctx)
        finally:
            reporter.muted -= broken
    elif extern:
        reporter.report(
            "E0308",
            f"extern fn `{decl.name}` needs a return type",
            decl.name_span,
            "no return type",
            help="an extern fn has no body to infer it from: add `-> T`",
        )
        return_type = UNKNOWN
    check_mut_params(decl, params, reporter, extern)
    variables = signature_variables(
        decl, [p.type for p in params], return_type, ctx.axes, base.named_types, reporter
    )
    if extern:
        _check_extern(decl, params, return_type, reporter)
    else:
        _hint_grouped_sizes(decl, reporter, base)
        _check_defaults(decl, params, set(ctx.axes), reporter)
    return Signature(
        decl.name,
        params,
        return_type,
        decl,
        dict(axes),
        extern,
        decl.python_path.value if extern and decl.python_path else "",
        origin,
        variables,
    )


def _label(span, message):
    from shapescript.diagnostics.diagnostic import Label

    return Label(span, message)


def _param(param: ast.Param, resolver: TypeResolver, ctx: TypeContext, extern: bool) -> ParamSig:
    reporter = resolver.reporter
    written = param.type
    if written is None:
        if param.default is None:
            reporter.report(
                "E0306",
                f"parameter `{param.name}` has neither a type nor a default",
                param.name_span,
                "no type",
                help=f"give it a type, as `{param.name}: [n]`, or a default, as "
                f"`{param.name} = 1.0`",
            )
            return ParamSig(param.name, UNKNOWN, param, False, mut=param.mut)
        kind = "float" if isinstance(param.default, ast.FloatLit) else "int"
        if isinstance(param.default, ast.BoolLit):
            kind = "bool"
        if isinstance(param.default, ast.Name) and param.default.name == "none":
            return ParamSig(param.name, UNKNOWN, param, True, mut=param.mut)
        return ParamSig(param.name, HostType(kind), param, True, mut=param.mut)
    special = _special(written)
    if special is not None:
        word = written.words[0]
        if not extern:
            reporter.report(
                "E0306",
                f"`{word.name}[..]` parameters are only for extern fns",
                word.span,
                "extern fn only",
                help="take the axis with a pattern or a built-in's `over=` instead",
            )
            return ParamSig(param.name, UNKNOWN, param, param.default is not None)
        size = resolver.size(word.arg, ctx) if word.arg is not None else None
        return ParamSig(
            param.name, UNKNOWN, param, param.default is not None, special, size, param.mut
        )
    type_ = resolver.resolve(written, ctx)
    if (
        param.default is not None
        and not extern
        and isinstance(type_, TensorType)
        and type_.axes is not None
        and not _is_none(param.default)
    ):
        reporter.report(
            "E0306",
            f"parameter `{param.name}` has a shape, so it can't have a default",
            param.default.span,
            "default on a tensor parameter",
        )
    if (
        param.default is not None
        and isinstance(type_, TRAINING_TYPES | DATA_TYPES)
        and not isinstance(type_, ScheduleType)
    ):
        reporter.report(
            "E0306",
            f"parameter `{param.name}` is {format_type(type_)}, so it can't have a default",
            param.default.span,
            "default not allowed",
            help="every call passes it",
        )
    if isinstance(type_, (UnknownType, NamedType)):
        return ParamSig(param.name, type_, param, param.default is not None, mut=param.mut)
    return ParamSig(param.name, type_, param, param.default is not None, mut=param.mut)


def _check_defaults(
    decl: ast.FnDecl, params: list[ParamSig], axes: set[str], reporter: Reporter
) -> None:
    """A fn's defaults are worked out where it is defined: they can't name its parameters or
    axis names (E0306), and a written number must fit the parameter's type, as an argument
    would (E0502 for a float as an int, E0501 for a number outside a range domain)."""
    names = {param.name for param in decl.params} | axes
    for param in params:
        default = param.decl.default
        if default is None:
            continue
        used = next(
            (node for node in walk(default) if isinstance(node, ast.Name) and node.name in names),
            None,
        )
        if used is not None:
            reporter.report(
                "E0306",
                f"the default of `{param.name}` can't use `{used.name}`: a default is worked "
                "out once, where the function is defined",
                used.span,
                "a parameter or axis name",
            )
            continue
        number = _written_number(default)
        if number is None:
            continue
        type_ = param.type
        if isinstance(type_, HostType) and type_.kind == "int" and isinstance(number, float):
            reporter.report(
                "E0502",
                f"`{param.name}` is an int, so its default can't be the float {number}",
                default.span,
                "a float",
            )
        elif (
            isinstance(type_, TensorType)
            and type_.axes is None
            and type_.domain.interval is not None
            and not type_.domain.interval.holds(float(number))
        ):
            reporter.report(
                "E0501",
                f"the default {number} of `{param.name}` isn't a value of {format_type(type_)}",
                default.span,
                "outside the domain",
            )


def _written_number(expr: ast.Expr) -> int | float | None:
    """The value of a number written as a literal, possibly negated."""
    if isinstance(expr, (ast.IntLit, ast.FloatLit)):
        return expr.value
    if isinstance(expr, ast.Unary) and expr.op == "-":
        inner = _written_number(expr.operand)
        return None if inner is None else -inner
    return None


def _is_none(expr: ast.Expr) -> bool:
    return isinstance(expr, ast.Name) and expr.name == "none"


def _special(written: ast.TypeExpr) -> str | None:
    if written.shape is None and len(written.words) == 1:
        word = written.words[0]
        if word.name in SPECIAL_PARAMETERS and word.arg is not None:
            return word.name
    return None


_PY_KEYWORDS = frozenset(keyword.kwlist)


def _check_extern(
    decl: ast.ExternFnDecl, params: list[ParamSig], return_type: Type | None, reporter
) -> None:
    path = decl.python_path
    if path is not None:
        parts = path.value.split(".")
        if len(parts) < 2 or any(not p.isidentifier() or p in _PY_KEYWORDS for p in parts):
            reporter.report(
                "E0308",
                f"`{path.value}` isn't a Python function's dotted name",
                path.span,
                "expected a module and a function, as `torch.exp`",
            )
    has_rest = any(
        isinstance(p.type, TensorType)
        and p.type.axes is not None
        and any(axis.rest for axis in p.type.axes)
        for p in params
    )
    if (
        isinstance(return_type, TensorType)
        and return_type.axes is not None
        and any(axis.rest for axis in return_type.axes)
        and not has_rest
    ):
        reporter.report(
            "E0308",
            "the return type has `...` but no parameter does",
            decl.return_type.span,
            "rest axes from nowhere",
        )
    first = params[0] if params else None
    for param in params:
        if param.special in ("Axis", "Axes"):
            if param.has_default:
                reporter.report(
                    "E0308",
                    f"an `{param.special}[..]` parameter can't have a default",
                    param.decl.span,
                    "default",
                )
            elif first is None or not (
                isinstance(first.type, TensorType) and first.type.axes is not None
            ):
                reporter.report(
                    "E0308",
                    f"an `{param.special}[..]` parameter needs a first parameter with a shape",
                    param.decl.span,
                    "no shape to take an axis of",
                )


def _hint_grouped_sizes(decl: ast.FnDecl, reporter, base: TypeContext) -> None:
    """H2201: `16 gh`, two axes, where the grouped size `16gh` was probably meant."""
    standalone: dict[str, int] = {}
    grouped: set[str] = set()
    written_grouped: set[str] = set()
    candidates: list[tuple[ast.SizeAxis, ast.SizeAxis]] = []
    types = [p.type for p in decl.params if p.type is not None]
    if decl.return_type is not None:
        types.append(decl.return_type)
    for written in types:
        if written.shape is None:
            continue
        axes = written.shape.axes
        # The node classes have no subclasses: `type(x) is C` is `isinstance(x, C)`.
        for index, axis in enumerate(axes):
            kind = type(axis)
            if kind is ast.SizeAxis and type(axis.size) is ast.SizeName:
                standalone[axis.size.name] = standalone.get(axis.size.name, 0) + 1
                previous = axes[index - 1] if index else None
                if (
                    type(previous) is ast.SizeAxis
                    and type(previous.size) is ast.SizeInt
                    and previous.size.value > 1
                ):
                    candidates.append((previous, axis))
            elif kind is ast.GroupedSizeAxis:
                written_grouped.add(axis.name)
            elif kind is ast.GroupAxis:
                for part in axis.items:
                    if type(part) is ast.SizeAxis and type(part.size) is ast.SizeName:
                        grouped.add(part.size.name)
    for number, name_axis in candidates:
        name = name_axis.size.name
        if (
            name in base.dims
            or standalone.get(name, 0) > 1
            or name not in grouped
            or name in written_grouped
        ):
            continue
        count = number.size.value
        reporter.report(
            "H2201",
            f"`{count} {name}` is two axes: did you mean `{count}{name}`?",
            number.span.cover(name_axis.span),
            "two axes",
            help=f"`{count}{name}` is one axis of size {count} × {name}",
            fixes=fixes.replace(
                number.span.cover(name_axis.span), f"{count}{name}", f"Write `{count}{name}`"
            ),
        )
