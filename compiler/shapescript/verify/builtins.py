"""The built-in operations the exact run knows, each written once for both arithmetics."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from shapescript.verify.values import ModeValue, Unsupported

if TYPE_CHECKING:
    from shapescript.verify.interpreter import Interpreter

Builtin = Callable[..., Any]


def _operand_node(node: Any) -> Any:
    """The syntax of a call's first operand (None when piped in: the pipe's input so far)."""
    args = getattr(node, "args", None)
    if args and args[0].name is None and not hasattr(args[0].value, "inputs"):
        return args[0].value
    return None


def _piped_names(interp: Interpreter) -> Any:
    """Where the operand came through a pipe: the names of the expression before the stage."""
    return interp.names(interp.piped_from) if interp.piped_from is not None else None


def _along(interp: Interpreter, node: Any, x: np.ndarray, over: str | None) -> int:
    operand = _operand_node(node)
    names = interp.names(operand) if operand is not None else _piped_names(interp)
    if over is None:
        return x.ndim - 1
    if names is not None and over in names and len(names) == x.ndim:
        return names.index(over)
    raise Unsupported(f"`over={over}` here", interp.line(node))


def _softmax(ar: Any, x: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True)
    e = ar.unary("exp", x - top)
    return e / np.sum(e, axis=axis, keepdims=True)


def _log_softmax(ar: Any, x: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True)
    shifted = x - top
    return shifted - ar.unary("log", np.sum(ar.unary("exp", shifted), axis=axis, keepdims=True))


def _logsumexp(ar: Any, x: np.ndarray, axis: int | None) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True)
    total = np.sum(ar.unary("exp", x - top), axis=axis, keepdims=True)
    out = top + ar.unary("log", total)
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


def _reduce(kind: str) -> Builtin:
    def run(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
        x = pos[0]
        axis = _along(interp, node, x, kw["over"]) if "over" in kw else None

        def compute(ar: Any, value: np.ndarray) -> np.ndarray:
            if kind == "sum":
                return np.asarray(np.sum(value, axis=axis))
            if kind == "mean":
                count = value.shape[axis] if axis is not None else value.size
                return np.asarray(np.sum(value, axis=axis) / count)
            if kind == "max":
                return np.asarray(np.max(value, axis=axis))
            if kind == "min":
                return np.asarray(np.min(value, axis=axis))
            if kind == "logsumexp":
                return _logsumexp(ar, value, axis)
            count = value.shape[axis] if axis is not None else value.size
            mean = np.sum(value, axis=axis, keepdims=True) / count
            return np.asarray(np.sum((value - mean) * (value - mean), axis=axis) / (count - 1))

        return interp.apply(kind, node, compute, x)

    return run


def _along_op(kind: str) -> Builtin:
    def run(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
        x = pos[0]
        axis = _along(interp, node, x, kw.get("over"))
        function = _softmax if kind == "softmax" else _log_softmax
        return interp.apply(kind, node, lambda ar, v: function(ar, v, axis), x)

    return run


def _unary(function: str) -> Builtin:
    def run(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
        x = pos[0]
        if not isinstance(x, np.ndarray):
            x = (
                interp.ar.array(float(x))
                if isinstance(x, int | float)
                else np.array(x, dtype=object)
            )
            return interp.ar.unary(function, x)[()]
        return interp.apply(function, node, lambda ar, v: ar.unary(function, v), x)

    return run


def _relu(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
    return interp.apply("relu", node, lambda ar, v: np.where(v > 0, v, v * 0), pos[0])


def _square(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
    return interp.apply("square", node, lambda ar, v: v * v, pos[0])


def _gelu(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
    def compute(ar: Any, v: np.ndarray) -> np.ndarray:
        root2 = ar.unary("sqrt", ar.array(2.0))
        return v * (1 + ar.unary("erf", v / root2)) / 2

    return interp.apply("gelu", node, compute, pos[0])


def _arithmetic(symbol: str) -> Builtin:
    operations = {
        "add": lambda ar, a, b: a + b,
        "sub": lambda ar, a, b: a - b,
        "mul": lambda ar, a, b: a * b,
        "div": lambda ar, a, b: a / b,
    }

    def run(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
        return interp.apply(symbol, node, operations[symbol], pos[0], pos[1])

    return run


def _matmul(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
    return interp.apply("matmul", node, lambda ar, a, b: np.matmul(a, b), pos[0], pos[1])


def _linear(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
    weight = kw.get("weight", pos[1] if len(pos) > 1 else None)
    bias = kw.get("bias", pos[2] if len(pos) > 2 else None)
    if bias is None:
        return interp.apply("linear", node, lambda ar, x, w: np.matmul(x, w.T), pos[0], weight)
    return interp.apply(
        "linear", node, lambda ar, x, w, b: np.matmul(x, w.T) + b, pos[0], weight, bias
    )


def _layer_norm(
    interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any
) -> Any:
    names = ("x", "over", "weight", "bias", "eps")
    values = dict(zip(names, pos, strict=False)) | kw
    eps = float(values.get("eps", 1e-5))

    def compute(ar: Any, x: np.ndarray, weight: Any, bias: Any) -> np.ndarray:
        count = x.shape[-1]
        mean = np.sum(x, axis=-1, keepdims=True) / count
        centered = x - mean
        variance = np.sum(centered * centered, axis=-1, keepdims=True) / count
        out = centered / ar.unary("sqrt", variance + ar.scalar(eps))
        if weight is not None:
            out = out * weight
        if bias is not None:
            out = out + bias
        return out

    return interp.apply(
        "layer_norm", node, compute, values["x"], values.get("weight"), values.get("bias")
    )


def _cross_entropy(
    interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any
) -> Any:
    logits = pos[0]
    labels = kw.get("y", pos[1] if len(pos) > 1 else None)
    axis = _along(interp, node, logits, kw.get("over")) if "over" in kw else logits.ndim - 1
    if axis != logits.ndim - 1 and _operand_node(node) is None:
        raise Unsupported(
            "a piped cross_entropy over an axis that isn't the last", interp.line(node)
        )

    def compute(ar: Any, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        moved = np.moveaxis(x, axis, -1)
        logp = _log_softmax(ar, moved, -1)
        picked = np.take_along_axis(logp, np.asarray(y)[..., None], axis=-1)
        return np.asarray(-np.sum(picked) / picked.size)

    return interp.apply("cross_entropy", node, compute, logits, labels)


def _embedding(
    interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any
) -> Any:
    ids, table = pos[0], kw.get("weight", pos[1] if len(pos) > 1 else None)
    return interp.apply("embedding", node, lambda ar, i, t: t[np.asarray(i)], ids, table)


def _masked_fill(
    interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any
) -> Any:
    x, mask, value = pos[0], pos[1], pos[2] if len(pos) > 2 else kw.get("value")
    written = [a.value for a in node.args if a.name is None]
    piped = len(pos) > len(written)
    mask_node = written[0 if piped else 1] if len(written) > (0 if piped else 1) else None
    names = interp.names(node)
    mask_names = interp.names(mask_node) if mask_node is not None else None
    if names and mask_names and None not in names and set(mask_names) <= set(names):
        order = sorted(range(len(mask_names)), key=lambda i: names.index(mask_names[i]))
        moved = mask.transpose(order)
        kept = [mask_names[i] for i in order]
        mask = moved.reshape([moved.shape[kept.index(n)] if n in kept else 1 for n in names])
    return interp.apply("masked_fill", node, lambda ar, v, f: np.where(mask, f, v), x, value)


def _attention(
    interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any
) -> Any:
    names = ("q", "k", "v", "attn_mask", "scale")
    values = dict(zip(names, pos, strict=False)) | kw
    mask, scale = values.get("attn_mask"), values.get("scale")

    def compute(ar: Any, q: np.ndarray, k: np.ndarray, v: np.ndarray, s: Any) -> np.ndarray:
        factor = s if s is not None else 1 / ar.unary("sqrt", ar.array(float(q.shape[-1])))[()]
        scores = np.matmul(q, np.swapaxes(k, -1, -2)) * factor
        if mask is not None:
            scores = np.where(mask, scores, ar.scalar(float("-inf")))
        return np.matmul(_softmax(ar, scores, scores.ndim - 1), v)

    q, k, v = values["q"], values["k"], values["v"]
    return interp.apply("scaled_dot_product_attention", node, compute, q, k, v, scale)


def _running(kind: str) -> Builtin:
    """cumsum, sort (values) and argsort (positions, ties in their order) along `over`."""

    def run(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
        x = pos[0]
        axis = _along(interp, node, x, kw.get("over"))

        def compute(ar: Any, value: np.ndarray) -> np.ndarray:
            if kind == "cumsum":
                return np.cumsum(value, axis=axis)
            if kind == "sort":
                return np.sort(value, axis=axis, kind="stable")
            return np.argsort(value, axis=axis, kind="stable").astype(np.int64)

        return interp.apply(kind, node, compute, x)

    return run


def _mode(seed: bool) -> Builtin:
    def run(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
        return ModeValue(int(kw.get("seed", pos[0] if pos else 0)) if seed else None)

    return run


def _dropout(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
    """dropout under Eval: its input unchanged. Under Train its masks are random draws,
    which have no exact value, so the run stops there."""
    values = dict(zip(("x", "p", "mode"), pos, strict=False)) | kw
    if getattr(values.get("mode"), "seed", None) is not None:
        raise Unsupported(
            "`dropout` under `Train` (its random masks have no exact value: verify the "
            "function with the mode `Eval()`, where dropout passes its input through)",
            interp.line(node),
        )
    return interp.apply("dropout", node, lambda ar, v: v, values["x"])


def _conv2d(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
    """conv2d as the exact sum, over input channels and the kernel's window, of each output."""
    names = ("input", "weight", "bias", "stride", "padding")
    values = dict(zip(names, pos, strict=False)) | kw
    stride, padding = int(values.get("stride", 1)), int(values.get("padding", 0))

    def compute(ar: Any, x: np.ndarray, w: np.ndarray, bias: Any) -> np.ndarray:
        zero = ar.scalar(0.0)
        edges = ((0, 0), (0, 0), (padding, padding), (padding, padding))
        padded = np.pad(x, edges, constant_values=zero) if padding else x
        windows = np.lib.stride_tricks.sliding_window_view(padded, w.shape[2:], axis=(2, 3))
        windows = windows[:, :, ::stride, ::stride]
        out = np.einsum("bchwij,ocij->bohw", windows, w)
        return out + bias[None, :, None, None] if bias is not None else out

    return interp.apply(
        "conv2d", node, compute, values["input"], values["weight"], values.get("bias")
    )


