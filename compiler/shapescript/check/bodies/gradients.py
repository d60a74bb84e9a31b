"""Gradients: `value_and_grad` (E1105-E1107, W1101), which params a function reads, and
what a `Grad[M]` supports (E1108, E0904)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress
from operator import attrgetter, is_not
from typing import TYPE_CHECKING

from shapescript.check.algebra.types import (
    DATA_TYPES,
    FLOAT_DTYPES,
    LOGGING_TYPES,
    TRAINING_TYPES,
    UNKNOWN,
    GradType,
    HostType,
    ModelType,
    PythonType,
    SeveralType,
    TensorType,
    Type,
    UnknownType,
    format_type,
    is_type_variable,
    is_unknown,
)
from shapescript.check.bodies import overload_calls, qualified_uses
from shapescript.check.bodies.read_summary import ReadSummary, summarise
from shapescript.check.bodies.reads_memo import ReadsMemo, ReadsReported
from shapescript.check.declarations import imports, overloads
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.check.bodies.context import BodyContext, ProgramContext
    from shapescript.check.bodies.env import Arg

#: Values that aren't tensors: training state, modes, batches, datasets, logs records, sinks.
HOST_ONLY = TRAINING_TYPES | DATA_TYPES | LOGGING_TYPES
#: Built-in kinds that work on tensors only: a model, mode or gradient there is an error.
TENSOR_KINDS = frozenset({"reduction", "along_axis", "elementwise", "pattern", "matmul", "mask"})


# ---------------------------------------------------------------------- value_and_grad


def value_and_grad(checker: BodyContext, args: list[Arg], node: ast.Call) -> Type:
    """`value_and_grad(f, m, args…)`: f's value and its gradient with respect to m's params."""
    failed = SeveralType((UNKNOWN, UNKNOWN))
    positional = [arg for arg in args if arg.name is None]
    if len(positional) < 2 or args[0].name is not None or args[1].name is not None:
        checker.reporter.report(
            "E0406",
            "`value_and_grad` takes the function and the model first, by position",
            node.span,
            "value_and_grad(f, m, args…)",
        )
        return failed
    function = args[0]
    if is_type_variable(args[1].type):
        # A generic function's model (a type variable): its instances are checked.
        return failed
    signature = _differentiable(checker, function, args[1:])
    if signature is None:
        return failed
    model = signature.params[0].type
    value = checker.call_signature(signature, args[1:], node)
    if isinstance(value, UnknownType):
        return SeveralType((UNKNOWN, GradType(model.name)))
    returned = checker.program.return_type_of(signature) or value
    if not (
        isinstance(returned, TensorType)
        and returned.axes == ()
        and returned.resolved_dtype in FLOAT_DTYPES
    ) and not isinstance(returned, (UnknownType, PythonType)):
        checker.reporter.report(
            "E1106",
            f"`{signature.name}` returns {format_type(returned)}, and only a [] of floats, "
            "such as a loss, has a gradient",
            function.span,
            "not a []",
            help="reduce it to one number first, with mean or sum",
        )
    else:
        checker.facts.gradients.append((function.span, signature.name, model.name))
    return SeveralType((value, GradType(model.name)))


def _differentiable(checker: BodyContext, function: Arg, args: list[Arg]):
    """The signature of the fn value_and_grad differentiates, the one for the model in
    `args` where the name has several; None after E1105 or E2308, or where a generic
    instance needs one for its model (E2311)."""
    expr = function.expr
    name = expr.name if isinstance(expr, ast.Name) else None
    local = name is not None and name in checker.env.values
    symbol = checker.scope.symbols.get(name) if name is not None else None
    problem = None
    signature = None
    if name is not None and not local and (symbol is None or symbol.kind == "fn"):
        signature = overload_calls.pick(checker, name, args, function.span, returns="[]")
        if signature is None:
            return None
        if signature is overload_calls.NOT_DECLARED:
            if not qualified_uses.declared(checker, name):
                checker.reporter.report(
                    "E0301", f"unknown name `{name}`", function.span, "not found"
                )
                return None
            signature = None
    if signature is None or signature.extern:
        problem = "the first argument of value_and_grad is the name of a fn"
    elif not signature.params or not isinstance(signature.params[0].type, ModelType):
        problem = f"`{name}`'s first parameter isn't a model"
    elif any(param.mut for param in signature.params):
        problem = f"`{name}` has a mut parameter"
    if problem is not None and isinstance(function.type, UnknownType):
        return None
    if signature is not None and signature.params and is_unknown(signature.params[0].type):
        return None
    if problem is not None:
        checker.reporter.report(
            "E1105",
            f"this function can't be differentiated: {problem}",
            function.span,
            "can't be differentiated",
            help="differentiate a fn like `fn loss(m: Mlp, …) -> []`, with the model first",
        )
        return None
    return signature


def read_diagnostics(program: ProgramContext, items: list) -> list:
    """E1107 where a differentiated fn reads no param of its model, W1101 for each param
    it never reads; reported after every body is checked, with absolute spans. `items`
    are the item facts of the bodies that differentiate, in order.

    When the params-read memo was carried over from the previous analysis, which bodies
    get a diagnostic is kept for each body that is the same object at the same place in
    `items` and whose differentiated functions' results the memo kept: only those
    bodies' diagnostics are made again, where they are now."""
    from shapescript.check.algebra.reporter import Reporter

    state = reads_memo(program)
    bodies = list(map(_BODY, items))
    by_name, looked_at, flagged = _to_look_at(state, bodies)
    reporter = Reporter()
    found: dict[int, list] = {}
    for position in looked_at:
        made = _reads_reported(reporter, program, items[position])
        if made:
            found[position] = made
    for position in flagged:
        found[position] = _reads_reported(reporter, program, items[position])
    state.reported = ReadsReported(bodies, by_name, sorted(found))
    return [diagnostic for position in sorted(found) for diagnostic in found[position]]


