"""Optimizers and what they take: `sgd`, `adamw`, `update`, `clip_norm` and the schedules
`cosine` and `warmup` (E1501-E1505, table 14 of the hyperparameters), and the param groups
`no_decay` and `lr_scale` of `sgd` and `adamw` (E0901, E3601-E3603)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra import fixes
from shapescript.check.algebra.types import (
    SCHEDULE,
    UNKNOWN,
    GradType,
    HostType,
    ModelType,
    OptimizerType,
    PythonType,
    ScheduleType,
    TensorType,
    Type,
    UnknownType,
    format_type,
    is_type_variable,
)
from shapescript.check.declarations.builtin_table import BUILTINS
from shapescript.check.declarations.model_info import every_field
from shapescript.check.declarations.module_scope import suggestion
from shapescript.param_groups import OPTIONS as GROUP_OPTIONS
from shapescript.param_groups import Param, Problem, Word, listed, parse, plan
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext
    from shapescript.check.bodies.env import Arg

#: Each optimizer's type name and the kind of each hyperparameter besides lr (table 14).
OPTIMIZERS: dict[str, tuple[str, dict[str, str]]] = {
    "sgd": (
        "SGD",
        {
            "momentum": "float",
            "dampening": "float",
            "weight_decay": "float",
            "nesterov": "bool",
            "maximize": "bool",
        },
    ),
    "adamw": (
        "AdamW",
        {
            "beta1": "float",
            "beta2": "float",
            "eps": "float",
            "weight_decay": "float",
            "amsgrad": "bool",
            "maximize": "bool",
            "fused": "bool",
        },
    ),
}


def call(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    if name in OPTIMIZERS:
        return optimizer(checker, name, args, node)
    if name == "update":
        return update(checker, args, node)
    if name == "clip_norm":
        return clip_norm(checker, args, node)
    if name in ("cosine", "warmup"):
        return schedule(checker, name, args, node)
    return UNKNOWN


def _loose(type_: Type) -> bool:
    return isinstance(type_, UnknownType | PythonType) or is_type_variable(type_)


def learning_rate_fits(checker: BodyContext, what: str, arg: Arg) -> bool:
    """A learning rate is a number or a Schedule (E1504)."""
    type_ = arg.type
    if _loose(type_) or isinstance(type_, ScheduleType):
        return True
    if isinstance(type_, HostType) and type_.kind in ("int", "float"):
        return True
    checker.reporter.report(
        "E1504",
        f"{what} is a number or a Schedule, not {format_type(type_)}",
        arg.span,
        "not a learning rate",
        help="a learning rate that changes is a schedule, as in `cosine(3e-4, 1000)`",
    )
    return False


def optimizer(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    """`sgd(m, lr=…)` and `adamw(m, lr=…)`: state for every param of the model m."""
    from shapescript.check.bodies.training_arguments import host_argument, match_named

    kind, hyper = OPTIMIZERS[name]
    first = args[0] if args and args[0].name is None else None
    model = first.type if first is not None else None
    if first is None or not (isinstance(model, ModelType) or _loose(model)):
        checker.reporter.report(
            "E1501",
            f"`{name}` makes optimizer state for a model, given first, not "
            + (f"{format_type(model)}" if first is not None else "nothing"),
            first.span if first is not None else node.span,
            "not a model",
            help=f"pass the model first: `{name}(m, lr=3e-4)`",
        )
        return UNKNOWN
    params = BUILTINS[name].params
    matched = match_named(
        checker,
        name,
        args,
        node,
        params,
        required=("m", "lr"),
        keyword=params[1:],
        positional=("m",),
    )
    if matched is None:
        return UNKNOWN
    ok = learning_rate_fits(checker, "`lr`", matched["lr"])
    for param, arg in matched.items():
        if param in hyper:
            ok = host_argument(checker, name, param, arg, hyper[param]) and ok
    if isinstance(model, ModelType):
        ok = param_groups(checker, name, model.name, matched) and ok
    if not ok or not isinstance(model, ModelType):
        return UNKNOWN
    return OptimizerType(kind, model.name)


def param_groups(checker: BodyContext, name: str, model: str, matched: dict[str, Arg]) -> bool:
    """`no_decay="vectors wpe"` and `lr_scale="wte=0.1"`: string literals whose words name
    the model's params (E0901), are well formed (E3601), select something (E3602) and
    give no param two factors (E3603)."""
    info = checker.scope.model_infos.get(model)
    words: list[Word] = []
    places: dict[str, ast.StringLit] = {}
    ok = True
    for option in GROUP_OPTIONS:
        arg = matched.get(option)
        if arg is None:
            continue
        if not isinstance(arg.expr, ast.StringLit):
            _report_not_literal(checker, name, option, arg)
            ok = False
            continue
        found, problems = parse(option, arg.expr.value)
        places[option] = arg.expr
        for problem in problems:
            _report(checker, model, problem, arg.expr)
        ok = ok and not problems
        words += found
    if info is None or not words:
        return ok
    fields = every_field(checker.scope.model_infos, model)
    params = [
        Param(path, field.type.rank if isinstance(field.type, TensorType) else 0)
        for path, field in fields
        if field.is_param
    ]
    buffers = tuple(path for path, field in fields if field.kind == "buffer")
    _, problems = plan(params, words, model, buffers)
    for problem in problems:
        _report(checker, model, problem, places[problem.option])
    return ok and not problems


def _report_not_literal(checker: BodyContext, name: str, option: str, arg: Arg) -> None:
    example = "vectors wpe" if option == "no_decay" else "wte=0.1"
    checker.reporter.report(
        "E3601",
        f"`{name}`'s `{option}` is written out as a string of field paths, "
        f"not {format_type(arg.type)}",
        arg.span,
        "not a string literal",
        help=f'write the fields it selects, as in `{option}="{example}"`',
    )


def _inside(literal: ast.StringLit, start: int, end: int) -> Span:
    """The span of `literal`'s characters start..end, or the whole literal where its
    source text isn't its value (escapes)."""
    span = literal.span
    if span.end - span.start != len(literal.value) + 2 or end <= start:
        return span
    return Span(span.start + 1 + start, span.start + 1 + end)


