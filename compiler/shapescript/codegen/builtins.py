"""Calls of the built-in operations, extern fns and the prelude, as torch calls.

Axes named with `over=` (and an extern's `Axis[n]` parameters) become negative positions
in the operand's recorded type, which stay right inside an elementwise iterator stage,
where the operand has the iterated axis in front.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from shapescript.check.algebra.types import HostType, TensorType
from shapescript.check.declarations.signatures import Signature
from shapescript.codegen import data, logs, padding, patterns, training
from shapescript.codegen.context import Unsupported, python_name
from shapescript.codegen.lowering import linear
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.function import CallArgs, FunctionGenerator

#: Reductions: the tensor method, and whether it needs a float operand.
REDUCTIONS = {
    "sum": ("sum", False),
    "mean": ("mean", True),
    "max": ("amax", False),
    "min": ("amin", False),
    "prod": ("prod", False),
    "std": ("std", True),
    "var": ("var", True),
    "any": ("any", False),
    "all": ("all", False),
}

#: Elementwise built-ins of one tensor: torch for tensors, Python for host numbers.
UNARY = {
    "abs": ("_ss_torch.abs({0})", "_ss_abs({0})"),
    "square": ("_ss_torch.square({0})", "({0} ** 2)"),
    "relu": ("_ss_torch.relu({0})", "_ss_max({0}, 0)"),
    "floor": ("_ss_torch.floor({0})", "_ss_math.floor({0})"),
    "ceil": ("_ss_torch.ceil({0})", "_ss_math.ceil({0})"),
    "round": ("_ss_torch.round({0})", "_ss_round({0})"),
    "zeros_like": ("_ss_torch.zeros_like({0})", "0"),
}

ARITHMETIC = {"add": "+", "sub": "-", "mul": "*", "div": "/"}

#: Python functions whose host-number form the math module has (for `sqrt(Dh)`).
HOST_MATH = {
    "torch.exp": "_ss_math.exp({0})",
    "torch.log": "_ss_math.log({0})",
    "torch.log1p": "_ss_math.log1p({0})",
    "torch.expm1": "_ss_math.expm1({0})",
    "torch.sqrt": "_ss_math.sqrt({0})",
    "torch.rsqrt": "(1 / _ss_math.sqrt({0}))",
    "torch.sin": "_ss_math.sin({0})",
    "torch.cos": "_ss_math.cos({0})",
    "torch.tanh": "_ss_math.tanh({0})",
    "torch.sigmoid": "(1 / (1 + _ss_math.exp(-{0})))",
    "torch.erf": "_ss_math.erf({0})",
    "torch.nn.functional.gelu": "({0} * (1 + _ss_math.erf({0} / _ss_math.sqrt(2))) / 2)",
    "torch.nn.functional.silu": "({0} / (1 + _ss_math.exp(-{0})))",
    "torch.nn.functional.softplus": "_ss_math.log1p(_ss_math.exp({0}))",
    "torch.nn.functional.logsigmoid": "(-_ss_math.log1p(_ss_math.exp(-{0})))",
}

#: nn.ss stubs that name `shapescript.rt` functions, compiled straight to torch.
RUNTIME_LAYERS = {
    "shapescript.rt.layer_norm": "layer_norm",
    "shapescript.rt.rms_norm": "rms_norm",
}


def dim_of(gen: FunctionGenerator, operand, axis_name: str, span) -> int:
    """The negative position of the named axis in the operand's recorded type."""
    type_ = gen.type(operand) if not isinstance(operand, str) else None
    if not isinstance(type_, TensorType) or type_.axes is None:
        raise Unsupported(f"`over={axis_name}` on a value without axes", span)
    for index, axis in enumerate(type_.axes):
        if axis.name == axis_name:
            return index - len(type_.axes)
    raise Unsupported(f"no axis `{axis_name}` to work along", span)