def _to_look_at(
    state: ReadsMemo, bodies: list
) -> tuple[dict[str, list[int]], Iterable[int], list[int]]:
    """For `read_diagnostics`: the positions of the bodies that differentiate each
    function, the positions of the bodies to look at, and those of the bodies that report
    what they did before (when the memo was carried over, the bodies align with the
    earlier analysis's and the new ones differentiate the same functions)."""
    before = state.earlier if state.reused else None
    state.earlier = None
    if before is not None and len(before.bodies) == len(bodies):
        old = before.bodies
        changed = list(compress(range(len(bodies)), map(is_not, old, bodies)))
        if all(_differentiated(bodies[index]) == _differentiated(old[index]) for index in changed):
            affected = set(changed)
            for key in state.dropped:
                affected.update(before.by_name.get(key[0], ()))
            kept = [position for position in before.flagged if position not in affected]
            return before.by_name, sorted(affected), kept
    by_name: dict[str, list[int]] = {}
    for position, body in enumerate(bodies):
        for name in _differentiated(body):
            by_name.setdefault(name, []).append(position)
    return by_name, range(len(bodies)), []


_BODY = attrgetter("body")


def _differentiated(body) -> list[str]:
    """The names of the functions a body gives to value_and_grad, in order."""
    return [name for _, name, _ in body.facts.gradients]


def _reads_reported(reporter, program: ProgramContext, item) -> list:
    """The diagnostics `_check_reads` gives for one differentiating body."""
    reporter.base = item.base
    count = len(reporter.diagnostics)
    for span, name, model in item.body.facts.gradients:
        _check_reads(reporter, program, name, model, span)
    return reporter.diagnostics[count:]


