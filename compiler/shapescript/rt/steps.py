"""Optimizer steps checked whole before they start, then run to the end: `update`'s usual path.

On the CPU, `torch.optim.AdamW` and `torch.optim.SGD` step one param at a time, in place
(`_single_tensor_adam`, `_single_tensor_sgd`). `prepare` works out everything such a step
could fail on before anything changes: the shapes, dtypes and devices of the params, the
gradients and the state, and every tensor the step makes (a first step's state, and the
temporaries torch would allocate, such as AdamW's denominator, kept here from step to
step). What is left, `Prepared.apply`, is torch's ops with torch's numbers, each writing
a tensor that fits: the results are torch's bit for bit, and nothing is copied.

AdamW runs each of its ops for all the f32 and f64 params at once, as one of torch's
multi-tensor (`torch._foreach_*`) ops: on the CPU those call, tensor by tensor, the
kernel the single-tensor op calls, so the numbers are the same while a model of many
small tensors (a GPT-2 held as blocks) pays less per tensor. An f16 or bf16 param steps
alone: a multi-tensor op rounds its Python scalar to the tensor's dtype, where `mul_`
keeps it in f32. Each param's ops still run in their order.

So a step that fails fails in `prepare`, and leaves the params and the state as they were.
An exception that lands while `apply` runs (a KeyboardInterrupt) would leave the step half
done, so `apply` finishes it and raises the exception after: Python delivers it between
two ops, never inside one, and each op adds one to the version counter of each tensor it
writes, so the versions say how many ops have run, and the rest run. The step is then
counted.

An AdamW made with `fused=True` (`adamw(m, lr=..., fused=true)`) steps as torch's fused
AdamW does instead: each group's step counts go up by one, then one `torch._fused_adamw_`
call steps its params of each dtype, after the same checks. That kernel leaves the
version counters as they were, so the op that calls it moves the params' on, with SIGINT
held back between the two, and the versions still say whether it ran.

`update` takes this path when `supported` says so (no step hooks, CPU params, torch's
single-tensor algorithm or its fused AdamW); otherwise it calls the optimizer's `step()`.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Sequence
from itertools import chain
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
    foreach, capturable or differentiable) on plain dense tensors, or, for an AdamW whose
    every group is fused, torch's fused CPU kernel. A sparse gradient
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
    if len({bool(group.get("fused")) for group in opt.param_groups}) > 1:
        return False
    if len(params) != len(grads):
        raise ValueError("supported: as many grads as params")
    # Each kind of check over every tensor at once: this runs on every step.
    strided, parameter, tensor = torch.strided, torch.nn.Parameter, torch.Tensor
    return (
        all(type(param) is parameter for param in params)
        and all(type(grad) is tensor for grad in grads)
        and all(each.layout is strided for each in chain(params, grads))
        and all(param.is_cpu for param in params)
        and not any(param.is_complex() or param.is_inference() for param in params)
    )


def _plain_group(kind: type, group: dict[str, Any]) -> bool:
    """Whether a param group's settings leave torch's single-tensor algorithm as it is."""
    if (
        group.get("foreach")
        or (group.get("fused") and kind is not torch.optim.AdamW)
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
    by_param = {}
    for group in opt.param_groups:
        chosen = (group, rate * scale_of(group))
        for param in group["params"]:
            by_param[id(param)] = chosen
    return [by_param[id(param)] for param in params]


class Prepared:
    """A step checked whole: its ops, in order, each changing each tensor it lists once; then
    new state.

    Since each op adds one to the version counter of each tensor it writes, the versions say
    how many of the ops have run, whatever interrupted them.
    """

    __slots__ = ("_disjoint", "_ops", "_opt", "_puts", "_starts")

    def __init__(self, opt: torch.optim.Optimizer, *, disjoint: bool = False) -> None:
        self._opt = opt
        #: Whether no tensor is written by two ops: then each op's first tensor alone says
        #: whether it ran (an op is one call into torch, which an exception can't split).
        self._disjoint = disjoint
        self._ops: list[tuple[tuple[torch.Tensor, ...], Callable[..., object], tuple, dict]] = []
        self._puts: list[tuple[torch.Tensor, dict[str, torch.Tensor]]] = []
        self._starts: dict[int, tuple[torch.Tensor, int]] = {}

    def write(
        self,
        tensors: Sequence[torch.Tensor],
        function: Callable[..., object],
        *args: Any,
        **kw: Any,
    ) -> None:
        """Run `function(*args, **kw)`, which changes each of `tensors` (distinct, at least
        one) in place once, and nothing else."""
        self._ops.append((tuple(tensors), function, args, kw))

    def put(self, param: torch.Tensor, entry: dict[str, torch.Tensor]) -> None:
        """Add `entry`'s tensors (made by this step) to the param's state when it is applied."""
        self._puts.append((param, entry))

    def apply(self, then: Callable[[], object]) -> None:
        """Run the step, then `then`; if an exception interrupts it, finish it and raise."""
        if self._disjoint:
            self._starts = {
                id(written[0]): (written[0], written[0]._version) for written, *_ in self._ops
            }
        else:
            self._starts = {
                id(tensor): (tensor, tensor._version)
                for written, *_ in self._ops
                for tensor in written
            }
        try:
            self._finish(0, then)
        except BaseException:
            self._finish(self._done(), then)
            raise

    def _done(self) -> int:
        """How many of the ops have run: the first ones whose writes add up to what the
        tensors' versions have gained."""
        if self._disjoint:
            done = 0
            for written, *_ in self._ops:
                tensor, start = self._starts[id(written[0])]
                if tensor._version == start:
                    break
                done += 1
            return done
        gained = sum(tensor._version - start for tensor, start in self._starts.values())
        done = 0
        for written, *_ in self._ops:
            if gained < len(written):
                break
            gained -= len(written)
            done += 1
        return done

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


