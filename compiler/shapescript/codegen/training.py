"""Models and training: model classes, field access, argument checks of models, gradients,
optimizer state, schedules and modes, and the call paths that modes are passed down."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.algebra.types import (
    GradType,
    ModelType,
    ModeType,
    OptimizerType,
    ScheduleType,
    Type,
)
from shapescript.check.declarations.model_info import ModelInfo
from shapescript.codegen import imports, padding, trusted
from shapescript.codegen.context import ModuleContext, Unsupported, python_name
from shapescript.codegen.emit import SourceBuilder
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.function import CallArgs, FunctionGenerator

STANDALONE = "models need the shapescript runtime"

#: Training built-ins that are runtime functions taking their arguments as written.
RUNTIME_FUNCTIONS = {
    "sgd": "_ss_rt.optimizers.sgd",
    "adamw": "_ss_rt.optimizers.adamw",
    "update": "_ss_rt.optimizers.update",
    "cosine": "_ss_rt.optimizers.cosine",
    "warmup": "_ss_rt.optimizers.warmup",
    "clip_norm": "_ss_rt.gradients.clip_norm",
    "Train": "_ss_rt.randomness.Train",
}

#: nn.ss stubs that take a mode, as runtime functions.
MODE_EXTERNS = {
    "shapescript.rt.dropout": "_ss_rt.randomness.dropout",
    "shapescript.rt.batch_norm": "_ss_rt.randomness.batch_norm",
}

#: Optimizer state types as the checker names them, and as the runtime does.
OPTIMIZER_NAMES = {"AdamW": "adamw", "SGD": "sgd"}


def model_class(context: ModuleContext, info: ModelInfo, origin, body: SourceBuilder) -> None:
    """`class Mlp(_ss_rt.models.Model):` with its doc and declared fields; standalone,
    the module's own `_ss_Model` and the fields as tuples."""
    base = "_ss_rt.models.Model"
    if context.standalone:
        context.standalone_helper("models")
        base = "_ss_Model"
    body.blank()
    body.add(0, f"class {python_name(info.name)}({base}):", origin)
    if info.doc:
        body.add(1, repr(info.doc), origin)
    fields = []
    held = []
    for field in info.fields.values():
        if field.is_model:
            if field.model is None:
                raise Unsupported(f"the field `{field.name}` of model {info.name}")
            if context.standalone:
                held.append(f"({field.name!r}, {python_name(field.model)}, {field.count!r}),")
                continue
            count = f", {field.count}" if field.count is not None else ""
            held.append(f"_ss_rt.models.Held({field.name!r}, {python_name(field.model)}{count}),")
            continue
        if field.shape is None or field.initializer is None:
            raise Unsupported(f"the field `{field.name}` of model {info.name}")
        init = (field.initializer.name, dict(field.initializer.args))
        parts = f"{field.name!r}, {field.kind!r}, {tuple(field.shape)!r}, {field.dtype!r}"
        made = (
            f"({parts}, {init!r})"
            if context.standalone
            else f"_ss_rt.models.Field({parts}, {init!r})"
        )
        fields.append(f"{made},")
    body.add(1, "_ss_fields = (", origin)
    for line in fields:
        body.add(2, line, origin)
    body.add(1, ")", origin)
    if held:
        body.add(1, "_ss_held = (", origin)
        for line in held:
            body.add(2, line, origin)
        body.add(1, ")", origin)
    body.blank()


def randomness(context: ModuleContext, name: str) -> str:
    """A name of `shapescript.rt.randomness` (Eval, Train, dropout, ...), or the standalone
    module's own copy of it."""
    if context.standalone:
        context.standalone_helper("modes")
        return f"_ss_{name}"
    return f"_ss_rt.randomness.{name}"


def is_training(type_: Type | None) -> bool:
    return isinstance(type_, ModelType | GradType | OptimizerType | ScheduleType | ModeType)


def require_runtime(gen: FunctionGenerator, span) -> None:
    if gen.context.standalone:
        raise Unsupported(STANDALONE, span)


def check_line(gen: FunctionGenerator, index: int, param) -> str | None:
    """The runtime check of a model, Grad, optimizer state, schedule or mode argument."""
    type_ = param.type
    if not is_training(type_):
        return None
    if not isinstance(type_, ModelType | ModeType):
        require_runtime(gen, param.decl.span)
    if gen.context.checks == "never":
        return None
    name = python_name(param.name)
    where = f"_ss_where_{gen.key}_{param.name}"
    line, column = gen.context.location(gen.base, param.decl.span)
    gen.context.constants[where] = repr(
        {
            "path": gen.context.source.path,
            "line": line,
            "column": column,
            "function": gen.decl.name,
            "parameter": param.name,
        }
    )
    if isinstance(type_, ModelType):
        check = "_ss_check_model" if gen.context.standalone else "_ss_rt.models.check_model"
        return f"{check}({name}, {python_name(type_.name)}, {where})"
    if isinstance(type_, GradType):
        return f"_ss_rt.gradients.check_grad({name}, {python_name(type_.model)}, {where})"
    if isinstance(type_, OptimizerType):
        kind = OPTIMIZER_NAMES[type_.kind]
        return (
            f"_ss_rt.optimizers.check_optimizer({name}, {kind!r}, "
            f"{python_name(type_.model)}, {where})"
        )
    if isinstance(type_, ScheduleType):
        return f"_ss_rt.optimizers.check_schedule({name}, {where})"
    return f"{randomness(gen.context, 'check_mode')}({name}, {where})"