def _report(checker: BodyContext, model: str, problem: Problem, literal: ast.StringLit) -> None:
    span = _inside(literal, problem.start, problem.end)
    if problem.kind == "unknown":
        wrong = problem.message.split("`")[1]
        candidates = list(problem.candidates)
        whole = span != literal.span
        checker.reporter.report(
            "E0901",
            problem.message,
            span,
            "no such field",
            help=suggestion(wrong, candidates) or listed(problem.candidates, model),
            fixes=fixes.spelling(wrong, candidates, span) if whole else [],
        )
        return
    code, label, help_ = {
        "syntax": ("E3601", "not a list of fields", _SYNTAX_HELP[problem.option]),
        "empty": ("E3602", "selects nothing", "leave the word out, or name a param"),
        "conflict": (
            "E3603",
            "a second factor",
            "give each param one factor: name the param alone, or leave it out of one word",
        ),
    }[problem.kind]
    checker.reporter.report(code, problem.message, span, label, help=help_)


_SYNTAX_HELP = {
    "no_decay": 'list field paths or `vectors` / `matrices`, as in `no_decay="vectors wpe"`',
    "lr_scale": 'give each field path its factor, as in `lr_scale="wte=0.1 h.attn.w=0.5"`',
}


def update(checker: BodyContext, args: list[Arg], node: ast.Call) -> Type:
    """`update(mut m, mut opt, g)`: one step of opt on m with g; no result."""
    from shapescript.check.bodies import mutation

    for arg in args:
        if arg.name is not None:
            checker.reporter.report(
                "E0406", "`update` takes its arguments by position", arg.span, "by name"
            )
            return UNKNOWN
    if len(args) != 3:
        checker.reporter.report(
            "E0406",
            f"`update` takes 3 arguments (m, opt, g), not {len(args)}",
            node.span,
            "update(mut m, mut opt, g)",
        )
        return UNKNOWN
    m, opt, g = args
    model = m.type
    if not (_loose(model) or isinstance(model, ModelType)):
        checker.reporter.report(
            "E1505",
            f"`update`'s first argument is the model it changes, not {format_type(model)}",
            m.span,
            "not a model",
        )
        return UNKNOWN
    if not (_loose(opt.type) or isinstance(opt.type, OptimizerType)):
        checker.reporter.report(
            "E1503",
            f"`update`'s second argument is optimizer state, not {format_type(opt.type)}",
            opt.span,
            "not optimizer state",
            help="make it with `adamw(m, lr=…)` or `sgd(m, lr=…)`",
        )
        return UNKNOWN
    if not (_loose(g.type) or isinstance(g.type, GradType)):
        checker.reporter.report(
            "E1505",
            f"`update`'s third argument is a gradient, not {format_type(g.type)}",
            g.span,
            "not a gradient",
            help="take it from `value_and_grad`",
        )
        return UNKNOWN
    owner = model.name if isinstance(model, ModelType) else None
    if owner is None and isinstance(opt.type, OptimizerType):
        owner = opt.type.model
    for arg, what in ((opt, "optimizer state"), (g, "a gradient")):
        other = getattr(arg.type, "model", None)
        if owner is not None and other is not None and other != owner:
            checker.reporter.report(
                "E1502",
                f"`update` is given {what} of {other} for a model of type {owner}",
                arg.span,
                format_type(arg.type),
            )
            return UNKNOWN
    mutation.check_update_mut(checker, m, opt, g)
    return UNKNOWN