def _adamw_state(
    param: torch.Tensor, amsgrad: bool, fused: bool = False
) -> dict[str, torch.Tensor]:
    """A first step's state, as `Adam._init_group` makes it (a fused step counts in f32)."""
    entry = {
        "step": torch.tensor(0.0, dtype=torch.float32 if fused else _scalar_dtype(), device="cpu"),
        "exp_avg": torch.zeros_like(param, memory_format=torch.preserve_format),
        "exp_avg_sq": torch.zeros_like(param, memory_format=torch.preserve_format),
    }
    if amsgrad:
        entry["max_exp_avg_sq"] = torch.zeros_like(param, memory_format=torch.preserve_format)
    return entry


#: The dtypes whose multi-tensor ops compute what the single-tensor ones do. A `_foreach_`
#: op rounds a Python scalar to the tensor's dtype, while `mul_` and its kind keep it in
#: f32 for an f16 or bf16 tensor: the same only where the dtype is the one computed in.
_MULTI_TENSOR_DTYPES = (torch.float32, torch.float64)


def _op(
    prepared: Prepared,
    written: Sequence[torch.Tensor],
    multi: Callable[..., object],
    single: Callable[..., object],
    *columns: Sequence[Any],
) -> None:
    """One op of the step for every entry: `multi(written, *columns)` for the f32 and f64
    entries at once, `single(tensor, *row)` for each other one."""
    if not written:
        return
    fast = [i for i, tensor in enumerate(written) if tensor.dtype in _MULTI_TENSOR_DTYPES]
    if len(fast) == len(written):
        prepared.write(written, multi, list(written), *(list(column) for column in columns))
        return
    chosen = [written[i] for i in fast]
    if chosen:
        prepared.write(chosen, multi, chosen, *([column[i] for i in fast] for column in columns))
    for i, tensor in enumerate(written):
        if tensor.dtype not in _MULTI_TENSOR_DTYPES:
            prepared.write((tensor,), single, tensor, *(column[i] for column in columns))


def _each(
    prepared: Prepared,
    pairs: list[tuple[torch.Tensor, torch.Tensor]],
    function: Callable[[torch.Tensor, torch.Tensor], object],
) -> None:
    """An op of an option few steps use (maximize, amsgrad), one tensor at a time."""
    for out, other in pairs:
        prepared.write((out,), function, out, other)


