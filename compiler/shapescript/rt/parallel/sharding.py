"""On a worker, `shard params`: each param of a model flattened and cut into N pieces.

Each worker keeps one piece of every param (the last padded with zeros), and so optimizer
state for that piece only, as FSDP does. Reading a param (`m.w1`) gathers it from the
pieces (an all-gather), whose backward adds up every worker's gradient and cuts it into the
same pieces (a reduce-scatter), so each worker's gradient is for its own piece and `update`
changes only that. `norm` of such a gradient adds up the pieces' squares across the workers.
The controller always sees whole tensors: a model's fields and its optimizer state are
gathered when they are copied back, and cut again when they are sent. The models a model
holds are sharded with it, each param by the same rule, and named by its path (`h.0.w`)
wherever the whole model's params are listed (gradients, optimizer state, fields).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch
import torch.distributed as dist

from shapescript.rt.models import Model

_gather_into = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_scatter_into = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor


def piece_length(numel: int, count: int) -> int:
    """The values in each of `count` pieces of a param of `numel` values (the last padded)."""
    return -(-numel // count)


class _Gather(torch.autograd.Function):
    """A param gathered whole from every worker's piece; backward, a reduce-scatter."""

    @staticmethod
    def forward(ctx: Any, piece: torch.Tensor, shape: torch.Size) -> torch.Tensor:
        count = dist.get_world_size()
        flat = piece.new_empty(piece.numel() * count)
        _gather_into(flat, piece.detach().contiguous())
        ctx.length = piece.numel()
        ctx.numel = shape.numel()
        return flat[: ctx.numel].view(shape)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        count = dist.get_world_size()
        flat = grad.new_zeros(ctx.length * count)
        flat[: ctx.numel] = grad.reshape(-1)
        mine = grad.new_empty(ctx.length)
        _scatter_into(mine, flat)
        return mine, None


def gather(piece: torch.Tensor, shape: torch.Size) -> torch.Tensor:
    """The whole param of `shape` from every worker's `piece`."""
    return _Gather.apply(piece, shape)


def cut(whole: torch.Tensor, rank: int, count: int) -> torch.Tensor:
    """This worker's piece of a whole tensor: flattened, padded, its `rank`-th of `count`."""
    length = piece_length(whole.numel(), count)
    flat = whole.detach().reshape(-1)
    piece = flat[rank * length : (rank + 1) * length]
    if piece.numel() < length:
        piece = torch.cat([piece, flat.new_zeros(length - piece.numel())])
    return piece.clone()


class ShardedModel(Model):
    """A model whose params are this worker's pieces; reading one gathers it whole."""

    _ss_sharded = True
    #: Each sharded param's whole shape, by its path: its own by name, those of the models
    #: it holds by their paths (`h.0.w`).
    _ss_whole: dict[str, torch.Size] = {}

    def __getattr__(self, name: str) -> Any:
        shape = type(self)._ss_whole.get(name)
        if shape is not None and name in self._parameters:
            return gather(self._parameters[name], shape)
        return super().__getattr__(name)

    def _ss_part(self, name: str, value: torch.Tensor) -> torch.Tensor:
        """This worker's part of a whole value assigned to field `name`."""
        if name in type(self)._ss_whole:
            return cut(value, dist.get_rank(), dist.get_world_size())
        return super()._ss_part(name, value)


_CLASSES: dict[type, type] = {}


def _sharded_class(cls: type[Model], count: int) -> type[Model]:
    found = _CLASSES.get(cls)
    if found is not None:
        return found
    sharded = type(cls.__name__, (ShardedModel, cls), {"__module__": cls.__module__})
    sharded.__qualname__ = cls.__qualname__
    # With split H as well, params split along H stay so; the others are sharded.
    split = getattr(cls, "_ss_split", {})
    sharded._ss_whole = {
        field.name: torch.Size(field.shape)
        for field in cls._ss_all_fields
        if field.kind == "param" and field.name not in split
    }
    # Checks of a gradient or an update compare with the pieces' shapes, the held models'
    # params' (by path) too.
    sharded._ss_types = _piece_types(cls._ss_types, sharded._ss_whole, count)
    sharded._ss_held_types = _piece_types(cls._ss_held_types, sharded._ss_whole, count)
    _CLASSES[cls] = sharded
    # A held model's gradient (`g.h[0]`) is of pieces too, laid out as its model is.
    sharded._ss_held = tuple(
        dataclasses.replace(held, model=_sharded_class(held.model, count)) for held in cls._ss_held
    )
    return sharded


