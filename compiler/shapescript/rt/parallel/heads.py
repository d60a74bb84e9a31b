"""On a worker, `split H`: values with an axis of size H hold this worker's H / N of it.

The generated code names the dim, so on a worker the dim's global is its share (H / N) and
every reshape of a split value works on the worker's heads; `whole` is the dim's whole
size, which a value computed whole before it is cut uses. A model's params with an H axis
hold this worker's block of it; reading one gives that block. The models a model holds are
split with it, each by its own model's fields, and named by path (`h.0.attn.w_o`) wherever
the whole model's params are listed (gradients, optimizer state, fields). Gradients of split
params are each worker's own; those of whole params, which each worker computed from its
own heads, are added up.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch
import torch.distributed as dist

from shapescript.rt.models import Field, Model
from shapescript.rt.parallel import collectives

#: The split dim's whole size on this worker (its global holds this worker's share).
whole = 0
#: Whether the program on this worker has `split H`.
active = False
#: Each model type's params split along H, and the axis of each, by model name.
_fields: dict[str, dict[str, int]] = {}
#: The split params of each model type, by its params' names (what `combine_grads` sees).
_by_params: dict[tuple[str, ...], frozenset[str]] = {}
#: Each model class's params split along H, its own by name and its held models' by path.
_paths: dict[type, dict[str, int]] = {}


def setup(names: dict[str, Any]) -> None:
    """Once the program is loaded on a worker: the dim's global becomes this worker's share."""
    global whole, active
    found = names.get("_ss_split_heads")
    if found is None:
        return
    dim, fields = found
    active = True
    whole = int(names[dim])
    names[dim] = whole // dist.get_world_size()
    _fields.clear()
    _fields.update(fields)
    _paths.clear()
    from shapescript.rt import gradients

    gradients.combine = combine_grads
    gradients.norm_across = norm
    # Batches are whole with split H: a loss has no reduction over the batch to leave.
    gradients.deferral = None


def _block(size: int) -> tuple[int, int]:
    count = dist.get_world_size()
    length = size // count
    return dist.get_rank() * length, length


def _cut_one(value: Any, axis: int | None) -> Any:
    if axis is None or not isinstance(value, torch.Tensor):
        return value
    start, length = _block(value.shape[axis])
    return value.narrow(axis, start, length)


def cut(value: Any, axes: tuple[int | None, ...]) -> Any:
    """A value computed whole, cut to this worker's heads along each result's split axis;
    its gradient is this worker's part of the whole value's."""
    if isinstance(value, tuple | list):
        return type(value)(_cut_one(item, axis) for item, axis in zip(value, axes, strict=True))
    return _cut_one(value, axes[0])


class _Gather(torch.autograd.Function):
    """Every worker's heads joined along `axis`; backward, the whole gradient added up
    across the workers and cut to this worker's heads."""

    @staticmethod
    def forward(ctx: Any, value: torch.Tensor, axis: int) -> torch.Tensor:
        ctx.axis = axis
        return gathered(value, axis)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        total = grad.detach().clone().contiguous()
        dist.all_reduce(total)
        return _cut_one(total, ctx.axis).contiguous(), None


def gather(value: Any, axis: int) -> Any:
    """A value split along H, gathered whole for an operation along or across H."""
    if not isinstance(value, torch.Tensor):
        return value
    return _Gather.apply(value, axis)


def matmul_rows(where: str, side: str, left: torch.Tensor, right: torch.Tensor) -> torch.Tensor:
    """A matmul contracting a split (H Dh) with a whole operand: the whole one's block that
    matches this worker's heads, multiplied, and the parts added up (an all-reduce)."""
    if side == "right":
        axis = 0 if right.dim() == 1 else right.dim() - 2
        start, length = _block(right.shape[axis])
        product = torch.matmul(left, right.narrow(axis, start, length))
    else:
        axis = left.dim() - 1
        start, length = _block(left.shape[axis])
        product = torch.matmul(left.narrow(axis, start, length), right)
    return collectives.all_sum(product, where)