def _pattern(kind: str) -> Builtin:
    def run(interp: Interpreter, node: Any, pos: list[Any], kw: dict[str, Any], pats: Any) -> Any:
        if len(pats) != 1:
            raise Unsupported(f"`{kind}` without a pattern", interp.line(node))
        return interp.pattern(node, kind, pos, pats[0])

    return run


BUILTINS: dict[str, Builtin] = {
    **{name: _reduce(name) for name in ("sum", "mean", "max", "min", "var", "logsumexp")},
    "softmax": _along_op("softmax"),
    "log_softmax": _along_op("log_softmax"),
    **{name: _unary(name) for name in ("exp", "log", "sqrt", "tanh", "abs", "sigmoid", "erf")},
    "relu": _relu,
    "square": _square,
    "gelu": _gelu,
    **{name: _arithmetic(name) for name in ("add", "sub", "mul", "div")},
    "matmul": _matmul,
    "linear": _linear,
    "layer_norm": _layer_norm,
    "cross_entropy": _cross_entropy,
    "embedding": _embedding,
    "masked_fill": _masked_fill,
    "scaled_dot_product_attention": _attention,
    **{name: _running(name) for name in ("cumsum", "sort", "argsort")},
    "Eval": _mode(seed=False),
    "Train": _mode(seed=True),
    "dropout": _dropout,
    "conv2d": _conv2d,
    "rearrange": _pattern("rearrange"),
    "split": _pattern("split"),
    "einsum": _pattern("einsum"),
}