def _piece_types(
    types: tuple[tuple[str, bool, torch.Size, torch.dtype], ...],
    whole: dict[str, torch.Size],
    count: int,
) -> tuple[tuple[str, bool, torch.Size, torch.dtype], ...]:
    """Fields as checks compare them, each sharded param as its flat piece."""
    return tuple(
        (
            name,
            is_param,
            torch.Size([piece_length(shape.numel(), count)]) if name in whole else shape,
            dtype,
        )
        for name, is_param, shape, dtype in types
    )


def shard(model: Model) -> Model:
    """`model`, and the models it holds, with each param replaced by this worker's piece
    of it, in place."""
    rank, count = dist.get_rank(), dist.get_world_size()
    pending = [model]
    while pending:
        one = pending.pop()
        one.__class__ = _sharded_class(type(one), count)
        for name in type(one)._ss_whole:
            if name in one._parameters:
                whole = one._parameters[name]
                one._parameters[name] = torch.nn.Parameter(cut(whole, rank, count))
        pending += held_models(one)
    return model


def held_models(model: Model) -> list[Model]:
    """The models `model` holds directly: one per `attn: Attention`, each of a stack."""
    found: list[Model] = []
    for held in type(model)._ss_held:
        inner = model._modules[held.name]
        found += [inner] if held.count is None else list(inner)
    return found


def whole_fields(model: Model) -> dict[str, torch.Tensor]:
    """A sharded model's fields, each whole, on the CPU (every worker must ask at once)."""
    from shapescript.rt.parallel import heads

    out = {}
    whole = type(model)._ss_whole
    split = getattr(type(model), "_ss_split", {})
    for name, tensor in model.state_dict().items():
        if name in whole:
            with torch.no_grad():
                tensor = gather(tensor, whole[name])
        elif name in split:
            tensor = heads.gathered(tensor, split[name])
        out[name] = tensor.detach().cpu()
    return out


def _pieces_of(cls: type[ShardedModel]) -> list[tuple[torch.Size, int] | None]:
    """Each sharded param's whole shape and piece length, in the optimizer's order (None
    for a param split along H)."""
    count = dist.get_world_size()
    whole = cls._ss_whole
    return [
        (whole[name], piece_length(whole[name].numel(), count)) if name in whole else None
        for name in cls._ss_params
    ]


def whole_state(cls: type[ShardedModel], state: dict[str, Any]) -> dict[str, Any]:
    """Optimizer state (`Optimizer.state_dict()`) of a sharded model with each param's
    state tensors gathered whole (every worker must ask at once)."""
    from shapescript.rt.parallel import heads

    if getattr(cls, "_ss_split", None):
        state = heads.whole_state(cls, state)
    pieces = _pieces_of(cls)
    inner = {}
    for index, entry in state["torch"]["state"].items():
        found = pieces[index]
        inner[index] = (
            entry
            if found is None
            else {key: _gathered(value, *found) for key, value in entry.items()}
        )
    return {**state, "torch": {**state["torch"], "state": inner}}


def _gathered(value: Any, shape: torch.Size, length: int) -> Any:
    if isinstance(value, torch.Tensor) and value.dim() == 1 and value.numel() == length:
        with torch.no_grad():
            return gather(value, shape).detach().cpu()
    return value


def cut_state(model: Model, state: dict[str, Any]) -> dict[str, Any]:
    """Whole optimizer state cut to this worker's pieces of a sharded model's params."""
    from shapescript.rt.parallel import heads

    if isinstance(model, heads.SplitModel):
        state = heads.cut_state(model, state)
    rank, count = dist.get_rank(), dist.get_world_size()
    pieces = _pieces_of(type(model))
    inner = {}
    for index, entry in state["torch"]["state"].items():
        found = pieces[int(index)]
        if found is None:
            inner[index] = entry
            continue
        shape = found[0]
        inner[index] = {
            key: cut(value, rank, count)
            if isinstance(value, torch.Tensor) and value.shape == shape and value.dim() > 0
            else value
            for key, value in entry.items()
        }
    return {**state, "torch": {**state["torch"], "state": inner}}


