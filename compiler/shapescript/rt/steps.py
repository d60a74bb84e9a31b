"""Optimizer steps worked out beside the live tensors, then applied: `update`'s usual path.

On the CPU, `torch.optim.AdamW` and `torch.optim.SGD` step one param at a time, in place
(`_single_tensor_adam`, `_single_tensor_sgd`). `prepare` does the same ops in the same order,
with the same numbers, but every op that would change the optimizer state writes into a
spare buffer, and the ops that change the params wait: nothing live changes while it runs,
so an exception there leaves the params and the state as they were, without a copy of
either. `Prepared.apply` then changes each param in place with the ops torch uses and puts
the new state tensors in. The results are torch's bit for bit.

An exception that lands while `apply` runs (a KeyboardInterrupt) can't undo params already
changed in place, so `apply` finishes the step instead and raises it after: each param's
version counter says which of its in-place ops have run, and putting state in is
idempotent. The step is then counted; it is never half done.

A state tensor the step replaces becomes the spare of the next step only if nothing else
holds it, its storage or a view of it, so a state tensor kept elsewhere is never written.
`update` takes this path when `supported` says so (no step hooks, CPU params, torch's
single-tensor algorithm); otherwise it calls the optimizer's `step()`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch.optim import optimizer as torch_optimizer

from shapescript.rt.errors import ShapeError

#: `Optimizer.step()` runs these before and after every step, whichever optimizer it is.
_GLOBAL_HOOKS = (
    getattr(torch_optimizer, "_global_optimizer_pre_hooks", None),
    getattr(torch_optimizer, "_global_optimizer_post_hooks", None),
)
_storage_use_count: Callable[[int], int] | None = getattr(torch._C, "_storage_Use_Count", None)
#: AdamW's state tensors that `prepare` replaces, in the order torch makes them.
ADAMW_BUFFERS = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")


def _scalar_dtype() -> torch.dtype:
    """The dtype torch's optimizers give a new `step` count: f64 under an f64 default dtype."""
    return torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32


def _references(tensor: torch.Tensor) -> int:
    return sys.getrefcount(tensor)


def _storage_references(tensor: torch.Tensor) -> int:
    if _storage_use_count is None:
        return -1
    return _storage_use_count(tensor.untyped_storage()._cdata)


def _alone_counts() -> tuple[int, int]:
    """The counts `Spares.keep` sees for a tensor nothing else holds, as this Python gives them."""
    alone = torch.empty(1)
    return _references(alone), _storage_references(alone)


_ALONE = _alone_counts()


class Spares:
    """Buffers a step may write into, by slot: state tensors a step retired, unshared.

    Each spare is kept with the state tensor that replaced its old contents: it is handed
    out only to compute that tensor's successor, so its shape, dtype and device fit.
    """

    __slots__ = ("_free", "_scratch")

    def __init__(self) -> None:
        self._free: dict[tuple[int, str], tuple[torch.Tensor, torch.Tensor]] = {}
        self._scratch: dict[int, torch.Tensor] = {}

    def take(self, slot: tuple[int, str], live: torch.Tensor) -> torch.Tensor:
        """A buffer for the successor of `live`: its spare, or a new one."""
        kept = self._free.pop(slot, None)
        if kept is not None and kept[1] is live:
            return kept[0]
        return torch.empty_like(live)

    def scratch(self, index: int, like: torch.Tensor) -> torch.Tensor:
        """A buffer of `like`'s shape, dtype and device that only the step itself sees."""
        buffer = self._scratch.get(index)
        if (
            buffer is None
            or buffer.shape != like.shape
            or buffer.dtype != like.dtype
            or buffer.device != like.device
        ):
            buffer = self._scratch[index] = torch.empty_like(like)
        return buffer

    def keep(self, retired: list[tuple[tuple[int, str], torch.Tensor, torch.Tensor]]) -> None:
        """Keep each retired tensor as the spare of its successor, if nothing else holds it."""
        while retired:
            slot, old, successor = retired.pop()
            if (
                _references(old) == _ALONE[0]
                and old._use_count() == 1
                and _storage_references(old) == _ALONE[1]
            ):
                self._free[slot] = (old, successor)

    def clear(self) -> None:
        self._free.clear()
        self._scratch.clear()

    def __len__(self) -> int:
        return len(self._free)


