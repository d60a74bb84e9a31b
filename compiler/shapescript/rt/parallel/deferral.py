"""On a worker: the all-reduce of a loss sent with its gradients, in one message.

`value_and_grad` of a function whose result is a sum or mean over the split batch (a
cross_entropy, a mean) would all-reduce that result in the forward pass, then the
gradients after the backward pass: two waits for every worker per step. While the
function runs, such a reduction of a scalar that needs a gradient is left for later: the
function gets a stand-in, this worker's own part. When the function's result is that
stand-in itself, nothing was computed from it, so the backward pass can start from the
worker's own numerator, and the numerator (with its count, for a mean over real
examples) travels in the gradients' all-reduce; the loss and the gradients come out as
one device's. When anything else was computed from a stand-in, the function runs again
with every reduction made at once, and is never deferred again.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist


class Pending:
    """A loss's all-reduce left for later: the sum over the workers of `numerator`,
    divided by the sum of `count` when there is one."""

    __slots__ = ("count", "numerator", "stand_in", "where")

    def __init__(
        self,
        stand_in: torch.Tensor,
        numerator: torch.Tensor,
        count: torch.Tensor | None,
        where: str | None,
    ) -> None:
        self.stand_in = stand_in
        self.numerator = numerator
        self.count = count
        self.where = where


#: While a function runs under `run`: the reductions left for later, in order.
_pending: list[Pending] | None = None
#: The functions whose reductions can't be left for later: something uses their value.
_refused: set[Any] = set()


def stand_in(
    numerator: torch.Tensor, count: torch.Tensor | None, where: str | None
) -> torch.Tensor | None:
    """This worker's own part of a scalar reduction, left for later while `run` is running
    a function; None when the caller must reduce now."""
    if _pending is None or numerator.dim() != 0 or not numerator.requires_grad:
        return None
    value = numerator.clone() if count is None else numerator / count.clamp_min(1)
    _pending.append(Pending(value, numerator, count, where))
    return value


def run(f: Any, m: Any, args: tuple, kwargs: dict) -> tuple[torch.Tensor, Pending | None]:
    """`f(m, *args, **kwargs)` with the reduction of its result left for later when it can
    be: the result (a stand-in) and what is pending, or the result and None."""
    global _pending
    if f in _refused:
        return f(m, *args, **kwargs), None
    # A `value_and_grad` inside `f` keeps its own list, and leaves `f`'s as it was.
    outer, _pending = _pending, []
    try:
        value = f(m, *args, **kwargs)
        found = _pending
    finally:
        _pending = outer
    if not found:
        return value, None
    if len(found) == 1 and value is found[0].stand_in:
        return value, found[0]
    _refused.add(f)
    return f(m, *args, **kwargs), None


def combine(
    values: dict[str, torch.Tensor], pending: Pending
) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """The whole batch's gradients and loss from each worker's gradients of its numerator:
    one all-reduce per dtype, the numerator's (and count's) in its dtype's."""
    from shapescript.rt.parallel import collectives

    numerator = pending.numerator.detach()
    kind = numerator.dtype
    extra = [numerator.reshape(1)]
    if pending.count is not None:
        extra.append(pending.count.detach().to(kind).reshape(1))
    by_dtype: dict[torch.dtype, list[str]] = {kind: []}
    for name, value in values.items():
        by_dtype.setdefault(value.dtype, []).append(name)
    out = dict(values)
    reduced: dict[torch.dtype, torch.Tensor] = {}
    if pending.where is not None:
        collectives.waiting_at.append(pending.where)
    try:
        for dtype, names in by_dtype.items():
            parts = [values[name].reshape(-1) for name in names]
            flat = torch.cat(parts + extra) if dtype == kind else torch.cat(parts)
            dist.all_reduce(flat)
            reduced[dtype] = flat
    except BaseException:
        collectives.failed_at = pending.where
        raise
    finally:
        if pending.where is not None:
            collectives.waiting_at.pop()
    ends = reduced[kind][-len(extra) :]
    total = ends[0]
    divisor = ends[1] if pending.count is not None else None
    loss = total if divisor is None else total / divisor
    for dtype, names in by_dtype.items():
        flat = reduced[dtype]
        if divisor is not None:
            flat = flat / divisor.to(dtype)
        offset = 0
        for name in names:
            size = values[name].numel()
            out[name] = flat[offset : offset + size].view_as(values[name])
            offset += size
    return out, loss.reshape(())
