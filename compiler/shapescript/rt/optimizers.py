"""Optimizer state (`sgd`, `adamw`), learning-rate schedules, and `update`, one step of PyTorch's.

An `Optimizer` wraps a `torch.optim` optimizer over a model's params in field order, with
the update count and the learning rate (a number or a `Schedule`). Its param groups come
from the `no_decay` and `lr_scale` options (`shapescript.rt.optimizer_groups`); each
group's learning rate is the optimizer's times the group's `lr_scale`. `update` never leaves a
step half done: a step that fails leaves the params and the state as they were, and a step
an exception interrupts (a KeyboardInterrupt) is finished before it is raised
(`shapescript.rt.steps`), or, where it runs `step()` itself, undone.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import torch
from torch.optim import optimizer as torch_optimizer

from shapescript.rt import optimizer_groups, steps
from shapescript.rt.errors import CheckFailure, ShapeError
from shapescript.rt.gradients import Grad
from shapescript.rt.models import (
    Model,
    _shape_text,
    field_problem,
    params_of,
    same_model_type,
)

#: What `Optimizer.state_dict()` holds.
STATE_KEYS = frozenset({"optimizer", "model", "params", "lr", "steps", "torch"})
#: How each optimizer's state type is written, `AdamW[Mlp]`.
TYPE_NAMES = {"sgd": "SGD", "adamw": "AdamW"}


def _capturable_devices() -> tuple[str, ...]:
    """The device types where torch.optim.AdamW accepts capturable=True, as torch lists them."""
    listed = getattr(torch_optimizer, "_get_capturable_supported_devices", None)
    return tuple(listed()) if listed is not None else ("cuda", "xpu", "hpu", "xla")


def _fused_devices() -> tuple[str, ...]:
    """The device types with a fused AdamW kernel, as torch lists them."""
    listed = getattr(torch_optimizer, "_get_fused_kernels_supported_devices", None)
    return tuple(listed()) if listed is not None else ("cuda",)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(value: Any, what: str) -> float:
    if not _is_number(value):
        raise TypeError(f"{what} is a number, not {type(value).__name__}")
    return float(value)


def _steps(value: Any, least: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} is an int, not {type(value).__name__}")
    if value < least:
        raise ValueError(f"{what} must be at least {least}, not {value}")
    return value


class Schedule:
    """A learning rate for each step `t`, counted from 0."""

    __slots__ = ()

    def __call__(self, t: int) -> float:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Cosine(Schedule):
    """From `peak` down a half cosine to `end` at step `steps`, then `end`."""

    peak: float
    steps: int
    end: float = 0.0

    def __call__(self, t: int) -> float:
        progress = min(t, self.steps) / self.steps
        return self.end + (self.peak - self.end) * (1 + math.cos(math.pi * progress)) / 2

    def to_dict(self) -> dict[str, Any]:
        return {"schedule": "cosine", "peak": self.peak, "steps": self.steps, "end": self.end}


@dataclass(frozen=True, slots=True)
class Warmup(Schedule):
    """A straight line from 0 to `then(0)` over `steps` steps, then `then` started afresh."""

    steps: int
    then: float | Schedule

    def __call__(self, t: int) -> float:
        if t < self.steps:
            return learning_rate(self.then, 0) * t / self.steps
        return learning_rate(self.then, t - self.steps)

    def to_dict(self) -> dict[str, Any]:
        return {"schedule": "warmup", "steps": self.steps, "then": schedule_state(self.then)}


def cosine(peak: float, steps: int, end: float = 0.0) -> Cosine:
    """The schedule `cosine(peak, steps, end=0.0)`."""
    peak = _number(peak, "cosine: peak")
    end = _number(end, "cosine: end")
    return Cosine(peak, _steps(steps, 1, "cosine: steps"), end)


def warmup(steps: int, then: float | Schedule) -> Warmup:
    """The schedule `warmup(steps, then)`; `then` is a number or a schedule."""
    steps = _steps(steps, 0, "warmup: steps")
    return Warmup(steps, _learning_rate_value(then, "warmup: then"))


def _learning_rate_value(value: Any, what: str) -> float | Schedule:
    if isinstance(value, Schedule):
        return value
    if _is_number(value):
        return float(value)
    raise TypeError(f"{what} is a number or a schedule, not {type(value).__name__}")


def learning_rate(lr: float | Schedule, t: int) -> float:
    """The learning rate at step `t`: the schedule's, or the number."""
    return lr(t) if isinstance(lr, Schedule) else lr


def schedule_state(lr: float | Schedule) -> float | dict[str, Any]:
    """A learning rate as a state dict holds it: a number, or the schedule as a dict."""
    return lr.to_dict() if isinstance(lr, Schedule) else lr


