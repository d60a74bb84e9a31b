"""Optimizer steps checked whole before they start, then run to the end: `update`'s usual path.

On the CPU, `torch.optim.AdamW` and `torch.optim.SGD` step one param at a time, in place
(`_single_tensor_adam`, `_single_tensor_sgd`). `prepare` works out everything such a step
could fail on before anything changes: the shapes, dtypes and devices of the params, the
gradients and the state, and every tensor the step makes (a first step's state, and the
temporaries torch would allocate, such as AdamW's denominator, kept here from step to
step). What is left, `Prepared.apply`, is torch's ops in torch's order with torch's
numbers, each writing a tensor that fits: the results are torch's bit for bit, and
nothing is copied.

So a step that fails fails in `prepare`, and leaves the params and the state as they were.
An exception that lands while `apply` runs (a KeyboardInterrupt) would leave the step half
done, so `apply` finishes it and raises the exception after: each tensor's version counter
says how many of its ops have run, and the rest run. The step is then counted.

`update` takes this path when `supported` says so (no step hooks, CPU params, torch's
single-tensor algorithm); otherwise it calls the optimizer's `step()`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch.optim import optimizer as torch_optimizer

from shapescript.rt.errors import ShapeError
from shapescript.rt.optimizer_groups import scale_of

#: `Optimizer.step()` runs these before and after every step, whichever optimizer it is.
_GLOBAL_HOOKS = (
    getattr(torch_optimizer, "_global_optimizer_pre_hooks", None),
    getattr(torch_optimizer, "_global_optimizer_post_hooks", None),
)


def _scalar_dtype() -> torch.dtype:
    """The dtype torch's optimizers give a new `step` count: f64 under an f64 default dtype."""
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32


def supported(opt: torch.optim.Optimizer, params: Sequence[torch.Tensor], grads: list) -> bool:
    """Whether `prepare` and `apply` do exactly what `opt.step()` would, and nothing else can run.

    So: an exact AdamW or SGD, no step hooks and no `step` of its
    own (an LR scheduler's wrapper), and torch's single-tensor algorithm (CPU params, not
    foreach, fused, capturable or differentiable) on plain dense tensors. A sparse gradient
    or an inference-mode param goes to `step()` too, which handles or refuses it as it does.
    """
    kind = type(opt)
    if kind is not torch.optim.AdamW and kind is not torch.optim.SGD:
        return False
    if opt._optimizer_step_pre_hooks or opt._optimizer_step_post_hooks:
        return False
    if any(hooks is None or hooks for hooks in _GLOBAL_HOOKS) or "step" in opt.__dict__:
        return False
    if getattr(opt, "grad_scale", None) is not None:
        return False
    if not all(_plain_group(kind, group) for group in opt.param_groups):
        return False
    for param, grad in zip(params, grads, strict=True):
        if (
            type(param) is not torch.nn.Parameter
            or type(grad) is not torch.Tensor
            or param.layout is not torch.strided
            or grad.layout is not torch.strided
            or not param.is_cpu
            or param.is_complex()
            or param.is_inference()
        ):
            return False
    return True


def _plain_group(kind: type, group: dict[str, Any]) -> bool:
    """Whether a param group's settings leave torch's single-tensor algorithm as it is."""
    if (
        group.get("foreach")
        or group.get("fused")
        or group.get("differentiable")
        or group.get("capturable")
        or isinstance(group["weight_decay"], torch.Tensor)
        or isinstance(group["lr"], torch.Tensor)
    ):
        return False
    return kind is not torch.optim.AdamW or (
        group.get("decoupled_weight_decay", True)
        and not any(isinstance(beta, torch.Tensor) for beta in group["betas"])
    )


def _groups_of(
    opt: torch.optim.Optimizer, params: Sequence[torch.Tensor], rate: float
) -> list[tuple[dict[str, Any], float]]:
    """Each param's group and the learning rate it steps at: `rate` times the group's factor."""
    by_param = {
        id(param): (group, rate * scale_of(group))
        for group in opt.param_groups
        for param in group["params"]
    }
    return [by_param[id(param)] for param in params]


