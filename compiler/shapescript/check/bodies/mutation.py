"""`mut`: which parameters may be mut, which arguments need it, and what a function may
change (E1101-E1104), with the aliases of parameters that it may not change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra import domains, fixes
from shapescript.check.algebra.types import (
    TRAINING_TYPES,
    HostType,
    ModelType,
    PythonType,
    StackType,
    TensorType,
    Type,
    UnknownType,
    format_shape,
    format_type,
)
from shapescript.check.declarations.signatures import STATE_TYPES
from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext
    from shapescript.check.bodies.env import Arg


@record
class MutState:
    """A body's mut parameters, and the names that may hold a parameter without mut."""

    mut_params: set[str] = field(default_factory=set)
    frozen: set[str] = field(default_factory=set)


def state(checker: BodyContext) -> MutState:
    found = getattr(checker, "_mut_state", None)
    if found is None:
        found = MutState()
        for param in checker.signature.params:
            if param.mut:
                found.mut_params.add(param.name)
            elif isinstance(param.type, STATE_TYPES):
                found.frozen.add(param.name)
        checker._mut_state = found
    return found


def _is_param(checker: BodyContext, name: str) -> bool:
    return any(param.name == name for param in checker.signature.params)


def note_assign(checker: BodyContext, stmt: ast.Assign, results: list[Type]) -> None:
    """After `a = e`: E1104 for a mut parameter, and whether `a` may be a frozen parameter."""
    tracked = state(checker)
    in_block = bool(checker._block_outers)
    for target, type_ in zip(stmt.targets, results, strict=False):
        if target.name in tracked.mut_params:
            checker.reporter.report(
                "E1104",
                f"`{target.name}` is a mut parameter: the caller would still have what it passed",
                target.span,
                "new value for a mut parameter",
                help="assign its fields, or change it with update, instead",
            )
            continue
        if len(stmt.targets) == 1 and _may_be_frozen(checker, stmt.value, type_, tracked):
            tracked.frozen.add(target.name)
        elif not in_block:
            tracked.frozen.discard(target.name)


def note_loop_variable(checker: BodyContext, target: ast.Target, iterable: ast.Expr) -> None:
    """E1104 for a mut parameter; the blocks of `for blk in m.h` may be a parameter
    without mut when `m` may be."""
    tracked = state(checker)
    if target.name in tracked.mut_params:
        checker.reporter.report(
            "E1104",
            f"`{target.name}` is a mut parameter, so it can't be a loop variable",
            target.span,
            "new value for a mut parameter",
        )
        return
    root = ast.path_root(iterable)
    if root is not None and root.name in tracked.frozen:
        tracked.frozen.add(target.name)


def _may_be_frozen(checker: BodyContext, expr: ast.Expr, type_: Type, tracked: MutState) -> bool:
    """Whether a value may be a parameter without mut: assigned from one, or computed from one
    with the same type (a function can return its argument)."""
    if not isinstance(type_, STATE_TYPES):
        return False
    if isinstance(expr, ast.Name | ast.Member | ast.Index):
        # `a = m` or `blk = m.h[l]`: a held model is part of the model that holds it.
        root = ast.path_root(expr)
        return root is not None and root.name in tracked.frozen
    inputs: list[ast.Expr] = []
    if isinstance(expr, ast.Call):
        inputs = [arg.value for arg in expr.args]
    elif isinstance(expr, ast.Pipe):
        inputs = [expr.input]
    return any(
        isinstance(part, ast.Name)
        and part.name in tracked.frozen
        and checker.facts.types.get(part.span) == type_
        for part in inputs
    )


def can_change(checker: BodyContext, name: str) -> bool:
    tracked = state(checker)
    return name in tracked.mut_params or name not in tracked.frozen


def check_changeable(checker: BodyContext, arg: Arg, what: str) -> bool:
    """An argument passed as mut: a name, or a model held by one (`m.h[l].attn`; E1101),
    that this function may change (E1102)."""
    expr = arg.expr
    root = None if expr is None else ast.path_root(expr)
    if isinstance(expr, ast.Member | ast.Index) and isinstance(arg.type, UnknownType):
        return False  # the path's own error (E0901, E3403, ...) is the one mistake
    if root is None or not (isinstance(expr, ast.Name) or _held_model_path(checker, arg)):
        _report_not_changeable_path(checker, arg)
        return False
    if not can_change(checker, root.name):
        shown = checker.text_of(expr.span)
        _report_unchangeable(checker, root.name, arg.span, f"passes `{shown}` as mut")
        return False
    return True


