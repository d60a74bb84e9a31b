"""On a worker: the all-reduces that give each operation across the batch one device's result.

A worker holds a part of each batch. `all_sum` adds every worker's value; `all_mean` weighs
each worker's mean by its share of the batch first, so an uneven split counts each example
once. Their backward passes all-reduce the gradient too: with `value_and_grad` dividing the
summed gradients by the number of workers (`combine_grads`), every param's gradient is the
whole batch's, whether it was computed from each worker's part or from whole values.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist
from torch.autograd.function import BackwardCFunction

from shapescript.rt.parallel import deferral

#: This worker's share of the batch of the call it runs: (its examples, the batch's).
_share: tuple[int, int] = (1, 1)
#: Where the worker is, for the timeout message: the `.ss` location of the collective.
waiting_at: list[str] = []
#: Where the last collective that failed was waited for, if it had a location.
failed_at: str | None = None


def set_share(mine: int, whole: int) -> None:
    global _share
    _share = (mine, max(whole, 1))


class _AllReduceSum(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, value: torch.Tensor) -> torch.Tensor:
        out = value.detach().clone()
        dist.all_reduce(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        if getattr(ctx, "whole_seed", False):
            # Every worker's gradient here is the same seed: their sum needs no message.
            return grad * dist.get_world_size()
        out = grad.detach().clone().contiguous()
        dist.all_reduce(out)
        return out


def _reduce(value: torch.Tensor, where: str | None) -> torch.Tensor:
    if where is not None:
        waiting_at.append(where)
    global failed_at
    try:
        if value.requires_grad:
            return _AllReduceSum.apply(value)
        out = value.detach().clone()
        dist.all_reduce(out)
        return out
    except BaseException:
        failed_at = where
        raise
    finally:
        if where is not None:
            waiting_at.pop()


def all_sum(value: Any, where: str | None = None) -> Any:
    """Every worker's value added up: a sum or a product contracting the batch axis."""
    if not isinstance(value, torch.Tensor):
        return value
    later = deferral.stand_in(value, None, where)
    return later if later is not None else _reduce(value, where)


def all_mean(value: Any, where: str | None = None) -> Any:
    """A mean over the batch: each worker's mean weighed by its share of the batch, added."""
    if not isinstance(value, torch.Tensor):
        return value
    mine, whole = _share
    kind = value.dtype if value.is_floating_point() else torch.float32
    value = value.to(kind)
    if mine == 0:
        # A worker with no examples adds nothing: its mean of none is NaN, and NaN·0 is too.
        # `where` keeps it in the graph, so it runs the same backward all-reduce.
        on = torch.ones((), dtype=torch.bool, device=value.device)
        value = torch.where(on, torch.zeros_like(value), value)
    weighed = value * (mine / whole)
    later = deferral.stand_in(weighed, None, where)
    return later if later is not None else _reduce(weighed, where)


def batch_norm(
    where: str | None,
    x: torch.Tensor,
    mode: Any,
    over: int,
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    running_mean: torch.Tensor | None = None,
    running_var: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    """`batch_norm` with its statistics taken over the whole batch: each worker's per-channel
    sums and sums of squares, and its count, added up in f64 (2·C + 1 values), give the
    mean and biased variance one device would take; with Eval, the running ones as usual."""
    from shapescript.rt import randomness

    if not getattr(mode, "training", False):
        return randomness.batch_norm(x, mode, over, weight, bias, running_mean, running_var, eps)
    if not -x.dim() <= over < x.dim():
        raise ValueError(f"batch_norm: over={over} isn't an axis of a tensor of {x.dim()} axes")
    moved = x.movedim(over, -1)
    channels = moved.shape[-1]
    rows = moved.reshape(-1, channels).to(torch.float64)
    count = torch.tensor([float(rows.shape[0])], dtype=torch.float64, device=x.device)
    local = torch.cat([rows.sum(0), (rows * rows).sum(0), count])
    total = _reduce(local, where)
    n = total[-1]
    mean = total[:channels] / n
    var = (total[channels : 2 * channels] / n - mean * mean).clamp_min(0.0)
    shape = [1] * x.dim()
    shape[over] = channels
    mean = mean.to(x.dtype).view(shape)
    scale = torch.rsqrt(var + eps).to(x.dtype).view(shape)
    out = (x - mean) * scale
    if weight is not None:
        out = out * weight.view(shape)
    if bias is not None:
        out = out + bias.view(shape)
    return out


def combine_grads(values: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """`value_and_grad`'s gradients for the whole batch: added up over the workers, in one
    all-reduce per dtype, and divided by their number (every worker seeded its backward
    pass with the same whole value)."""
    count = dist.get_world_size()
    by_dtype: dict[torch.dtype, list[str]] = {}
    for name, value in values.items():
        by_dtype.setdefault(value.dtype, []).append(name)
    out = dict(values)
    for names in by_dtype.values():
        flat = torch.cat([values[name].reshape(-1) for name in names])
        dist.all_reduce(flat)
        flat /= count
        offset = 0
        for name in names:
            size = values[name].numel()
            out[name] = flat[offset : offset + size].view_as(values[name])
            offset += size
    return out


def seeded(value: torch.Tensor) -> None:
    """Before `value_and_grad`'s backward pass: mark the all-reduces whose backward needs no
    message. A gradient reaching an all-reduce's result through whole values only (the loss
    itself, or `total / count` of a cross_entropy) is the same on every worker, so adding
    them up is multiplying by their number. Past any other collective, values may be split
    again and the gradients differ, so those all-reduces send theirs."""
    root = value.grad_fn
    if root is None:
        return
    frontier = _collectives_above(root)
    if not frontier:
        return
    if len(frontier) > 1:
        below = _below(frontier)
        frontier = [node for node in frontier if id(node) not in below]
    for node in frontier:
        if isinstance(node, _AllReduceSum._backward_cls):
            node.whole_seed = True


def _collectives_above(root: Any) -> list[Any]:
    """The collectives the backward pass from `root` reaches before any other one."""
    found: list[Any] = []
    # Nodes by id, kept alive so that no id is reused during the walk.
    seen = {id(root): root}
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, BackwardCFunction):
            found.append(node)
            continue
        for following, _ in node.next_functions:
            if following is not None and id(following) not in seen:
                seen[id(following)] = following
                stack.append(following)
    return found


def _below(frontier: list[Any]) -> dict[int, Any]:
    """The nodes the backward pass reaches from inside each of the collectives, by id."""
    below: dict[int, Any] = {}
    stack = [following for node in frontier for following, _ in node.next_functions]
    while stack:
        node = stack.pop()
        if node is None or id(node) in below:
            continue
        below[id(node)] = node
        stack.extend(following for following, _ in node.next_functions)
    return below