def _over(args: CallArgs) -> str | None:
    value = args.keywords.get("over")
    return value.name if isinstance(value, ast.Name) else None


def builtin_call(gen: FunctionGenerator, name: str, node: ast.Call, piped: str | None) -> str:
    handler = HANDLERS.get(name)
    if handler is None:
        raise gen.unsupported(f"`{name}`", node.span)
    return handler(gen, name, node, piped)


def _reduction(gen, name, node, piped):
    if name == "norm":
        of_grad = training.grad_norm(gen, node, piped)
        if of_grad is not None:
            return of_grad
    args = gen.call_args(node, piped)
    operand = args.positional[0]
    value = gen.arg(operand, piped)
    over = _over(args)
    type_ = gen.type(gen.operand_node(operand))
    method, needs_float = REDUCTIONS.get(name, (name, False))
    if (
        needs_float
        and isinstance(type_, TensorType)
        and type_.resolved_dtype not in ("f16", "bf16", "f32", "f64")
    ):
        value = f"{value}.to({gen.context.dtype('f32')})"
    dim = dim_of(gen, gen.operand_node(operand), over, node.span) if over else None
    masked = padding.reduction(gen, name, node, value, dim, gen.operand_node(operand))
    if masked is not None:
        return masked
    if name == "norm":
        return f"_ss_torch.linalg.vector_norm({value}" + (f", dim={dim})" if over else ")")
    if name == "logsumexp":
        if over:
            return f"_ss_torch.logsumexp({value}, {dim})"
        return f"_ss_torch.logsumexp({value}.reshape(-1), 0)"
    if dim is None:
        return f"{value}.{method}()"
    return f"{value}.{method}({dim})"


def _along(gen, name, node, piped):
    args = gen.call_args(node, piped)
    operand = args.positional[0]
    value = gen.arg(operand, piped)
    operand_node = gen.operand_node(operand)
    over = _over(args)
    dim = dim_of(gen, operand_node, over, node.span)
    if name in ("softmax", "log_softmax"):
        masked = padding.reduction(gen, name, node, value, dim, operand_node)
        if masked is not None:
            return masked
    if name in ("softmax", "log_softmax", "cumsum", "cumprod"):
        return f"_ss_torch.{name}({value}, {dim})"
    if name == "sort":
        return f"_ss_torch.sort({value}, {dim}).values"
    if name == "argsort":
        return f"_ss_torch.argsort({value}, dim={dim}, stable=True)"
    if name in ("argmax", "argmin"):
        return f"_ss_torch.{name}({value}, {dim})"
    if name == "topk":
        k = args.keywords.get("k", args.positional[1] if len(args.positional) > 1 else None)
        tuple_ = gen.context.builtin("tuple")
        return f"{tuple_}(_ss_torch.topk({value}, {gen.arg(k, piped)}, {dim}))"
    if name == "cross_entropy":
        labels = args.keywords.get("y", args.positional[1] if len(args.positional) > 1 else None)
        type_ = gen.type(operand_node)
        rank = len(type_.axes) if isinstance(type_, TensorType) and type_.axes else 1
        masked = padding.cross_entropy(gen, node, value, labels, dim, gen.arg(labels, piped))
        if masked is not None:
            return masked
        logits, label_value = value, gen.arg(labels, piped)
        if rank > 2 and dim == -1 and gen.lowers("cross_entropy over rows"):
            # Classes last: one row of logits per label, as torch's fast path wants them;
            # moved to axis 1 instead, log_softmax runs across a strided axis.
            logits, label_value = f"{value}.flatten(0, -2)", f"{label_value}.flatten()"
        elif rank >= 2 and dim != 1 - rank:
            logits = f"_ss_torch.movedim({value}, {dim}, 1)"
        return f"_ss_F.cross_entropy({logits}, {label_value})"
    if name == "cat":
        values = ", ".join(gen.arg(v, piped) for v in args.positional)
        return f"_ss_torch.cat(({values},), {dim})"
    if name == "gather":
        index = gen.arg(args.positional[1], piped)
        return f"_ss_torch.gather({value}, {dim}, {index})"
    if name == "scatter":
        index = gen.arg(args.positional[1], piped)
        source = gen.arg(args.positional[2], piped)
        return f"_ss_torch.scatter({value}, {dim}, {index}, {source})"
    raise gen.unsupported(f"`{name}`", node.span)