def combine_grads(values: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """`value_and_grad`'s gradients of pieces: the reduce-scatter already added up every
    worker's, each seeded with the same whole value, so they are divided by their number."""
    count = dist.get_world_size()
    return {name: value / count for name, value in values.items()}


def norm(g: Any) -> torch.Tensor:
    """The L2 norm of a gradient made of every worker's pieces: the pieces' squares added
    up across the workers (an all-reduce of one number)."""
    values = g.values() if hasattr(g, "values") else list(g)
    if not values:
        return torch.tensor(0.0)
    squares = torch.stack([value.detach().float().pow(2).sum() for value in values]).sum()
    dist.all_reduce(squares)
    return squares.sqrt()


def whole_grad_field(model_type: type, name: str, value: torch.Tensor) -> torch.Tensor:
    """`g.w` read in the program: a gradient of pieces gives the whole field, gathered from
    every worker's piece (every worker reads it at once, as it runs the same program)."""
    shape = getattr(model_type, "_ss_whole", {}).get(name)
    if shape is None or not issubclass(model_type, ShardedModel) or value.dim() != 1:
        return value
    return gather(value, shape)


#: Whether the program on this worker has `shard params`.
active = False


def setup(names: dict[str, Any]) -> None:
    """On a worker, once the program is loaded: with `shard params`, gradients are combined
    and their norms taken as pieces."""
    global active
    from shapescript.rt import gradients
    from shapescript.rt.parallel import heads

    heads.setup(names)
    active = bool(names.get("_ss_shard_params"))
    if active:
        gradients.combine = combine_grads
        gradients.norm_across = norm
        gradients.whole_field = whole_grad_field
        # Gradients of pieces are reduce-scattered in the backward pass: nothing to join.
        gradients.deferral = None


def laid_out(model: Model) -> Model:
    """A model the controller sent, as this worker keeps it (split along H first, with
    `split H`)."""
    from shapescript.rt.parallel import heads

    if heads.active:
        model = heads.split_model(model)
    return shard(model) if active else model


def saved_for(model: Model, saved: dict[str, Any]) -> dict[str, Any]:
    """Optimizer state the controller sent (whole), as this worker keeps it."""
    from shapescript.rt.parallel import heads

    # A model split along H and sharded is both: `cut_state` cuts the heads, then pieces.
    if isinstance(model, ShardedModel):
        return cut_state(model, saved)
    if isinstance(model, heads.SplitModel):
        return heads.cut_state(model, saved)
    return saved


def laid_out_here() -> bool:
    """Whether models are laid out over the workers (`shard params` or `split H`), so that
    making one whole takes every worker."""
    from shapescript.rt.parallel import heads

    return active or heads.active


def pulled(value: Any) -> Any:
    """A model's fields or optimizer state as the controller copies them back: whole."""
    from shapescript.rt.optimizers import Optimizer
    from shapescript.rt.parallel import heads

    if isinstance(value, ShardedModel):
        return whole_fields(value)
    if isinstance(value, heads.SplitModel):
        return heads.whole_fields(value)
    if isinstance(value, Optimizer) and issubclass(value.model_type, ShardedModel):
        return whole_state(value.model_type, value.state_dict())
    if isinstance(value, Optimizer) and issubclass(value.model_type, heads.SplitModel):
        return heads.whole_state(value.model_type, value.state_dict())
    return None


def _declared(cls: type) -> type:
    """The program's own model class under the worker's sharded or split subclasses."""
    while cls.__dict__.get("_ss_whole") is not None or cls.__dict__.get("_ss_split") is not None:
        cls = cls.__bases__[1]
    return cls


def received(value: Any) -> Any:
    """An argument from the controller as this worker keeps it: a whole gradient cut as its
    model's params are, into this worker's pieces and heads (what `returned` gathers)."""
    from shapescript.rt.errors import ShapeError
    from shapescript.rt.gradients import Grad, check_grad
    from shapescript.rt.parallel import heads

    if not isinstance(value, Grad) or not (active or heads.active):
        return value
    cls = value.model_type
    try:
        check_grad(value, cls, {})
    except ShapeError:
        return value  # the function's own check of its argument says what is wrong, and where
    values = dict(value.items())
    if heads.active:
        cls, values = heads.split_values(cls, values)
    if active:
        cls = _sharded_class(cls, dist.get_world_size())
        rank, count = dist.get_rank(), dist.get_world_size()
        for name in cls._ss_whole:
            if name in values:
                values[name] = cut(values[name], rank, count)
    return Grad(cls, values)


def returned(result: Any) -> Any:
    """A call's result as the controller gets it: a gradient of pieces gathered whole
    (every worker must do this at once)."""
    from shapescript.rt.gradients import Grad
    from shapescript.rt.parallel import heads

    if not isinstance(result, Grad) or not (active or heads.active):
        return result
    cls = result.model_type
    whole = getattr(cls, "_ss_whole", {})
    split = getattr(cls, "_ss_split", {})
    if not whole and not split:
        return result
    values = {}
    for name, value in result.items():
        if name in whole and issubclass(cls, ShardedModel):
            with torch.no_grad():
                value = gather(value, whole[name])
        elif name in split:
            value = heads.gathered(value, split[name])
        values[name] = value
    return Grad(_declared(cls), values)