def supported(opt: torch.optim.Optimizer, params: Sequence[torch.Tensor], grads: list) -> bool:
    """Whether `prepare` computes exactly what `opt.step()` would, and nothing else can run.

    So: an exact AdamW or SGD with one param group, no step hooks and no `step` of its
    own (an LR scheduler's wrapper), torch's single-tensor algorithm (CPU params, not
    foreach, fused, capturable or differentiable), plain tensors, and no gradient sharing
    memory with a param (torch would read it half-updated).
    """
    kind = type(opt)
    if kind is not torch.optim.AdamW and kind is not torch.optim.SGD:
        return False
    if opt._optimizer_step_pre_hooks or opt._optimizer_step_post_hooks:
        return False
    if any(hooks is None or hooks for hooks in _GLOBAL_HOOKS) or "step" in vars(opt):
        return False
    if len(opt.param_groups) != 1 or getattr(opt, "grad_scale", None) is not None:
        return False
    group = opt.param_groups[0]
    if (
        group.get("foreach")
        or group.get("fused")
        or group.get("differentiable")
        or group.get("capturable")
        or isinstance(group["weight_decay"], torch.Tensor)
    ):
        return False
    if kind is torch.optim.AdamW and (
        not group.get("decoupled_weight_decay", True)
        or any(isinstance(beta, torch.Tensor) for beta in group["betas"])
    ):
        return False
    storages = set()
    for param, grad in zip(params, grads, strict=True):
        if (
            type(param) is not torch.nn.Parameter
            or type(grad) is not torch.Tensor
            or not param.is_cpu
            or param.is_complex()
        ):
            return False
        storages.add(param.untyped_storage().data_ptr())
    return not any(grad.untyped_storage().data_ptr() in storages for grad in grads)


class Prepared:
    """A step worked out: for each param its in-place ops to run, then the state to put in."""

    __slots__ = ("_changes", "_opt", "_retired", "_state", "_versions")

    def __init__(self, opt: torch.optim.Optimizer) -> None:
        self._opt = opt
        self._changes: list[tuple[torch.Tensor, list[Callable[[], object]]]] = []
        self._state: list[tuple[torch.Tensor, dict[str, Any]]] = []
        self._retired: list[tuple[tuple[int, str], torch.Tensor, torch.Tensor]] = []
        self._versions: list[int] = []

    def change(self, param: torch.Tensor, ops: list[Callable[[], object]]) -> None:
        self._changes.append((param, ops))

    def put(self, param: torch.Tensor, entries: dict[str, Any]) -> None:
        self._state.append((param, entries))

    def retire(self, slot: tuple[int, str], old: torch.Tensor, new: torch.Tensor) -> None:
        self._retired.append((slot, old, new))

    def apply(self, then: Callable[[], object]) -> None:
        """Change the params, put the new state in and call `then`; finish it if interrupted."""
        self._versions = [param._version for param, _ in self._changes]
        try:
            self._finish(then)
        except BaseException:
            self._finish(then)
            raise

    def _finish(self, then: Callable[[], object]) -> None:
        """Run what is left of the step: it can be called again after an interruption."""
        with torch.no_grad():
            for (param, ops), version in zip(self._changes, self._versions, strict=True):
                for op in ops[param._version - version :]:
                    op()
        state = self._opt.state
        for param, entries in self._state:
            if param in state:
                state[param].update(entries)
            else:
                state[param] = entries
        then()

    def recycle(self, spares: Spares) -> None:
        """Keep the state tensors this step replaced as spares, where nothing else holds them."""
        self._state.clear()
        self._changes.clear()
        spares.keep(self._retired)


def _check_fits(param: torch.Tensor, *tensors: torch.Tensor) -> None:
    """ShapeError unless the tensors a param's in-place ops take fit it: they can't fail then."""
    for tensor in tensors:
        if (
            tensor.shape != param.shape
            or tensor.dtype != param.dtype
            or tensor.device != param.device
        ):
            raise ShapeError(
                f"update: optimizer state {list(tensor.shape)} {tensor.dtype} on {tensor.device} "
                f"for a param {list(param.shape)} {param.dtype} on {param.device}"
            )