def _stack(gen, name, node, piped):
    """`stack(xs..., over=s)`: the new axis s comes first."""
    args = gen.call_args(node, piped)
    values = ", ".join(gen.arg(value, piped) for value in args.positional)
    return f"_ss_torch.stack(({values},), 0)"


def _masked_fill(gen, name, node, piped):
    args = gen.call_args(node, piped)
    tensor, mask, fill = (args.positional + [None, None, None])[:3]
    plans = gen.view.alignment(node.span) or (None, None)
    result = gen.type(node)
    mask_value = gen.arg(mask, piped)
    mask_value = gen.aligned(mask_value, plans[1], gen.operand_node(mask), result)
    return f"{gen.arg(tensor, piped)}.masked_fill({mask_value}, {gen.arg(fill, piped)})"


def _elementwise(gen, name, node, piped):
    args = gen.call_args(node, piped)
    values = list(args.positional)
    for key in ("lo", "hi", "negative_slope", "alpha", "p", "a", "b", "x", "cond"):
        if key in args.keywords:
            values.append(args.keywords[key])
    plans = gen.view.alignment(node.span) or (None,) * len(args.positional)
    result = gen.type(node)
    texts = []
    written = []
    for position, value in enumerate(args.positional):
        text = gen.arg(value, piped)
        written.append(text)
        if position < len(plans):
            text = gen.aligned(text, plans[position], gen.operand_node(value), result)
        texts.append(text)
    host = isinstance(result, HostType)
    if name == "add" and len(texts) == 2 and texts == written:
        types = tuple(gen.type(gen.operand_node(v)) for v in args.positional[:2])
        fused = linear.either_side(gen, (texts[0], texts[1]), (*types, result))
        if fused is not None:
            return fused
    if name in ARITHMETIC:
        return f"({texts[0]} {ARITHMETIC[name]} {texts[1]})"
    if name in UNARY:
        tensor_form, host_form = UNARY[name]
        if host:
            for builtin in re.findall(r"_ss_(abs|max|round)\(", host_form):
                gen.context.builtin(builtin)
        if host:
            return host_form.format(texts[0])
        if name in linear.ROW_BUILTINS:
            rows = linear.form_on_rows(gen, tensor_form, texts[0])
            if rows is not None:
                return rows
        return tensor_form.format(texts[0])
    keywords = {key: gen.arg(value, piped) for key, value in args.keywords.items()}
    if name == "pow":
        return f"({texts[0]} ** {texts[1] if len(texts) > 1 else keywords['p']})"
    if name in ("maximum", "minimum"):
        first, second = texts[0], texts[1] if len(texts) > 1 else keywords["b"]
        if host:
            function = gen.context.builtin("max" if name == "maximum" else "min")
            return f"{function}({first}, {second})"
        types = [gen.type(gen.operand_node(v)) for v in args.positional]
        bound = "min" if name == "maximum" else "max"
        if len(types) > 1 and not isinstance(types[1], TensorType):
            return f"_ss_torch.clamp({first}, {bound}={second})"
        if not isinstance(types[0], TensorType):
            return f"_ss_torch.clamp({second}, {bound}={first})"
        return f"_ss_torch.{name}({first}, {second})"
    if name == "clamp":
        lo = texts[1] if len(texts) > 1 else keywords.get("lo", "None")
        hi = texts[2] if len(texts) > 2 else keywords.get("hi", "None")
        if host:
            value = texts[0]
            if lo != "None":
                value = f"{gen.context.builtin('max')}({value}, {lo})"
            if hi != "None":
                value = f"{gen.context.builtin('min')}({value}, {hi})"
            return value
        return f"_ss_torch.clamp({texts[0]}, {lo}, {hi})"
    if name == "where":
        return f"_ss_torch.where({texts[0]}, {texts[1]}, {texts[2]})"
    if name == "leaky_relu":
        slope = texts[1] if len(texts) > 1 else keywords.get("negative_slope", "0.01")
        return f"_ss_F.leaky_relu({texts[0]}, {slope})"
    if name == "elu":
        alpha = texts[1] if len(texts) > 1 else keywords.get("alpha", "1.0")
        return f"_ss_F.elu({texts[0]}, {alpha})"
    raise gen.unsupported(f"`{name}`", node.span)


