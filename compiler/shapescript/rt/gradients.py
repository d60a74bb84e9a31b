"""Gradients: `value_and_grad`, the `Grad` it returns, its arithmetic, `norm` and `clip_norm`.

Nothing here reads or writes a param's `.grad`: gradients are values, made by
`torch.autograd.grad`, with zeros for the params a function doesn't use.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.overrides import has_torch_function

from shapescript.rt.errors import ShapeError
from shapescript.rt.models import (
    Model,
    _shape_text,
    field_problem,
    params_of,
    same_model_type,
)


class Grad:
    """A gradient with respect to a model's params: `g.w1`, `g["w1"]`, in declaration order."""

    __slots__ = ("_norm", "_values", "model_type")

    def __init__(self, model_type: type[Model], values: dict[str, torch.Tensor]) -> None:
        if list(values) != list(model_type._ss_params):
            raise ValueError(
                f"a Grad[{model_type.__name__}] has the fields {', '.join(model_type._ss_params)}"
            )
        object.__setattr__(self, "model_type", model_type)
        object.__setattr__(self, "_values", values)
        #: The last norm worked out, with the values' versions it was worked out from.
        object.__setattr__(self, "_norm", None)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Grad, (self.model_type, self._values))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Grad can't be changed; arithmetic makes a new one")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        value = self._values.get(name)
        if value is not None:
            return value if whole_field is None else whole_field(self.model_type, name, value)
        for held in self.model_type._ss_held:
            if held.name == name:
                parts = [self._part(held.model, prefix) for prefix in held.paths()]
                return parts[0] if held.count is None else tuple(parts)
        raise AttributeError(f"Grad[{self.model_type.__name__}] has no field {name!r}")

    def _part(self, model_type: type[Model], prefix: str) -> Grad:
        """The gradient of a model this one's model holds, its values under `prefix`."""
        return Grad(
            model_type, {name: self._values[prefix + name] for name in model_type._ss_params}
        )

    def __getitem__(self, name: str) -> torch.Tensor:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[str]:
        return list(self._values)

    def values(self) -> list[torch.Tensor]:
        return list(self._values.values())

    def items(self) -> list[tuple[str, torch.Tensor]]:
        return list(self._values.items())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}: {list(value.shape)}" for name, value in self._values.items())
        return f"Grad[{self.model_type.__name__}]({fields})"

    def _map(self, function: Callable[[torch.Tensor], torch.Tensor]) -> Grad:
        values = {name: function(value) for name, value in self._values.items()}
        return Grad(self.model_type, values)

    def _zip(self, other: Any, symbol: str, function: Callable[..., torch.Tensor]) -> Grad:
        if not isinstance(other, Grad):
            raise TypeError(
                f"Grad[{self.model_type.__name__}] {symbol} {type(other).__name__}: "
                f"a gradient is added to or subtracted from another gradient of the same model"
            )
        if not same_model_type(self.model_type, other.model_type):
            raise TypeError(
                f"Grad[{self.model_type.__name__}] {symbol} Grad[{other.model_type.__name__}]: "
                "gradients of different models"
            )
        theirs = other._values
        values = {name: function(value, theirs[name]) for name, value in self._values.items()}
        return Grad(self.model_type, values)

    def __add__(self, other: Any) -> Grad:
        return self._zip(other, "+", torch.add)

    def __sub__(self, other: Any) -> Grad:
        return self._zip(other, "-", torch.sub)

    def __neg__(self) -> Grad:
        return self._map(torch.neg)

    def __mul__(self, other: Any) -> Grad:
        factor = _scalar(other, f"Grad[{self.model_type.__name__}] *")
        return self._map(lambda value: value * factor)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Grad:
        divisor = _scalar(other, f"Grad[{self.model_type.__name__}] /")
        return self._map(lambda value: value / divisor)

    def __rtruediv__(self, other: Any) -> Grad:
        raise TypeError(f"{type(other).__name__} / Grad: a gradient can only be the dividend")

    def __radd__(self, other: Any) -> Grad:
        return self._zip(other, "+", torch.add)

    def __rsub__(self, other: Any) -> Grad:
        return self._zip(other, "-", torch.sub)