def _prepare_adamw(
    opt: torch.optim.Optimizer,
    params: Sequence[torch.Tensor],
    grads: list[torch.Tensor],
    lr: float,
    buffers: Buffers,
) -> Prepared:
    """`_single_tensor_adam` with decoupled weight decay, not capturable, for each param
    with its group's settings: each of its ops for every param at once."""
    state = opt.state
    prepared = Prepared(opt)
    groups = _groups_of(opt, params, lr)
    negated: list[tuple[torch.Tensor, torch.Tensor]] = []
    decayed: list[tuple[torch.Tensor, float]] = []
    bigger: list[tuple[torch.Tensor, torch.Tensor]] = []
    counts, averages, squares, inputs, seconds, denoms = [], [], [], [], [], []
    firsts, betas2, sizes2, corrections, epsilons, step_sizes = [], [], [], [], [], []
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
            negative = buffers.like(index, "grad", grad)
            negated.append((negative, grad))
            grad = negative
        if weight_decay != 0:
            decayed.append((param, 1 - lr * weight_decay))
        if amsgrad:
            bigger.append((second, exp_avg_sq))
        counts.append(step_t)
        averages.append(exp_avg)
        squares.append(exp_avg_sq)
        inputs.append(grad)
        seconds.append(second)
        denoms.append(buffers.like(index, "denom", second))
        firsts.append(1 - beta1)
        betas2.append(beta2)
        sizes2.append(1 - beta2)
        corrections.append((1 - beta2**step) ** 0.5)
        epsilons.append(eps)
        step_sizes.append(-(lr / (1 - beta1**step)))
    mul, add, div = torch.Tensor.mul_, torch.Tensor.add_, torch.Tensor.div_
    _each(prepared, negated, lambda out, value: torch.neg(value, out=out))
    _op(prepared, counts, torch._foreach_add_, add, [1] * len(counts))
    _op(prepared, [p for p, _ in decayed], torch._foreach_mul_, mul, [f for _, f in decayed])
    _op(prepared, averages, torch._foreach_lerp_, torch.Tensor.lerp_, inputs, firsts)
    _op(prepared, squares, torch._foreach_mul_, mul, betas2)
    _op(
        prepared,
        squares,
        torch._foreach_addcmul_,
        lambda square, value, same, size: square.addcmul_(value, same, value=size),
        inputs,
        inputs,
        sizes2,
    )
    _each(prepared, bigger, lambda out, other: torch.maximum(out, other, out=out))
    _op(prepared, denoms, torch._foreach_copy_, torch.Tensor.copy_, seconds)
    _op(prepared, denoms, torch._foreach_sqrt_, torch.Tensor.sqrt_)
    _op(prepared, denoms, torch._foreach_div_, div, corrections)
    _op(prepared, denoms, torch._foreach_add_, add, epsilons)
    _op(
        prepared,
        params,
        torch._foreach_addcdiv_,
        lambda param, average, denom, size: param.addcdiv_(average, denom, value=size),
        averages,
        denoms,
        step_sizes,
    )
    return prepared


def _check_count(step_t: Any) -> None:
    """ShapeError unless a fused AdamW step count is one f32 on the CPU, as its kernel reads."""
    if (
        type(step_t) is not torch.Tensor
        or step_t.numel() != 1
        or step_t.dtype is not torch.float32
        or not step_t.is_cpu
        or step_t.is_inference()
    ):
        raise ShapeError("update: a fused AdamW step count that isn't one f32 on the CPU")


def _fused_kernel(params: list[torch.Tensor], *args: Any, **options: Any) -> None:
    """`torch._fused_adamw_`, then the params' version counters moved on, as an op that
    writes them does: the kernel leaves them as they were. SIGINT waits until both are done,
    so that the versions always say whether the kernel ran."""
    blocked = _block_interrupts()
    try:
        torch._fused_adamw_(params, *args, **options)
        torch.autograd.graph.increment_version(params)
    finally:
        if blocked:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _INTERRUPTS)


#: The signals held back while a fused kernel and its version counts are written.
_INTERRUPTS = {signal.SIGINT}


def _block_interrupts() -> bool:
    """Hold SIGINT back (where the platform can); whether it was."""
    if not hasattr(signal, "pthread_sigmask"):
        return False
    return signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)


def _prepare_fused_adamw(
    opt: torch.optim.Optimizer,
    params: Sequence[torch.Tensor],
    grads: list[torch.Tensor],
    lr: float,
) -> Prepared:
    """`_fused_adam` with decoupled weight decay, for AdamW built with `fused=True`: each
    group's step counts go up by one, then its params of each dtype step in one kernel call,
    with the group's settings."""
    state = opt.state
    # Each op writes one batch's step counts or params, which no other op writes.
    prepared = Prepared(opt, disjoint=True)
    groups = _groups_of(opt, params, lr)
    batches: dict[tuple[int, torch.dtype], list[int]] = {}
    entries = _checked_fused_entries(state, params, grads, groups)
    if entries is not None:
        for index, param in enumerate(params):
            batches.setdefault((id(groups[index][0]), param.dtype), []).append(index)
        return _write_fused_adamw(prepared, params, grads, groups, entries, batches)
    entries = []
    cpu = torch.Tensor
    for index, (param, grad) in enumerate(zip(params, grads, strict=True)):
        group = groups[index][0]
        amsgrad = group["amsgrad"]
        entry = state.get(param)
        if not entry:
            entry = _adamw_state(param, amsgrad, fused=True)
            prepared.put(param, entry)
        count, average, square = entry["step"], entry["exp_avg"], entry["exp_avg_sq"]
        shape, dtype = param.shape, param.dtype
        # The checks of `_check` and `_check_count` inline: this loop runs for every param
        # of every step.
        if not (
            type(count) is cpu
            and count.dtype is torch.float32
            and count.numel() == 1
            and count.is_cpu
            and not count.is_inference()
        ):
            _check_count(count)
        if not (type(grad) is cpu and grad.shape == shape and grad.dtype is dtype and grad.is_cpu):
            _check(param, grad, written=False)
        for tensor in (average, square, entry["max_exp_avg_sq"]) if amsgrad else (average, square):
            if not (
                type(tensor) is cpu
                and tensor.shape == shape
                and tensor.dtype is dtype
                and tensor.is_cpu
                and not tensor.is_inference()
            ):
                _check(param, tensor)
        entries.append(entry)
        batches.setdefault((id(group), dtype), []).append(index)
    return _write_fused_adamw(prepared, params, grads, groups, entries, batches)