def _check_reads(reporter, program: ProgramContext, name: str, model: str, span) -> None:
    reads = param_reads(program, name, 0, model)
    info = program.scope.model_infos.get(model)
    if reads is None or info is None:
        return
    if not reads:
        reporter.report(
            "E1107",
            f"`{name}` reads no param of its model, so its gradient is always zero",
            span,
            "reads no param",
            help="differentiate a function that uses the model's params",
        )
        return
    for param in info.param_names:
        if param not in reads:
            reporter.report(
                "W1101",
                f"`{name}` never reads the param `{param}`, so its gradient is always zero",
                span,
                f"doesn't read `{param}`",
                help="remove the param, or make it a buffer if it isn't trained",
            )


# ---------------------------------------------------------------------- params read


def param_reads(
    program: ProgramContext, name: str, index: int, model: str | None = None
) -> tuple[str, ...] | None:
    """The params of the model given to parameter `index` of fn `name` that it reads, in
    declaration order; None when it may read any (it passes the model where the checker
    can't follow). Of several fns of the name, the one for `model` (given first)."""
    state = reads_memo(program)
    memo = state.results
    key = (name, index, model)
    state.note_use(name)
    if key in memo:
        if key in state.computing:
            state.cyclic = True
        return memo[key]
    memo[key] = ()
    state.users.setdefault(name, set()).add(key)
    if "." in name:
        memo[key] = imports.param_reads(program.scope, name, index)
        return memo[key]
    state.stack.append(key)
    state.computing.add(key)
    try:
        result = _params_read(program, name, index, model)
    finally:
        state.stack.pop()
        state.computing.discard(key)
    memo[key] = result
    return result


def reads_memo(program: ProgramContext) -> ReadsMemo:
    """The analysis's params-read memo, made empty on first use."""
    state = program.__dict__.get("_param_reads")
    if state is None:
        state = program.__dict__["_param_reads"] = ReadsMemo()
    return state


def _params_read(
    program: ProgramContext, name: str, index: int, model: str | None
) -> tuple[str, ...] | None:
    decl, base, signature = overloads.function_for(program.scope, name, model)
    result: tuple[str, ...] | None = ()
    if signature is not None and signature.is_generic:
        result = None  # what it reads depends on its instance
    elif isinstance(decl, ast.FnDecl) and signature is not None and index < len(decl.params):
        model = signature.params[index].type
        if isinstance(model, ModelType):
            found = _reads_in(program, decl, base, decl.params[index].name, model.name)
            info = program.scope.model_infos.get(model.name)
            if found is None:
                result = None
            elif info is not None:
                # A field that holds models counts as read whole: its models' params.
                result = tuple(p.name for p in [*info.params, *info.nested] if p.name in found)
    return result


def _reads_in(
    program: ProgramContext, decl: ast.FnDecl, base: int, param: str, model: str
) -> set[str] | None:
    summary = _summary(program, decl, base, param)
    reads = set(summary.reads)
    unexplained = summary.opaque
    for passed in summary.passed_on:
        callee = overloads.function_for(program.scope, passed.callee, model)[0]
        if not isinstance(callee, ast.FnDecl):
            unexplained = True
            continue
        index = passed.position
        if not passed.pipe:
            params = [p.name for p in callee.params]
            index = params.index(passed.name) if passed.name in params else passed.position
        found = param_reads(program, passed.callee, index, model if index == 0 else None)
        if found is None:
            return None
        reads.update(found)
    return None if unexplained else reads


def _summary(program: ProgramContext, decl: ast.FnDecl, base: int, param: str) -> ReadSummary:
    """`decl`'s read summary, reused from the previous analysis while its text is the same."""
    key = (program.source_text[base + decl.span.start : base + decl.span.end], param)
    summary = program.read_summaries.get(key) or program.previous_read_summaries.get(key)
    if summary is None:
        summary = summarise(decl, param)
    program.read_summaries[key] = summary
    return summary


def reads_of_functions(program: ProgramContext) -> dict[str, dict[str, tuple[str, ...] | None]]:
    """For each fn of the file, for each parameter whose type is a model, the params of it
    that the fn reads (see `param_reads`)."""
    found: dict[str, dict[str, tuple[str, ...] | None]] = {}
    for name, signature in program.scope.signatures.items():
        if signature.extern:
            continue
        for index, param in enumerate(signature.params):
            if isinstance(param.type, ModelType):
                found.setdefault(name, {})[param.name] = param_reads(program, name, index)
    return found