def _matmul(gen, name, node, piped):
    args = gen.call_args(node, piped)
    operands = tuple(args.positional[:2])
    values = tuple(gen.arg(value, piped) for value in operands)
    return gen.matmul(node, values, tuple(gen.operand_node(value) for value in operands))


def causal(gen: FunctionGenerator, node: ast.Index) -> str:
    """`causal[n m]`: true where the m index is at most the n index."""
    type_ = gen.type(node)
    if not isinstance(type_, TensorType) or type_.axes is None or len(type_.axes) != 2:
        raise gen.unsupported("this causal mask", node.span)
    rows = gen.size(type_.axes[0].size, node.span)
    columns = gen.size(type_.axes[1].size, node.span)
    return f"_ss_torch.ones({rows}, {columns}, dtype=_ss_torch.bool, device=_ss_dev).tril()"


def _positions(gen, name, node, piped):
    """`positions(n)`: torch.arange of the axis's size, on the declared device."""
    type_ = gen.type(node)
    if not isinstance(type_, TensorType) or type_.axes is None or len(type_.axes) != 1:
        raise gen.unsupported("these positions", node.span)
    length = gen.size(type_.axes[0].size, node.span)
    return f"_ss_torch.arange({length}, device=_ss_dev)"


def extern_call(
    gen: FunctionGenerator, node: ast.Call, signature: Signature, piped: str | None
) -> str:
    """A call to an extern fn or a prelude stub: its Python function, with Axis and Axes
    arguments as positions in the first argument and host numbers through `math`."""
    args = gen.call_args(node, piped)
    params = signature.params
    path = signature.path
    first_node = None
    if args.positional:
        first_node = gen.operand_node(args.positional[0])
    elif params and params[0].name in args.keywords:
        first_node = gen.operand_node(args.keywords[params[0].name])
    result = gen.type(node)
    if isinstance(result, HostType) and path in HOST_MATH and args.positional:
        gen.context.need("import math as _ss_math")
        return HOST_MATH[path].format(gen.arg(args.positional[0], piped))

    def render(param_name: str | None, value) -> str:
        param = next((p for p in params if p.name == param_name), None)
        if param is not None and param.special in ("Axis", "Axes"):
            axis_name = value.name if isinstance(value, ast.Name) else None
            position = dim_of(gen, first_node, axis_name, node.span)
            return str(position) if param.special == "Axis" else f"[{position}]"
        if isinstance(value, ast.Name) and value.name == "none":
            return "None"
        return gen.passed(value, piped, signature.name)

    plans = gen.argument_plans(node, signature, args)

    def aligned(param_name: str | None, value, text: str) -> str:
        if param_name not in plans:
            return text
        return gen.aligned(text, plans[param_name], gen.operand_node(value), result)

    positional = []
    for index, value in enumerate(args.positional):
        name = params[index].name if index < len(params) else None
        positional.append(aligned(name, value, render(name, value)))
    keywords = {
        key: aligned(key, value, render(key, value)) for key, value in args.keywords.items()
    }
    layer = RUNTIME_LAYERS.get(path)
    if layer is not None:
        return _layer(gen, layer, params, positional, keywords, result)
    if path in training.MODE_EXTERNS:
        function = training.MODE_EXTERNS[path]
        masked = padding.masked_operands(gen, node) if path.endswith(".batch_norm") else []
        if masked:
            _, dim, mask = masked[0]
            parts = positional + [f"{python_name(key)}={value}" for key, value in keywords.items()]
            return f"_ss_rt.padding.batch_norm({dim}, {mask}, {', '.join(parts)})"
        if gen.context.standalone:
            function = training.randomness(gen.context, function.rpartition(".")[2])
    elif path.startswith("shapescript.rt."):
        raise gen.unsupported(f"`{signature.name}`", node.span)
    else:
        function = gen.context_python_function(path)
        if not keywords and signature.is_elementwise:
            rows = linear.on_rows(gen, path, function, positional)
            if rows is not None:
                return rows
    parts = positional + [f"{python_name(key)}={value}" for key, value in keywords.items()]
    return f"{function}({', '.join(parts)})"