class SplitModel(Model):
    """A model whose params with an H axis hold this worker's block of it."""

    _ss_sharded = True
    #: Each split param's axis, by path: its own by name, its held models' by path.
    _ss_split: dict[str, int] = {}

    def _ss_part(self, name: str, value: torch.Tensor) -> torch.Tensor:
        """A value assigned to field `name`: one for a split param has H where the param
        has it, so the plan has made it this worker's heads already."""
        return value

    def _ss_assigned(self, field: Field) -> Field:
        axis = type(self)._ss_split.get(field.name)
        if axis is None:
            return field
        shape = list(field.shape)
        shape[axis] //= dist.get_world_size()
        return dataclasses.replace(field, shape=tuple(shape))


_CLASSES: dict[type, type] = {}


def split_paths(cls: type[Model]) -> dict[str, int]:
    """Each param of `cls` split along H and its axis: its own by name (as the program's
    `split_fields` has them), the held models' by path (`h.0.attn.w_o`). A model's held
    models are worked out before it, on a stack, however deep the nesting."""
    pending = [cls]
    while pending:
        current = pending[-1]
        if current in _paths:
            pending.pop()
            continue
        missing = [held.model for held in current._ss_held if held.model not in _paths]
        if missing:
            pending += missing
            continue
        pending.pop()
        found = dict(_fields.get(current.__name__, {}))
        for held in current._ss_held:
            inner = _paths[held.model]
            for prefix in held.paths():
                found.update({prefix + name: axis for name, axis in inner.items()})
        _paths[current] = found
    return _paths[cls]


def _split_types(
    types: tuple[tuple[str, bool, torch.Size, torch.dtype], ...], paths: dict[str, int]
) -> tuple[tuple[str, bool, torch.Size, torch.dtype], ...]:
    """Fields as checks compare them, each split param with this worker's share of H."""
    count = dist.get_world_size()
    out = []
    for name, is_param, shape, dtype in types:
        if name in paths:
            sizes = list(shape)
            sizes[paths[name]] //= count
            shape = torch.Size(sizes)
        out.append((name, is_param, shape, dtype))
    return tuple(out)


def _split_class(cls: type[Model]) -> type[Model]:
    """`cls` as a worker keeps it: its split params' shapes are this worker's share, and so
    are those of the models it holds, whose classes are split too (a held model's gradient,
    `g.h[0]`, is laid out as its model is). Held models' classes are made first, on a stack."""
    pending = [cls]
    while pending:
        current = pending[-1]
        if current in _CLASSES:
            pending.pop()
            continue
        missing = [
            held.model
            for held in current._ss_held
            if held.model not in _CLASSES and split_paths(held.model)
        ]
        if missing:
            pending += missing
            continue
        pending.pop()
        _CLASSES[current] = _make_split_class(current)
    return _CLASSES[cls]


def _make_split_class(cls: type[Model]) -> type[Model]:
    paths = split_paths(cls)
    split = type(cls.__name__, (SplitModel, cls), {"__module__": cls.__module__})
    split.__qualname__ = cls.__qualname__
    split._ss_split = dict(paths)
    split._ss_types = _split_types(cls._ss_types, paths)
    split._ss_held_types = _split_types(cls._ss_held_types, paths)
    split._ss_held = tuple(
        dataclasses.replace(held, model=_CLASSES[held.model]) if held.model in _CLASSES else held
        for held in cls._ss_held
    )
    _by_params[tuple(cls._ss_params)] = frozenset(paths)
    return split


def split_model(model: Model) -> Model:
    """`model` with each param that has an H axis replaced by this worker's block, in place,
    and the same for every model it holds."""
    from shapescript.rt.parallel.sharding import held_models

    if not split_paths(type(model)):
        return model
    pending = [model]
    while pending:
        one = pending.pop()
        cls = type(one)
        if not split_paths(cls):
            continue
        one.__class__ = _split_class(cls)
        for name, axis in _fields.get(cls.__name__, {}).items():
            part = _cut_one(one._parameters[name].detach(), axis).clone()
            one._parameters[name] = torch.nn.Parameter(part)
        pending += held_models(one)
    return model