def _prepare_adamw(
    opt: torch.optim.Optimizer,
    params: Sequence[torch.Tensor],
    grads: list[torch.Tensor],
    lr: float,
    spares: Spares,
) -> Prepared:
    """`_single_tensor_adam` with decoupled weight decay, not capturable, staged."""
    group = opt.param_groups[0]
    beta1, beta2 = group["betas"]
    weight_decay, eps = group["weight_decay"], group["eps"]
    amsgrad, maximize = group["amsgrad"], group["maximize"]
    decay = 1 - lr * weight_decay
    state = opt.state
    prepared = Prepared(opt)
    for index, (param, grad) in enumerate(zip(params, grads, strict=True)):
        entry = state.get(param)
        if not entry:
            entry = {
                "step": torch.tensor(0.0, dtype=_scalar_dtype(), device="cpu"),
                "exp_avg": torch.zeros_like(param, memory_format=torch.preserve_format),
                "exp_avg_sq": torch.zeros_like(param, memory_format=torch.preserve_format),
            }
            if amsgrad:
                entry["max_exp_avg_sq"] = torch.zeros_like(
                    param, memory_format=torch.preserve_format
                )
        if maximize:
            grad = -grad
        exp_avg, exp_avg_sq = entry["exp_avg"], entry["exp_avg_sq"]
        step_t = entry["step"] + 1
        new_avg = torch.lerp(exp_avg, grad, 1 - beta1, out=spares.take((index, "exp_avg"), exp_avg))
        new_sq = torch.mul(exp_avg_sq, beta2, out=spares.take((index, "exp_avg_sq"), exp_avg_sq))
        new_sq.addcmul_(grad, grad, value=1 - beta2)
        step = step_t.item()
        step_size = lr / (1 - beta1**step)
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        new = {"step": step_t, "exp_avg": new_avg, "exp_avg_sq": new_sq}
        second = new_sq
        if amsgrad:
            old_max = entry["max_exp_avg_sq"]
            second = new["max_exp_avg_sq"] = torch.maximum(
                old_max, new_sq, out=spares.take((index, "max_exp_avg_sq"), old_max)
            )
        denom = torch.sqrt(second, out=spares.scratch(index, second))
        denom.div_(bias_correction2_sqrt).add_(eps)
        _check_fits(param, new_avg, denom)
        ops: list[Callable[[], object]] = []
        if weight_decay != 0:
            ops.append(lambda param=param: param.mul_(decay))
        ops.append(
            lambda param=param, avg=new_avg, denom=denom, size=-step_size: param.addcdiv_(
                avg, denom, value=size
            )
        )
        prepared.change(param, ops)
        prepared.put(param, new)
        for key in ADAMW_BUFFERS:
            if key in new and key in entry:
                prepared.retire((index, key), entry[key], new[key])
    return prepared


def _prepare_sgd(
    opt: torch.optim.Optimizer,
    params: Sequence[torch.Tensor],
    grads: list[torch.Tensor],
    lr: float,
    spares: Spares,
) -> Prepared:
    """`_single_tensor_sgd`, staged."""
    group = opt.param_groups[0]
    weight_decay, momentum = group["weight_decay"], group["momentum"]
    dampening, nesterov, maximize = group["dampening"], group["nesterov"], group["maximize"]
    state = opt.state
    prepared = Prepared(opt)
    for index, (param, grad) in enumerate(zip(params, grads, strict=True)):
        if maximize:
            grad = -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if momentum != 0:
            entry = state.get(param)
            old = entry.get("momentum_buffer") if entry else None
            if old is None:
                buf = grad.detach().clone()
            else:
                buf = torch.mul(old, momentum, out=spares.take((index, "momentum_buffer"), old))
                buf.add_(grad, alpha=1 - dampening)
                prepared.retire((index, "momentum_buffer"), old, buf)
            prepared.put(param, {"momentum_buffer": buf})
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        _check_fits(param, grad)
        prepared.change(param, [lambda param=param, grad=grad: param.add_(grad, alpha=-lr)])
    return prepared


def prepare(
    opt: torch.optim.Optimizer,
    params: Sequence[torch.Tensor],
    grads: list[torch.Tensor],
    lr: float,
    spares: Spares,
) -> Prepared:
    """The step `opt.step()` would take at `lr` with `grads`, worked out; nothing live changes."""
    with torch.no_grad():
        if type(opt) is torch.optim.AdamW:
            return _prepare_adamw(opt, params, grads, lr, spares)
        return _prepare_sgd(opt, params, grads, lr, spares)


__all__ = ["Prepared", "Spares", "prepare", "supported"]