# ---------------------------------------------------------------------- Grad values


def combine(checker: BodyContext, op: str, left: Type, right: Type, span, op_span) -> Type | None:
    """`left op right` when an operand is a gradient, model, mode, optimizer state or schedule;
    None when neither is."""
    if not isinstance(left, HOST_ONLY) and not isinstance(right, HOST_ONLY):
        return None
    if isinstance(left, UnknownType) or isinstance(right, UnknownType):
        return UNKNOWN
    grads = [side for side in (left, right) if isinstance(side, GradType)]
    others = [side for side in (left, right) if not isinstance(side, GradType)]
    if grads and not any(isinstance(side, HOST_ONLY) for side in others):
        if len(grads) == 2 and op in ("+", "-"):
            if grads[0].model != grads[1].model:
                checker.reporter.report(
                    "E0904",
                    f"gradients of different models can't be combined: {format_type(left)} "
                    f"{op} {format_type(right)}",
                    op_span,
                    "different models",
                )
                return UNKNOWN
            return grads[0]
        if len(grads) == 1 and isinstance(others[0], PythonType):
            return UNKNOWN
        scalar = len(grads) == 1 and _is_scalar(others[0])
        if scalar and (op == "*" or (op == "/" and isinstance(left, GradType))):
            return grads[0]
    what = "a gradient" if grads else "it"
    code = "E1108" if grads else "E0412"
    shown = next(format_type(side) for side in (left, right) if isinstance(side, HOST_ONLY))
    checker.reporter.report(
        code,
        f"`{op}` can't take {format_type(left)} and {format_type(right)}: "
        + (
            "gradients are added to and subtracted from gradients of the same model, and "
            "multiplied or divided by a number"
            if grads
            else f"{shown} isn't a tensor"
        ),
        op_span,
        f"`{op}` on {what if grads else shown}",
    )
    return UNKNOWN


def _is_scalar(type_: Type) -> bool:
    if isinstance(type_, HostType):
        return type_.kind in ("int", "float")
    return isinstance(type_, TensorType) and type_.axes == ()


def negate(checker: BodyContext, op: str, operand: Type, span) -> Type | None:
    """`-g` is a gradient; any other unary operator on these types is an error."""
    if not isinstance(operand, HOST_ONLY):
        return None
    if isinstance(operand, GradType) and op == "-":
        return operand
    checker.reporter.report(
        "E1108" if isinstance(operand, GradType) else "E0412",
        f"`{op}` can't take {format_type(operand)}",
        span,
        "not a tensor",
    )
    return UNKNOWN


def builtin_call(checker: BodyContext, name: str, kind: str, args: list[Arg], node) -> Type | None:
    """`norm(g)`, and a tensor built-in given a gradient (E1108) or a model or mode (E0412);
    None when no argument is one of these."""
    if kind not in TENSOR_KINDS:
        return None
    for arg in args:
        type_ = arg.type
        if not isinstance(type_, HOST_ONLY):
            continue
        if isinstance(type_, GradType):
            if name == "norm" and len(args) == 1 and arg.name is None:
                from shapescript.check.algebra.ranges import NAMED_RANGES
                from shapescript.check.algebra.types import range_domain

                return TensorType((), range_domain(NAMED_RANGES["NonNeg"]))
            checker.reporter.report(
                "E1108",
                f"`{name}` works on tensors, and a gradient isn't one: only `norm(g)` and "
                "arithmetic take a whole gradient",
                arg.span,
                format_type(type_),
                help="use a field of the gradient, as `g.w1`",
            )
            return UNKNOWN
        checker.reporter.report(
            "E0412",
            f"`{name}` works on tensors, and {format_type(type_)} isn't one",
            arg.span,
            "not a tensor",
        )
        return UNKNOWN
    return None