class Prepared:
    """A step checked whole: its ops, in order, each changing one tensor once; then new state.

    Since each op bumps its tensor's version counter by one, the versions say how many of
    the ops have run, whatever interrupted them.
    """

    __slots__ = ("_ops", "_opt", "_puts", "_starts")

    def __init__(self, opt: torch.optim.Optimizer) -> None:
        self._opt = opt
        self._ops: list[tuple[torch.Tensor, Callable[..., object], tuple, dict]] = []
        self._puts: list[tuple[torch.Tensor, dict[str, torch.Tensor]]] = []
        self._starts: list[int] = []

    def write(
        self, tensor: torch.Tensor, function: Callable[..., object], *args: Any, **kw: Any
    ) -> None:
        """Run `function(*args, **kw)`, which changes `tensor` in place (and nothing else) once."""
        self._ops.append((tensor, function, args, kw))

    def put(self, param: torch.Tensor, entry: dict[str, torch.Tensor]) -> None:
        """Add `entry`'s tensors (made by this step) to the param's state when it is applied."""
        self._puts.append((param, entry))

    def apply(self, then: Callable[[], object]) -> None:
        """Run the step, then `then`; if an exception interrupts it, finish it and raise."""
        self._starts = [tensor._version for tensor, _, _, _ in self._ops]
        try:
            self._finish(0, then)
        except BaseException:
            self._finish(self._done(), then)
            raise

    def _done(self) -> int:
        """How many of the ops have run: what they have added to their tensors' versions."""
        changed = {
            id(tensor): tensor._version - start
            for (tensor, *_), start in zip(self._ops, self._starts, strict=True)
        }
        return sum(changed.values())

    def _finish(self, done: int, then: Callable[[], object]) -> None:
        """Run the ops after the first `done`, put the new state in and call `then`."""
        with torch.no_grad():
            for _, function, args, kw in self._ops[done:]:
                function(*args, **kw)
        state = self._opt.state
        for param, entry in self._puts:
            state[param].update(entry)
        then()


class Buffers:
    """The tensors a step writes that torch would allocate afresh, kept from step to step."""

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[tuple[int, str], torch.Tensor] = {}

    def like(self, index: int, use: str, like: torch.Tensor) -> torch.Tensor:
        """Param `index`'s buffer for `use`, with `like`'s shape and dtype, on the CPU."""
        buffer = self._kept.get((index, use))
        if buffer is None or buffer.shape != like.shape or buffer.dtype != like.dtype:
            buffer = self._kept[index, use] = torch.empty_like(like, device="cpu")
        return buffer


def _check(param: torch.Tensor, tensor: Any, written: bool = True) -> None:
    """ShapeError unless `tensor`, which a param's step reads or writes, fits it."""
    if (
        type(tensor) is not torch.Tensor
        or tensor.shape != param.shape
        or tensor.dtype != param.dtype
        or not tensor.is_cpu
        or (written and tensor.is_inference())
    ):
        shown = (
            f"{list(tensor.shape)} {tensor.dtype} on {tensor.device}"
            if isinstance(tensor, torch.Tensor)
            else type(tensor).__name__
        )
        raise ShapeError(
            f"update: a tensor {shown} in the step of a param "
            f"{list(param.shape)} {param.dtype} on {param.device}"
        )


#: The counts past which adding 1 to a step count of each dtype may round.
_EXACT_COUNTS = {torch.float32: 2.0**24, torch.float64: 2.0**53}


def _next_count(step_t: Any) -> float:
    """What `step_t += 1` will make the AdamW step count, as torch reads it (`.item()`)."""
    if (
        type(step_t) is not torch.Tensor
        or step_t.numel() != 1
        or not step_t.is_floating_point()
        or not step_t.is_cpu
        or step_t.is_inference()
    ):
        raise ShapeError("update: an AdamW step count that isn't one float on the CPU")
    count = step_t.item()
    if count.is_integer() and abs(count) < _EXACT_COUNTS.get(step_t.dtype, 0.0):
        return count + 1
    return (step_t + 1).item()


def _adamw_state(param: torch.Tensor, amsgrad: bool) -> dict[str, torch.Tensor]:
    """A first step's state, as `Adam._init_group` makes it."""
    entry = {
        "step": torch.tensor(0.0, dtype=_scalar_dtype(), device="cpu"),
        "exp_avg": torch.zeros_like(param, memory_format=torch.preserve_format),
        "exp_avg_sq": torch.zeros_like(param, memory_format=torch.preserve_format),
    }
    if amsgrad:
        entry["max_exp_avg_sq"] = torch.zeros_like(param, memory_format=torch.preserve_format)
    return entry