def _scalar(value: Any, what: str) -> float | torch.Tensor:
    """A number or a [] tensor a gradient can be scaled by; TypeError for anything else."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if isinstance(value, torch.Tensor) and value.dim() == 0:
        return value
    shown = f"a tensor of shape {list(value.shape)}" if isinstance(value, torch.Tensor) else None
    raise TypeError(
        f"{what} {shown or type(value).__name__}: a gradient is scaled by a number or a [] tensor"
    )


def norm(g: Grad) -> torch.Tensor:
    """The L2 norm of all of `g`'s values together, a [] tensor, as clip_grad_norm_ finds it.

    A training step often needs it twice (to clip, then to report), so it is kept with the
    gradient until one of its values changes in place; each caller gets a tensor of its own.
    """
    values = g.values()
    if not values:
        return torch.tensor(0.0)
    if norm_across is not None:
        return norm_across(g)
    try:
        versions = tuple(value._version for value in values)
    except RuntimeError:  # inference tensors keep no version counter
        return torch.nn.utils.get_total_norm(values)
    cached = g._norm
    if cached is None or cached[0] != versions:
        cached = (versions, torch.nn.utils.get_total_norm(values))
        object.__setattr__(g, "_norm", cached)
    return cached[1].clone()


def clip_norm(g: Grad, max_norm: float) -> Grad:
    """`g` scaled by min(1, max_norm / (norm(g) + 1e-6)), as torch's clip_grad_norm_ scales."""
    if not isinstance(g, Grad):
        raise TypeError(f"clip_norm takes a gradient, not {type(g).__name__}")
    total = norm(g)
    factor = torch.clamp(float(max_norm) / (total + 1e-6), max=1.0)
    values = g.values()
    if all(value.device == factor.device for value in values):
        scaled = torch._foreach_mul(values, factor)
        return Grad(g.model_type, dict(zip(g._values, scaled, strict=True)))
    return g._map(lambda value: value * factor.to(value.device))


#: On a worker of a program with `shard params` or `split H`, what adds up the squares of
#: every worker's pieces of a gradient (`parallel.sharding.norm`, `parallel.heads.norm`);
#: None otherwise.
norm_across: Callable[[Grad], torch.Tensor] | None = None

#: On a worker of a program with `shard params`, what makes a field read of a gradient
#: (`g.w`, a piece of it here) whole (`parallel.sharding.whole_grad_field`); None otherwise.
whole_field: Callable[[type[Model], str, torch.Tensor], torch.Tensor] | None = None

#: On a worker of a program on several devices, what adds up each worker's gradients
#: (`parallel.collectives.combine_grads`); None on one device.
combine: Callable[[dict[str, torch.Tensor]], dict[str, torch.Tensor]] | None = None
#: On a worker, what is told the value before its backward pass (`collectives.seeded`).
seeded: Callable[[torch.Tensor], None] | None = None
#: On a worker of a program with plain data parallelism, what sends the all-reduce of the
#: loss with the gradients' (`parallel.deferral`); None otherwise.
deferral: Any = None