def member(gen: FunctionGenerator, node: ast.Member) -> str | None:
    """`m.w1` or `g.w1`, when the checker recorded it as a field read."""
    facts = gen.view.item.body.facts if gen.view.item.body is not None else None
    if facts is None or node.span not in facts.fields:
        return None
    return f"{gen.expr(node.target)}.{node.name}"


def field_assign(gen: FunctionGenerator, stmt: ast.FieldAssign) -> str:
    require_runtime(gen, stmt.span)
    value = gen.expr(stmt.value)
    target = gen.expr(stmt.target)
    return f"_ss_rt.models.set_field({target}, {stmt.field_name!r}, {value})"


def model_init(gen: FunctionGenerator, node: ast.Call) -> str | None:
    """`Mlp.init(seed=s)`."""
    callee = node.callee
    if not isinstance(callee, ast.Member):
        return None
    target = imports.unqualified(gen, callee.target)
    if not isinstance(target, ast.Name) or target.name in gen.locals:
        return None
    imported = imports.symbol(gen, target.name)
    if target.name not in gen.context.checked.models and (
        imported is None or imported.kind != "model"
    ):
        return None
    if imported is not None and target.name not in gen.context.checked.models:
        require_runtime(gen, node.span)
    parts = [f"{arg.name}={gen.expr(arg.value)}" for arg in node.args if arg.name]
    parts[:0] = [gen.expr(arg.value) for arg in node.args if not arg.name]
    return f"{python_name(target.name)}.init({', '.join(parts)})"


def name(gen: FunctionGenerator, node: ast.Name) -> str | None:
    """`Eval`, the one training value written as a name."""
    if node.name == "Eval" and isinstance(gen.type(node), ModeType):
        return randomness(gen.context, "Eval")
    return None


def passed(gen: FunctionGenerator, value, text: str, callee: str) -> str:
    """An argument, extended with the call's path when it is a mode."""
    node = gen.operand_node(value)
    if not isinstance(gen.type(node), ModeType):
        return text
    gen.uses_calls = True
    loop = gen.loop_key()
    callee = gen.context.written(callee)
    key = f"_ss_calls.key({callee!r}, {loop})" if loop else f"_ss_calls.key({callee!r})"
    return f"{text}.child({key})"


def builtin(gen: FunctionGenerator, name: str, node: ast.Call, piped: str | None) -> str:
    """value_and_grad, update, sgd, adamw, clip_norm, cosine, warmup and Train."""
    if name != "Train":
        require_runtime(gen, node.span)
    args = gen.call_args(node, piped)
    if name == "value_and_grad":
        return _value_and_grad(gen, node, args, piped)
    parts = [gen.arg(value, piped) for value in args.positional]
    parts += [f"{key}={gen.arg(value, piped)}" for key, value in args.keywords.items()]
    function = randomness(gen.context, name) if name == "Train" else RUNTIME_FUNCTIONS[name]
    return f"{function}({', '.join(parts)})"


def _value_and_grad(gen: FunctionGenerator, node: ast.Call, args: CallArgs, piped) -> str:
    function = args.positional[0]
    if not isinstance(function, ast.Name):
        raise gen.unsupported("value_and_grad of this function", node.span)
    callee = function.name
    target = gen.view.call_target(function.span)
    named = imports.called(target.python_name) if target is not None else python_name(callee)
    parts = [trusted.called(gen, named)]
    parts += [passed(gen, v, gen.arg(v, piped), callee) for v in args.positional[1:]]
    parts += [
        f"{python_name(key)}={passed(gen, v, gen.arg(v, piped), callee)}"
        for key, v in args.keywords.items()
    ]
    pads = padding.passed(gen, node)
    if pads is not None:
        parts.append(pads)
    return f"_ss_rt.gradients.value_and_grad({', '.join(parts)})"


def grad_norm(gen: FunctionGenerator, node: ast.Call, piped: str | None) -> str | None:
    """`norm(g)` of a gradient."""
    args = gen.call_args(node, piped)
    if not args.positional:
        return None
    if not isinstance(gen.type(gen.operand_node(args.positional[0])), GradType):
        return None
    return f"_ss_rt.gradients.norm({gen.arg(args.positional[0], piped)})"