def _layer(gen, layer: str, params, positional: list[str], keywords: dict[str, str], result) -> str:
    """layer_norm and rms_norm over the last axis, which their stubs' types make `over`:
    its size from the result's type, so the operand's code runs once."""
    values = dict(zip([p.name for p in params], positional, strict=False)) | keywords
    x = values["x"]
    weight = values.get("weight", "None")
    eps = values.get("eps", "1e-05" if layer == "layer_norm" else "1e-06")
    rest = [weight, values.get("bias", "None")] if layer == "layer_norm" else [weight]
    tail = ", ".join([*rest, eps])
    shape = _last_axis(gen, result)
    if shape is not None:
        return f"_ss_F.{layer}({x}, {shape}, {tail})"
    # No size known here: the operand's own, and its code run once all the same.
    return f"(lambda _ss_x: _ss_F.{layer}(_ss_x, _ss_x.shape[-1:], {tail}))({x})"


def _last_axis(gen: FunctionGenerator, type_) -> str | None:
    """`(size,)` of a tensor type's last axis, when its size has a value here."""
    if not isinstance(type_, TensorType) or not type_.axes:
        return None
    try:
        return f"({gen.size(type_.axes[-1].size)},)"
    except Unsupported:
        return None


def _split_like(gen, name, node, piped):
    return patterns.pattern_call(gen, name, node, piped)


def _chain_only(gen, name, node, piped):
    raise gen.unsupported(f"`{name}` outside a pipe", node.span)


def _training(gen, name, node, piped):
    return training.builtin(gen, name, node, piped)


HANDLERS = {
    **{name: _reduction for name in ("sum", "mean", "max", "min", "prod", "std", "var")},
    **{name: _reduction for name in ("norm", "logsumexp", "any", "all")},
    **{
        name: _along
        for name in (
            "softmax",
            "log_softmax",
            "cumsum",
            "cumprod",
            "sort",
            "argsort",
            "argmax",
            "argmin",
            "topk",
            "cross_entropy",
            "cat",
            "gather",
            "scatter",
        )
    },
    **{name: _training for name in (*training.RUNTIME_FUNCTIONS, "value_and_grad")},
    "stack": _stack,
    "masked_fill": _masked_fill,
    **{
        name: _elementwise
        for name in (
            "abs",
            "square",
            "pow",
            "clamp",
            "maximum",
            "minimum",
            "where",
            "relu",
            "leaky_relu",
            "elu",
            "floor",
            "ceil",
            "round",
            "add",
            "sub",
            "mul",
            "div",
            "zeros_like",
        )
    },
    **{name: _split_like for name in ("rearrange", "reduce", "repeat", "einsum", "split")},
    "matmul": _matmul,
    "positions": _positions,
    "print": logs.print_call,
    "save": logs.save_call,
    "load": logs.load_call,
    **{name: _chain_only for name in ("map", "filter", "zip", "enumerate")},
    "shuffle": data.stage,
    "batches": data.stage,
}