def clip_norm(checker: BodyContext, args: list[Arg], node: ast.Call) -> Type:
    """`clip_norm(g, max_norm)`: the gradient scaled so that its norm is at most max_norm."""
    from shapescript.check.bodies.training_arguments import host_argument, match_named

    matched = match_named(
        checker, "clip_norm", args, node, ("g", "max_norm"), required=("g", "max_norm")
    )
    if matched is None:
        return UNKNOWN
    gradient = matched["g"].type
    if not (_loose(gradient) or isinstance(gradient, GradType)):
        checker.reporter.report(
            "E1505",
            f"`clip_norm` takes a gradient first, not {format_type(gradient)}",
            matched["g"].span,
            "not a gradient",
            help="clip a gradient from `value_and_grad`, as in `g |> clip_norm(1.0)`",
        )
        return UNKNOWN
    if not host_argument(checker, "clip_norm", "max_norm", matched["max_norm"], "float"):
        return UNKNOWN
    return gradient if isinstance(gradient, GradType) else UNKNOWN


def schedule(checker: BodyContext, name: str, args: list[Arg], node: ast.Call) -> Type:
    """`cosine(peak, steps, end=0.0)` and `warmup(steps, then)`: Schedules."""
    from shapescript.check.bodies.training_arguments import host_argument, match_named

    if name == "cosine":
        kinds = {"peak": "float", "steps": "int", "end": "float"}
        required: tuple[str, ...] = ("peak", "steps")
    else:
        kinds = {"steps": "int", "then": "schedule"}
        required = ("steps", "then")
    matched = match_named(checker, name, args, node, tuple(kinds), required=required)
    if matched is None:
        return UNKNOWN
    ok = True
    for param, arg in matched.items():
        if kinds[param] == "schedule":
            ok = learning_rate_fits(checker, f"`{name}`'s `{param}`", arg) and ok
        else:
            ok = host_argument(checker, name, param, arg, kinds[param]) and ok
    return SCHEDULE if ok else UNKNOWN