def _held_model_path(checker: BodyContext, arg: Arg) -> bool:
    """Whether a mut argument is a model held by a model, read through fields and stack
    indexes from a name: the change lands in the outer model's held module."""
    if not isinstance(arg.type, ModelType):
        return False
    node = arg.expr
    while isinstance(node, ast.Member | ast.Index):
        if isinstance(node, ast.Index) and not isinstance(
            checker.facts.types.get(node.target.span), StackType
        ):
            return False
        node = node.target
    return isinstance(node, ast.Name) and isinstance(checker.facts.types.get(node.span), ModelType)


def _mismatched_path(arg: Arg, expected: Type) -> bool:
    """A path passed as mut for a model parameter whose value isn't a model (`mut m.h`,
    a stack): the argument's type is the one mistake (E0904), reported where it's matched."""
    return (
        isinstance(arg.expr, ast.Member | ast.Index)
        and isinstance(expected, ModelType)
        and not isinstance(arg.type, ModelType)
    )


def _report_not_changeable_path(checker: BodyContext, arg: Arg) -> None:
    if arg.expr is not None and isinstance(arg.expr, ast.Member | ast.Index):
        shown = checker.text_of(arg.expr.span)
        if isinstance(arg.type, TensorType | HostType):
            checker.reporter.report(
                "E1101",
                f"`{shown}` is {format_type(arg.type)}, a value, so it can't be passed as mut",
                arg.span,
                "not a model",
                help=f"return the new value and assign it: `{shown} = …`",
            )
            return
    checker.reporter.report(
        "E1101",
        "only a name, or a model held by one (`m.h[l]`), can be passed as mut",
        arg.span,
        "not a name",
        help="bind the value to a name first",
    )


def _report_unchangeable(checker: BodyContext, name: str, span, how: str) -> None:
    param = _is_param(checker, name)
    what = "is a parameter without mut" if param else "may be a parameter without mut"
    checker.reporter.report(
        "E1102",
        f"this {how}, but `{name}` {what}",
        span,
        "can't change it here",
        help="declare the parameter `mut` and pass it with `mut`"
        if param
        else "change a model this function made, or one passed to it as mut",
    )


def check_call(checker: BodyContext, name: str, matched, node: ast.Call) -> bool:
    """A call's mut arguments: mut only for mut parameters (E1101), needed there (E1103)."""
    ok = True
    for param, slot in matched:
        if slot is None:
            continue
        arg = slot[1]
        if arg.mut and not param.mut:
            checker.reporter.report(
                "E1101",
                f"`{name}` doesn't change `{param.name}`, so its argument isn't mut",
                arg.span,
                "mut not allowed",
                help="remove `mut`",
                fixes=[]
                if arg.expr is None
                else fixes.replace(Span(arg.span.start, arg.expr.span.start), "", "Remove `mut`"),
            )
            ok = False
        elif param.mut and arg.expr is None:
            checker.reporter.report(
                "E1101",
                f"`{name}` changes `{param.name}`, and the input of a pipe can't be passed as mut",
                arg.span,
                "piped into a mut parameter",
                help=f"call it instead: `{name}(mut …)`",
            )
            ok = False
        elif param.mut and not arg.mut and not isinstance(arg.type, UnknownType):
            shown = checker.text_of(arg.span) if arg.expr is not None else "…"
            checker.reporter.report(
                "E1103",
                f"`{name}` changes `{param.name}`, so its argument is written with mut",
                arg.span,
                "needs mut",
                help=f"write `mut {shown}`",
                fixes=[]
                if arg.expr is None
                else fixes.inserted(arg.span.start, "mut ", f"Write `mut {shown}`"),
            )
            ok = False
        elif arg.mut:
            if _mismatched_path(arg, param.type):
                continue
            ok = check_changeable(checker, arg, param.name) and ok
    return ok


def check_builtin_args(checker: BodyContext, name: str, args: list[Arg]) -> bool:
    """A built-in other than update changes none of its arguments (E1101)."""
    for arg in args:
        if arg.mut:
            checker.reporter.report(
                "E1101",
                f"`{name}` changes none of its arguments, so none is mut",
                arg.span,
                "mut not allowed",
            )
            return False
    return True