def split_values(cls: type[Model], values: dict[str, Any]) -> tuple[type[Model], dict[str, Any]]:
    """A whole gradient's class and values as this worker keeps them: each param with an H
    axis, the held models' included, cut to this worker's block, as `split_model` cuts them."""
    paths = split_paths(cls)
    if not paths:
        return cls, values
    out = dict(values)
    for name, axis in paths.items():
        if name in out:
            out[name] = _cut_one(out[name], axis).clone()
    return _split_class(cls), out


def gathered(value: torch.Tensor, axis: int) -> torch.Tensor:
    """A value split along `axis`, gathered whole from every worker's block."""
    parts = [torch.empty_like(value) for _ in range(dist.get_world_size())]
    dist.all_gather(parts, value.detach().contiguous())
    return torch.cat(parts, axis)


def whole_fields(model: SplitModel) -> dict[str, torch.Tensor]:
    """A split model's fields, each whole, on the CPU (every worker must ask at once)."""
    out = {}
    for name, tensor in model.state_dict().items():
        axis = model._ss_split.get(name)
        out[name] = (gathered(tensor, axis) if axis is not None else tensor.detach()).cpu()
    return out


def _state_axes(cls: type[SplitModel]) -> list[tuple[int | None, torch.Size]]:
    shapes = {name: shape for name, _, shape, _ in (*cls._ss_types, *cls._ss_held_types)}
    return [(cls._ss_split.get(name), shapes[name]) for name in cls._ss_params]


def whole_state(cls: type[SplitModel], state: dict[str, Any]) -> dict[str, Any]:
    """Optimizer state of a split model with its split params' tensors gathered whole."""
    axes = _state_axes(cls)
    inner = {}
    for index, entry in state["torch"]["state"].items():
        axis, shape = axes[index]
        inner[index] = {
            key: gathered(value, axis).cpu()
            if axis is not None and isinstance(value, torch.Tensor) and value.shape == shape
            else value
            for key, value in entry.items()
        }
    return {**state, "torch": {**state["torch"], "state": inner}}


def cut_state(model: SplitModel, state: dict[str, Any]) -> dict[str, Any]:
    """Whole optimizer state cut to this worker's blocks of a split model's params."""
    axes = _state_axes(type(model))
    count = dist.get_world_size()
    inner = {}
    for index, entry in state["torch"]["state"].items():
        axis, shape = axes[int(index)]
        mine = {}
        for key, value in entry.items():
            whole_block = (
                axis is not None
                and isinstance(value, torch.Tensor)
                and value.dim() > axis
                and value.shape[axis] == shape[axis] * count
            )
            if whole_block:
                value = _cut_one(value, axis).clone()
            mine[key] = value
        inner[index] = mine
    return {**state, "torch": {**state["torch"], "state": inner}}


def combine_grads(values: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """`value_and_grad`'s gradients: a split param's is this worker's own; the others, which
    each worker computed from its own heads, added up. Every worker seeded its backward
    pass with the same whole value, so all are divided by the number of workers."""
    split = _by_params.get(tuple(values), frozenset())
    count = dist.get_world_size()
    whole = {name: value for name, value in values.items() if name not in split}
    out = dict(values)
    if whole:
        out.update(collectives.combine_grads(whole))
    for name in split:
        out[name] = values[name] / count
    return out


def norm(g: Any) -> torch.Tensor:
    """The L2 norm of a gradient whose split params' values are each worker's block: their
    squares added up across the workers, and the whole params' once."""
    split = _by_params.get(tuple(g.keys()), frozenset())
    squares = [value.detach().float().pow(2).sum() for name, value in g.items() if name in split]
    mine = torch.stack(squares).sum() if squares else torch.zeros(())
    dist.all_reduce(mine)
    rest = [value.detach().float().pow(2).sum() for name, value in g.items() if name not in split]
    total = mine + (torch.stack(rest).sum() if rest else 0.0)
    return total.sqrt()