def value_and_grad(
    f: Callable[..., torch.Tensor], m: Model, *args: Any, **kwargs: Any
) -> tuple[torch.Tensor, Grad]:
    """`f(m, *args, **kwargs)`, detached, and its gradient with respect to `m`'s params.

    Called once per training step, so its own Python is kept to a fixed few operations
    whatever the model: loops in this frame rather than comprehensions or generators (each
    a call of its own), and gradients turned on without a context manager's Python.
    """
    if not isinstance(m, Model):
        raise TypeError(f"value_and_grad takes a model second, not {type(m).__name__}")
    names = m._ss_params
    params = params_of(m)
    grad_was_off = not torch.is_grad_enabled()
    if grad_was_off:
        torch._C._set_grad_enabled(True)
    try:
        pending = None
        if deferral is not None:
            value, pending = deferral.run(f, m, args, kwargs)
        else:
            value = f(m, *args, **kwargs)
        if not isinstance(value, torch.Tensor) or value.dim() != 0:
            shown = list(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
            raise ShapeError(f"value_and_grad: {_name(f)} must return a [] tensor, not {shown}")
        # With the loss's all-reduce left for later, the backward pass starts from this
        # worker's own numerator.
        start = pending.numerator if pending is not None else value
        inputs = params
        if False in map(_requires_grad, params):
            inputs = tuple(param for param in params if param.requires_grad)
        found: tuple[torch.Tensor | None, ...] = ()
        if start.requires_grad and inputs:
            if seeded is not None and pending is None:
                seeded(value)
            found = _backward(start, inputs)
    finally:
        if grad_was_off:
            torch._C._set_grad_enabled(False)
    values: dict[str, torch.Tensor] = {}
    given = iter(found)
    for name, param in zip(names, params, strict=True):
        grad = next(given, None) if param.requires_grad else None
        values[name] = torch.zeros_like(param) if grad is None else grad
    if pending is not None:
        values, value = deferral.combine(values, pending)
    elif combine is not None:
        values = combine(values)
    return value.detach(), Grad(type(m), values)


_requires_grad = operator.attrgetter("requires_grad")


#: The call `torch.autograd.grad` makes once its checks pass (private to torch: where a
#: version lacks it, every backward pass goes through `torch.autograd.grad`).
_run_backward: Callable[..., tuple[torch.Tensor | None, ...]] | None = getattr(
    torch.autograd.graph, "_engine_run_backward", None
)


def _backward(
    start: torch.Tensor, inputs: tuple[torch.Tensor, ...]
) -> tuple[torch.Tensor | None, ...]:
    """`torch.autograd.grad(start, inputs, allow_unused=True)`.

    Its Python checks (torch function overrides, the implicit gradient of a [] loss) cost
    more than a small model's backward pass; for a plain real [] tensor and params that no
    torch function override or mode can see, they can't find anything, so the engine is
    called as `grad` would call it.
    """
    if (
        _run_backward is None
        or type(start) is not torch.Tensor
        or start.dim() != 0
        or not start.is_floating_point()
        or has_torch_function((start, *inputs))
    ):
        return torch.autograd.grad(start, inputs, allow_unused=True)
    seed = torch.ones_like(start, memory_format=torch.preserve_format)
    return _run_backward((start,), (seed,), False, False, inputs, True, accumulate_grad=False)


def _name(f: Callable[..., Any]) -> str:
    return getattr(f, "__name__", repr(f))


def check_grad(value: Any, cls: type[Model], where: dict[str, Any]) -> None:
    """ShapeError unless `value` is a Grad of `cls` whose fields have the params' types."""
    if not isinstance(value, Grad):
        raise ShapeError(f"expected a Grad[{cls.__name__}], got {type(value).__name__}", **where)
    if not same_model_type(value.model_type, cls):
        raise ShapeError(
            f"expected a Grad[{cls.__name__}], got a Grad[{value.model_type.__name__}]", **where
        )
    layout = value.model_type
    if layout is not cls and isinstance(layout, type) and issubclass(layout, cls):
        # On a worker with `shard params` or `split H`: this worker's pieces and heads.
        _check_laid_out(value, cls, layout, where)
        return
    for name in cls._ss_params:
        problem = field_problem(cls._ss_all_by_name[name], value[name])
        if problem is not None:
            raise ShapeError(
                f"a Grad[{cls.__name__}] whose {problem.removeprefix('its ')}", **where
            )


def _check_laid_out(value: Grad, cls: type[Model], layout: type, where: dict[str, Any]) -> None:
    """ShapeError unless each param of a gradient laid out as `layout` has its shape."""
    for name, is_param, shape, dtype in layout._ss_types:
        found = value[name] if is_param else None
        if found is not None and (found.shape != shape or found.dtype is not dtype):
            raise ShapeError(
                f"a Grad[{cls.__name__}] whose field {name} is {_shape_text(found)} on this "
                f"device, not {_shape_text(torch.empty(shape, dtype=dtype, device='meta'))}",
                **where,
            )


__all__ = ["Grad", "check_grad", "clip_norm", "norm", "value_and_grad"]