def check_update_mut(checker: BodyContext, m: Arg, opt: Arg, g: Arg) -> None:
    """`update(mut m, mut opt, g)`: m and opt are changed, g isn't."""
    for arg, what in ((m, "model"), (opt, "optimizer state")):
        if not arg.mut:
            checker.reporter.report(
                "E1103",
                f"`update` changes its {what}, so it is written with mut",
                arg.span,
                "needs mut",
                help="write `update(mut m, mut opt, g)`",
                fixes=fixes.inserted(arg.span.start, "mut ", "Write `mut`"),
            )
            return
        if not check_changeable(checker, arg, what):
            return
    if g.mut:
        checker.reporter.report(
            "E1101",
            "`update` doesn't change the gradient, so it isn't mut",
            g.span,
            "mut not allowed",
            help="write `update(mut m, mut opt, g)`",
            fixes=[]
            if g.expr is None
            else fixes.replace(Span(g.span.start, g.expr.span.start), "", "Remove `mut`"),
        )


def field_assign(checker: BodyContext, stmt: ast.FieldAssign) -> None:
    """`m.w1 = e`: a declared field (E0901) of a model this function may change (E1102),
    given a value of its shape, dtype (E0403, E0401, E0502) and domain (E0501)."""
    from shapescript.check.bodies.model_values import field_type

    target = checker.expr(stmt.target)
    value = checker.expr(stmt.value)
    if isinstance(target, (UnknownType, PythonType)):
        return
    if not isinstance(target, ModelType):
        checker.reporter.report(
            "E0303",
            f"only a model's fields can be assigned, and this is {format_type(target)}",
            stmt.target.span,
            "not a model",
        )
        return
    expected = field_type(checker, target.name, stmt.field_name, stmt.field_span, stmt.span, False)
    if not isinstance(expected, TensorType) or expected.axes is None:
        if isinstance(expected, ModelType | StackType):
            checker.reporter.report(
                "E0303",
                f"`{stmt.field_name}` holds {format_type(expected)}, and only a param or "
                "buffer can be assigned",
                stmt.field_span,
                "holds models",
                help="assign the fields of the models it holds, as `m.attn.w = e`",
            )
        return
    root = ast.path_root(stmt.target)
    if root is None:
        return
    if not can_change(checker, root.name):
        _report_unchangeable(checker, root.name, stmt.span, "assigns a field")
        return
    _check_field_value(checker, stmt, expected, value)


def _check_field_value(checker, stmt: ast.FieldAssign, expected: TensorType, value: Type) -> None:
    start, end = stmt.target.span
    written = checker.source_text[checker.base + start : checker.base + end]
    name = f"{written}.{stmt.field_name}"
    span = stmt.value.span
    if isinstance(value, (UnknownType, PythonType)):
        return
    if isinstance(value, TRAINING_TYPES) or not isinstance(value, (TensorType, HostType)):
        checker.reporter.report(
            "E0412", f"`{name}` holds a tensor, not {format_type(value)}", span, "not a tensor"
        )
        return
    if isinstance(value, HostType):
        if expected.axes:
            checker.reporter.report(
                "E0403",
                f"`{name}` is {format_type(expected)}, not a number",
                span,
                "a number",
            )
        return
    if value.axes is not None:
        problem = checker._fit_axes(value.axes, expected.axes, allow_unknown=False)
        if problem is not None:
            code, notes = problem
            checker.reporter.report(
                code,
                f"`{name}` is {format_shape(expected.axes)}, and this is "
                f"{format_shape(value.axes)}",
                span,
                format_type(value),
                notes=notes,
            )
            return
    if value.resolved_dtype != expected.resolved_dtype:
        checker.reporter.report(
            "E0502",
            f"`{name}` is {expected.resolved_dtype}, and this is {value.resolved_dtype}",
            span,
            "another dtype",
            help=f"convert it with `to {expected.resolved_dtype}`",
            fixes=fixes.conversions(span, [f"to {expected.resolved_dtype}"], checker.text_of(span)),
        )
        return
    misfit = domains.value_fits(value, expected)
    if misfit is not None:
        checker.reporter.report(
            "E0501",
            f"`{name}` can't hold this: {misfit.message}",
            span,
            format_type(value),
            help=misfit.help,
            fixes=fixes.conversions(span, misfit.suffixes, checker.text_of(span)),
        )