def _prepare_adamw(
    opt: torch.optim.Optimizer,
    params: Sequence[torch.Tensor],
    grads: list[torch.Tensor],
    lr: float,
    buffers: Buffers,
) -> Prepared:
    """`_single_tensor_adam` with decoupled weight decay, not capturable, for each param
    with its group's settings."""
    state = opt.state
    prepared = Prepared(opt)
    groups = _groups_of(opt, params, lr)
    for index, (param, grad) in enumerate(zip(params, grads, strict=True)):
        group, lr = groups[index]
        beta1, beta2 = group["betas"]
        weight_decay, eps = group["weight_decay"], group["eps"]
        amsgrad, maximize = group["amsgrad"], group["maximize"]
        entry = state.get(param)
        if not entry:
            entry = _adamw_state(param, amsgrad)
            prepared.put(param, entry)
        step_t, exp_avg, exp_avg_sq = entry["step"], entry["exp_avg"], entry["exp_avg_sq"]
        second = entry["max_exp_avg_sq"] if amsgrad else exp_avg_sq
        step = _next_count(step_t)
        _check(param, grad, written=False)
        _check(param, exp_avg)
        _check(param, exp_avg_sq)
        _check(param, second)
        if maximize:
            negated = buffers.like(index, "grad", grad)
            prepared.write(negated, torch.neg, grad, out=negated)
            grad = negated
        prepared.write(step_t, step_t.add_, 1)
        if weight_decay != 0:
            prepared.write(param, param.mul_, 1 - lr * weight_decay)
        prepared.write(exp_avg, exp_avg.lerp_, grad, 1 - beta1)
        prepared.write(exp_avg_sq, exp_avg_sq.mul_, beta2)
        prepared.write(exp_avg_sq, exp_avg_sq.addcmul_, grad, grad, value=1 - beta2)
        if amsgrad:
            prepared.write(second, torch.maximum, second, exp_avg_sq, out=second)
        denom = buffers.like(index, "denom", second)
        prepared.write(denom, torch.sqrt, second, out=denom)
        prepared.write(denom, denom.div_, (1 - beta2**step) ** 0.5)
        prepared.write(denom, denom.add_, eps)
        step_size = lr / (1 - beta1**step)
        prepared.write(param, param.addcdiv_, exp_avg, denom, value=-step_size)
    return prepared


def _prepare_sgd(
    opt: torch.optim.Optimizer,
    params: Sequence[torch.Tensor],
    grads: list[torch.Tensor],
    lr: float,
    buffers: Buffers,
) -> Prepared:
    """`_single_tensor_sgd`, for each param with its group's settings."""
    state = opt.state
    prepared = Prepared(opt)
    groups = _groups_of(opt, params, lr)
    for index, (param, grad) in enumerate(zip(params, grads, strict=True)):
        group, lr = groups[index]
        weight_decay, momentum = group["weight_decay"], group["momentum"]
        dampening, nesterov = group["dampening"], group["nesterov"]
        maximize = group["maximize"]
        _check(param, grad, written=False)
        if maximize:
            negated = buffers.like(index, "grad", grad)
            prepared.write(negated, torch.neg, grad, out=negated)
            grad = negated
        if weight_decay != 0:
            decayed = buffers.like(index, "decayed", grad)
            prepared.write(decayed, torch.add, grad, param, alpha=weight_decay, out=decayed)
            grad = decayed
        if momentum != 0:
            entry = state.get(param)
            buf = entry.get("momentum_buffer") if entry else None
            if buf is None:
                buf = torch.empty_like(grad, memory_format=torch.preserve_format)
                prepared.put(param, {"momentum_buffer": buf})
                prepared.write(buf, buf.copy_, grad)
            else:
                _check(param, buf)
                prepared.write(buf, buf.mul_, momentum)
                prepared.write(buf, buf.add_, grad, alpha=1 - dampening)
            if nesterov:
                ahead = buffers.like(index, "ahead", grad)
                prepared.write(ahead, torch.add, grad, buf, alpha=momentum, out=ahead)
                grad = ahead
            else:
                grad = buf
        prepared.write(param, param.add_, grad, alpha=-lr)
    return prepared


def prepare(
    opt: torch.optim.Optimizer,
    params: Sequence[torch.Tensor],
    grads: list[torch.Tensor],
    lr: float,
    buffers: Buffers,
) -> Prepared:
    """The step `opt.step()` would take at `lr` (times each group's factor) with `grads`,
    checked whole; nothing changes."""
    with torch.no_grad():
        if type(opt) is torch.optim.AdamW:
            return _prepare_adamw(opt, params, grads, lr, buffers)
        return _prepare_sgd(opt, params, grads, lr, buffers)


__all__ = ["Buffers", "Prepared", "prepare", "supported"]