def _checked_fused_entries(
    state: Any,
    params: Sequence[torch.Tensor],
    grads: list[torch.Tensor],
    groups: list[tuple[dict[str, Any], float]],
) -> list[dict[str, Any]] | None:
    """Each param's fused AdamW state where every param has one and every check of the
    step by step loop passes (each kind of check made over all the tensors at once, which
    is about half the time); None for that loop to make (and raise on) the checks."""
    entries = [state.get(param) for param in params]
    if not all(entries) or any(group["amsgrad"] for group, _ in groups):
        return None
    counts = [entry["step"] for entry in entries]
    averages = [entry["exp_avg"] for entry in entries]
    squares = [entry["exp_avg_sq"] for entry in entries]
    shapes = [param.shape for param in params]
    dtypes = [param.dtype for param in params]
    cpu, f32 = torch.Tensor, torch.float32
    ok = (
        all(type(tensor) is cpu for tensor in chain(counts, averages, squares, grads))
        and all(count.dtype is f32 and count.numel() == 1 for count in counts)
        and [grad.shape for grad in grads] == shapes
        and [average.shape for average in averages] == shapes
        and [square.shape for square in squares] == shapes
        and [grad.dtype for grad in grads] == dtypes
        and [average.dtype for average in averages] == dtypes
        and [square.dtype for square in squares] == dtypes
        and all(tensor.is_cpu for tensor in chain(counts, grads, averages, squares))
        and not any(tensor.is_inference() for tensor in chain(counts, averages, squares))
    )
    return entries if ok else None


def _write_fused_adamw(
    prepared: Prepared,
    params: Sequence[torch.Tensor],
    grads: list[torch.Tensor],
    groups: list[tuple[dict[str, Any], float]],
    entries: list[dict[str, Any]],
    batches: dict[tuple[int, torch.dtype], list[int]],
) -> Prepared:
    """The step's ops: for each group and dtype, the step counts up by one, then the kernel."""
    for indices in batches.values():
        group, rate = groups[indices[0]]
        chosen = [entries[i] for i in indices]
        counts = [entry["step"] for entry in chosen]
        prepared.write(counts, torch._foreach_add_, counts, 1)
        beta1, beta2 = group["betas"]
        written = [params[i] for i in indices]
        prepared.write(
            written,
            _fused_kernel,
            written,
            [grads[i] for i in indices],
            [entry["exp_avg"] for entry in chosen],
            [entry["exp_avg_sq"] for entry in chosen],
            [entry["max_exp_avg_sq"] for entry in chosen] if group["amsgrad"] else [],
            counts,
            amsgrad=group["amsgrad"],
            lr=rate,
            beta1=beta1,
            beta2=beta2,
            weight_decay=group["weight_decay"],
            eps=group["eps"],
            maximize=group["maximize"],
            grad_scale=None,
            found_inf=None,
        )
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
            prepared.write((negated,), torch.neg, grad, out=negated)
            grad = negated
        if weight_decay != 0:
            decayed = buffers.like(index, "decayed", grad)
            prepared.write((decayed,), torch.add, grad, param, alpha=weight_decay, out=decayed)
            grad = decayed
        if momentum != 0:
            entry = state.get(param)
            buf = entry.get("momentum_buffer") if entry else None
            if buf is None:
                buf = torch.empty_like(grad, memory_format=torch.preserve_format)
                prepared.put(param, {"momentum_buffer": buf})
                prepared.write((buf,), buf.copy_, grad)
            else:
                _check(param, buf)
                prepared.write((buf,), buf.mul_, momentum)
                prepared.write((buf,), buf.add_, grad, alpha=1 - dampening)
            if nesterov:
                ahead = buffers.like(index, "ahead", grad)
                prepared.write((ahead,), torch.add, grad, buf, alpha=momentum, out=ahead)
                grad = ahead
            else:
                grad = buf
        prepared.write((param,), param.add_, grad, alpha=-lr)
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
        if type(opt) is torch.optim.AdamW and opt.param_groups[0].get("fused"):
            return _prepare_fused_adamw(opt, params, grads, lr)
        if type(opt) is torch.optim.AdamW:
            return _prepare_adamw(opt, params, grads, lr, buffers)
        return _prepare_sgd(opt, params, grads, lr, buffers)


__all__ = ["Buffers", "Prepared", "prepare", "supported"]