def schedule_from_state(state: Any) -> float | Schedule:
    """The learning rate `schedule_state` gave; ValueError for anything else."""
    if _is_number(state):
        return float(state)
    kind = state.get("schedule") if isinstance(state, dict) else None
    if kind == "cosine":
        return cosine(state["peak"], state["steps"], state.get("end", 0.0))
    if kind == "warmup":
        return warmup(state["steps"], schedule_from_state(state["then"]))
    raise ValueError(f"{state!r} isn't a learning rate: a number, or a cosine or warmup schedule")


class Optimizer:
    """Optimizer state for one model type: the torch optimizer, the update count, the lr."""

    __slots__ = (
        "_copied",
        "_copies",
        "_buffers",
        "_params",
        "capturable",
        "lr",
        "model_type",
        "name",
        "steps",
        "torch",
        "__weakref__",
    )

    def __init__(
        self,
        name: str,
        model: Model,
        lr: float | Schedule,
        make: type[torch.optim.Optimizer],
        options: dict[str, Any],
        groups: dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(model, Model):
            raise TypeError(f"{name} takes a model first, not {type(model).__name__}")
        self.name = name
        self.model_type = type(model)
        self.lr = _learning_rate_value(lr, f"{name}: lr")
        self.steps = 0
        self._params = params_of(model)
        chosen = optimizer_groups.settings(
            name, self.model_type, self.model_type._ss_params, self._params, groups or {}
        )
        first = learning_rate(self.lr, 0)
        self.capturable = options.get("capturable", False)
        if self.capturable:
            first = torch.tensor(first, dtype=torch.float32, device=self._params[0].device)
        param_groups = optimizer_groups.torch_groups(
            self._params, chosen, options["weight_decay"], first
        )
        self.torch = make(param_groups, lr=first, **options)
        self._copies: list[torch.Tensor] = []
        self._copied: list[torch.Tensor] = []
        self._buffers = steps.Buffers()

    @property
    def type_text(self) -> str:
        return f"{TYPE_NAMES[self.name]}[{self.model_type.__name__}]"

    def __repr__(self) -> str:
        return f"{self.type_text}(lr={self.lr!r}, steps={self.steps})"

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue: optimizer, model type, params, lr, count, torch's
        (its params numbered in field order, each group with its settings)."""
        torch_params = [param for group in self.torch.param_groups for param in group["params"]]
        inner = optimizer_groups.field_numbered(self.torch.state_dict(), self._params, torch_params)
        groups = [{**group, "lr": float(group["lr"])} for group in inner["param_groups"]]
        return {
            "optimizer": self.name,
            "model": self.model_type.__name__,
            "params": list(self.model_type._ss_params),
            "lr": schedule_state(self.lr),
            "steps": self.steps,
            "torch": {"state": inner["state"], "param_groups": groups},
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Continue from `state_dict()`'s state; ShapeError for another optimizer or model type."""
        if not isinstance(state, dict) or not state.keys() >= STATE_KEYS:
            raise ShapeError(f"{type(state).__name__} isn't optimizer state from state_dict()")
        theirs = f"{TYPE_NAMES.get(state['optimizer'], state['optimizer'])}[{state['model']}]"
        if (
            state["optimizer"] != self.name
            or state["model"] != self.model_type.__name__
            or list(state["params"]) != list(self.model_type._ss_params)
        ):
            raise ShapeError(f"can't load {theirs} state into {self.type_text} state")
        lr = schedule_from_state(state["lr"])
        steps = _steps(state["steps"], 0, "the state's steps")
        groups = self.torch.param_groups
        optimizer_groups.regroup(self.torch, self._params, state["torch"])
        try:
            self.torch.load_state_dict(optimizer_groups.torch_numbered(state["torch"]))
        except BaseException:
            self.torch.param_groups = groups
            raise
        self.lr = lr
        self.steps = steps
        _set_lr(self, learning_rate(lr, steps))


def sgd(
    m: Model,
    *,
    lr: float | Schedule,
    momentum: float = 0.0,
    dampening: float = 0.0,
    weight_decay: float = 0.0,
    nesterov: bool = False,
    maximize: bool = False,
    no_decay: str | list[str] | None = None,
    lr_scale: str | dict[str, float] | None = None,
) -> Optimizer:
    """SGD state for `m`: torch.optim.SGD over its params, in field order.

    `no_decay` selects the params without weight decay and `lr_scale` gives params a
    factor of `lr`, as in `.ss` programs (`no_decay="vectors"`, `lr_scale="wte=0.1"`);
    from Python also as a list of paths and a dict of paths to factors.
    """
    options = {
        "momentum": momentum,
        "dampening": dampening,
        "weight_decay": weight_decay,
        "nesterov": nesterov,
        "maximize": maximize,
    }
    groups = {"no_decay": no_decay, "lr_scale": lr_scale}
    return Optimizer("sgd", m, lr, torch.optim.SGD, options, groups)


def adamw(
    m: Model,
    *,
    lr: float | Schedule,
    beta1: float = 0.9,
    beta2: float = 0.999,
    eps: float = 1e-8,
    weight_decay: float = 0.01,
    amsgrad: bool = False,
    maximize: bool = False,
    fused: bool = False,
    no_decay: str | list[str] | None = None,
    lr_scale: str | dict[str, float] | None = None,
) -> Optimizer:
    """AdamW state for `m`: torch.optim.AdamW, capturable where PyTorch allows it;
    `no_decay` and `lr_scale` make param groups, as for `sgd`.

    `fused` steps with torch's fused kernel (`torch.optim.AdamW(fused=True)`) where the
    params' device has one: several times faster for a model of many small params, and
    torch's fused numbers, which differ from its default AdamW's in the last bits.
    """
    options: dict[str, Any] = {
        "betas": (beta1, beta2),
        "eps": eps,
        "weight_decay": weight_decay,
        "amsgrad": amsgrad,
        "maximize": maximize,
    }
    if isinstance(m, Model):
        params = params_of(m)
        if params and params[0].device.type in _capturable_devices():
            options["capturable"] = True
        if fused and params and params[0].device.type in _fused_devices():
            options["fused"] = True
    groups = {"no_decay": no_decay, "lr_scale": lr_scale}
    return Optimizer("adamw", m, lr, torch.optim.AdamW, options, groups)


def _set_lr(opt: Optimizer, lr: float) -> None:
    """Each group's learning rate: `lr` times the group's factor."""
    for group in opt.torch.param_groups:
        rate = lr * optimizer_groups.scale_of(group)
        current = group["lr"]
        if isinstance(current, torch.Tensor):
            current.fill_(rate)
        elif opt.capturable:
            group["lr"] = torch.tensor(rate, dtype=torch.float32, device=opt._params[0].device)
        else:
            group["lr"] = rate


def _check_update(m: Any, opt: Any, g: Any) -> None:
    """TypeError for arguments of the wrong kind, ShapeError for another model's or shapes."""
    if not isinstance(m, Model):
        raise TypeError(f"update takes a model first, not {type(m).__name__}")
    if not isinstance(opt, Optimizer):
        raise TypeError(f"update takes optimizer state second, not {type(opt).__name__}")
    if not isinstance(g, Grad):
        raise TypeError(f"update takes a gradient third, not {type(g).__name__}")
    cls = type(m)
    if not same_model_type(opt.model_type, cls):
        raise ShapeError(f"update: {opt.type_text} state can't update a {cls.__name__}")
    if not same_model_type(g.model_type, cls):
        raise ShapeError(f"update: a Grad[{g.model_type.__name__}] can't update a {cls.__name__}")
    values = g._values
    for name, is_param, shape, dtype in (*cls._ss_types, *cls._ss_held_types):
        if is_param:
            value = values[name]
            if value.shape != shape or value.dtype is not dtype:
                # A model laid out on a worker (pieces, heads) checks against its own shapes.
                expected = _shape_text(torch.empty(shape, dtype=dtype, device="meta"))
                problem = field_problem(cls._ss_all_by_name[name], value) or (
                    f"its field {name} is {_shape_text(value)} on this device, not {expected}"
                )
                raise ShapeError(
                    f"update: a Grad[{cls.__name__}] whose {problem.removeprefix('its ')}"
                )


def _move_state(opt: Optimizer, params: tuple[torch.nn.Parameter, ...]) -> None:
    """Rebind the state to another model's params, moving its tensors to their devices."""
    for old, new in zip(opt._params, params, strict=True):
        if old.shape != new.shape or old.dtype != new.dtype:
            raise ShapeError(
                f"update: the model's params aren't those {opt.type_text} state was made for"
            )
    state = opt.torch.state
    moved: defaultdict[torch.Tensor, dict[str, Any]] = defaultdict(dict)
    for old, new in zip(opt._params, params, strict=True):
        if old in state:
            moved[new] = {
                key: _follow(value, old.device, new.device) for key, value in state[old].items()
            }
    opt.torch.state = moved
    new_of = {id(old): new for old, new in zip(opt._params, params, strict=True)}
    for group in opt.torch.param_groups:
        group["params"] = [new_of[id(old)] for old in group["params"]]
    opt._params = params


def _follow(value: Any, old: torch.device, new: torch.device) -> Any:
    if isinstance(value, torch.Tensor) and value.device == old and old != new:
        return value.to(new)
    return value


@dataclass(slots=True)
class _Snapshot:
    """The values a step may change: params and state tensors, copied, and the state's entries."""

    params: tuple[torch.nn.Parameter, ...]
    entries: dict[torch.Tensor, dict[str, Any]]
    tensors: list[torch.Tensor]
    copies: list[torch.Tensor]
    lrs: list[Any]


def _snapshot(opt: Optimizer, params: tuple[torch.nn.Parameter, ...]) -> _Snapshot:
    state = opt.torch.state
    entries = {param: dict(state[param]) for param in params if param in state}
    tensors: list[torch.Tensor] = list(params)
    for entry in entries.values():
        tensors.extend(value for value in entry.values() if isinstance(value, torch.Tensor))
    copies = opt._copies
    copied = opt._copied
    if len(copied) != len(tensors) or any(
        old is not new for old, new in zip(copied, tensors, strict=True)
    ):
        copies = [torch.empty_like(tensor, requires_grad=False) for tensor in tensors]
        opt._copies, opt._copied = copies, tensors
    with torch.no_grad():
        torch._foreach_copy_(copies, tensors)
    lrs = [group["lr"] for group in opt.torch.param_groups]
    lrs = [lr.clone() if isinstance(lr, torch.Tensor) else lr for lr in lrs]
    return _Snapshot(params, entries, tensors, copies, lrs)


def _restore(opt: Optimizer, snapshot: _Snapshot) -> None:
    with torch.no_grad():
        torch._foreach_copy_(snapshot.tensors, snapshot.copies)
    state = opt.torch.state
    for param in snapshot.params:
        if param in snapshot.entries:
            state[param] = snapshot.entries[param]
        else:
            state.pop(param, None)
    for group, lr in zip(opt.torch.param_groups, snapshot.lrs, strict=True):
        if isinstance(lr, torch.Tensor):
            group["lr"].copy_(lr)
        else:
            group["lr"] = lr


def update(m: Model, opt: Optimizer, g: Grad) -> None:
    """One step of `opt` on `m` with `g`, at the schedule's rate for `opt.steps`; counts it.

    Usually the step is checked whole, then run (`shapescript.rt.steps`); where that
    wouldn't be exactly `opt.torch.step()` (step hooks, params off the CPU), it is `step()`
    itself, with the params and the state copied first so that a step that fails can be
    undone.
    """
    _check_update(m, opt, g)
    params = params_of(m)
    if any(mine is not theirs for mine, theirs in zip(opt._params, params, strict=True)):
        _move_state(opt, params)
    lr = learning_rate(opt.lr, opt.steps)
    grads = g.values()
    if steps.supported(opt.torch, params, grads):
        count = opt.steps + 1
        steps.prepare(opt.torch, params, grads, lr, opt._buffers).apply(
            lambda: _counted(opt, lr, count)
        )
        return
    snapshot = _snapshot(opt, params)
    try:
        _set_lr(opt, lr)
        for param, grad in zip(params, grads, strict=True):
            param.grad = grad
        opt.torch.step()
    except BaseException:
        _restore(opt, snapshot)
        raise
    finally:
        for param in params:
            param.grad = None
    opt.steps += 1


def _counted(opt: Optimizer, lr: float, count: int) -> None:
    """The end of a step: the rate it took, and the count; idempotent."""
    _set_lr(opt, lr)
    opt.steps = count


def check_optimizer(value: Any, name: str, cls: type[Model], where: dict[str, Any]) -> None:
    """ShapeError unless `value` is `name` state ("sgd", "adamw") for a model of type `cls`."""
    wanted = f"{TYPE_NAMES[name]}[{cls.__name__}]"
    if not isinstance(value, Optimizer):
        raise ShapeError(f"expected {wanted} optimizer state, got {type(value).__name__}", **where)
    if value.name != name or not same_model_type(value.model_type, cls):
        raise ShapeError(f"expected {wanted} optimizer state, got {value.type_text}", **where)


def check_schedule(value: Any, where: dict[str, Any]) -> None:
    """TypeError, naming the `.ss` location, unless `value` is a schedule or a number."""
    if not isinstance(value, Schedule) and not _is_number(value):
        message = f"expected a Schedule or a number, got {type(value).__name__}"
        raise TypeError(str(CheckFailure(message, **where)))


__all__ = [
    "Cosine",
    "Optimizer",
    "Schedule",
    "Warmup",
    "adamw",
    "check_optimizer",
    "check_schedule",
    "cosine",
    "learning_rate",
    "schedule_from_state",
    "schedule_state",
    "sgd",
    "update",
    "warmup",
]
