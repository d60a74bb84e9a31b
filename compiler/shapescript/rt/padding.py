"""Exact padding: masked operations, the padded last batch, and `shapescript.padded`.

A padded axis holds copies of real positions after the real ones, and a mask (a bool
tensor along the axis, True at real positions) says which are real. Every operation
across the axis takes the mask and masks with `where`, never by multiplying, so a padded
value never reaches a result and its gradient is exactly zero. With no mask (`None`), or
with `fixed_shapes(False)`, each operation is the plain torch one.
"""

from __future__ import annotations

import builtins
import functools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from shapescript.rt.data import Batch, Batches

_state = {"on": True}
#: The label cross_entropy ignores, at padded positions.
IGNORED = -100
_seen: dict[str, set[tuple]] = {}


def fixed_shapes(on: bool) -> bool:
    """Turn padding on or off at run time; returns what it was."""
    was = _state["on"]
    _state["on"] = bool(on)
    return was


def fixed_shapes_on() -> bool:
    return _state["on"]


def shapes_seen() -> dict[str, list[tuple]]:
    """The distinct shapes each padded loop (by location) and padded function has seen."""
    return {key: sorted(shapes) for key, shapes in _seen.items()}


def _saw(key: str, shape: tuple) -> None:
    _seen.setdefault(key, set()).add(shape)


# ---------------------------------------------------------------------- sizes


def ladder() -> Iterator[int]:
    """The sizes a padded generic axis takes: each about 25% above the last, a multiple
    of 8 above 64."""
    size = 1
    while True:
        yield size
        size = math.ceil(size * 1.25) if size > 1 else 2
        if size > 64:
            size = -(-size // 8) * 8


def ladder_size(n: int) -> int:
    """The smallest size of the ladder that holds n positions."""
    for size in ladder():
        if size >= n:
            return size
    raise AssertionError("the ladder never ends")


def pad_along(x: torch.Tensor, dim: int, size: int) -> torch.Tensor:
    """`x` padded along `dim` to `size` with copies of its own positions, in order."""
    real = x.shape[dim]
    if real == size:
        return x
    index = torch.arange(size, device=x.device) % real
    return x.index_select(dim, index)


def mask_for(real: int, size: int, device: torch.device | None = None) -> torch.Tensor:
    return torch.arange(size, device=device) < real


def _spread(mask: torch.Tensor, x: torch.Tensor, dim: int) -> torch.Tensor:
    """The mask shaped to broadcast against `x` along `dim`."""
    dim = dim % x.dim()
    shape = [1] * x.dim()
    shape[dim] = mask.shape[0]
    return mask.reshape(shape)


def _use(mask: torch.Tensor | None) -> bool:
    return mask is not None and _state["on"]


# ---------------------------------------------------------------------- masked operations


def sum(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:  # noqa: A001
    if mask is None or not _state["on"]:
        return x.sum(dim)
    return torch.where(_spread(mask, x, dim), x, torch.zeros((), dtype=x.dtype)).sum(dim)


def count(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return mask.sum().to(x.dtype)


def mean(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:
    if mask is None or not _state["on"]:
        return x.mean(dim)
    return sum(x, dim, mask) / count(x, mask)


def var(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:
    if mask is None or not _state["on"]:
        return x.var(dim)
    centred = x - mean(x, dim, mask).unsqueeze(dim % x.dim())
    return sum(centred * centred, dim, mask) / (count(x, mask) - 1)


def std(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:
    if mask is None or not _state["on"]:
        return x.std(dim)
    return var(x, dim, mask).sqrt()


def prod(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:
    if mask is None or not _state["on"]:
        return x.prod(dim)
    return torch.where(_spread(mask, x, dim), x, torch.ones((), dtype=x.dtype)).prod(dim)


def _extreme(x: torch.Tensor, largest: bool) -> torch.Tensor:
    if x.dtype.is_floating_point:
        return torch.tensor(-math.inf if largest else math.inf, dtype=x.dtype)
    info = torch.iinfo(x.dtype)
    return torch.tensor(info.min if largest else info.max, dtype=x.dtype)


def max(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:  # noqa: A001
    if mask is None or not _state["on"]:
        return x.amax(dim)
    return torch.where(_spread(mask, x, dim), x, _extreme(x, True)).amax(dim)


def min(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:  # noqa: A001
    if mask is None or not _state["on"]:
        return x.amin(dim)
    return torch.where(_spread(mask, x, dim), x, _extreme(x, False)).amin(dim)


def logsumexp(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:
    if mask is None or not _state["on"]:
        return torch.logsumexp(x, dim)
    return torch.logsumexp(torch.where(_spread(mask, x, dim), x, _extreme(x, True)), dim)


def log_softmax(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:
    """Finite at padded positions too: each is a copy of a real one, less the real total."""
    if mask is None or not _state["on"]:
        return torch.log_softmax(x, dim)
    return x - logsumexp(x, dim, mask).unsqueeze(dim % x.dim())


def softmax(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:
    if mask is None or not _state["on"]:
        return torch.softmax(x, dim)
    masked = torch.where(_spread(mask, x, dim), x, _extreme(x, True))
    return torch.softmax(masked, dim)


def norm(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:
    if mask is None or not _state["on"]:
        return torch.linalg.vector_norm(x, dim=dim)
    zero = torch.zeros((), dtype=x.dtype)
    return torch.linalg.vector_norm(torch.where(_spread(mask, x, dim), x, zero), dim=dim)


def zeroed(x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:
    """`x` with its padded positions along `dim` zero, for a matmul contracting it."""
    if mask is None or not _state["on"]:
        return x
    return torch.where(_spread(mask, x, dim), x, torch.zeros((), dtype=x.dtype))


def over_all(name: str, x: torch.Tensor, dim: int, mask: torch.Tensor | None) -> torch.Tensor:
    """A reduction of every element (`sum(x)`), one axis of which (`dim`) is padded."""
    if mask is None or not _state["on"]:
        flat = x.reshape(-1)
        return _PLAIN_ALL[name](flat)
    assert mask is not None
    rows = torch.movedim(x, dim, -1).reshape(-1, x.shape[dim])
    real = mask.sum().to(x.dtype) * rows.shape[0]
    if name in ("sum", "mean", "var", "std"):
        total = sum(rows, -1, mask).sum()
        if name == "sum":
            return total
        average = total / real
        if name == "mean":
            return average
        centred = rows - average
        spread = sum(centred * centred, -1, mask).sum() / (real - 1)
        return spread if name == "var" else spread.sqrt()
    if name == "prod":
        return prod(rows, -1, mask).prod()
    if name == "max":
        return max(rows, -1, mask).amax()
    if name == "min":
        return min(rows, -1, mask).amin()
    if name == "logsumexp":
        return torch.logsumexp(logsumexp(rows, -1, mask), 0)
    return torch.linalg.vector_norm(zeroed(rows, -1, mask))


_PLAIN_ALL: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "sum": lambda x: x.sum(),
    "mean": lambda x: x.mean(),
    "var": lambda x: x.var(),
    "std": lambda x: x.std(),
    "max": lambda x: x.amax(),
    "min": lambda x: x.amin(),
    "logsumexp": lambda x: torch.logsumexp(x, 0),
    "prod": lambda x: x.prod(),
    "norm": lambda x: torch.linalg.vector_norm(x),
}


def matmul(
    a: torch.Tensor, b: torch.Tensor, mask: torch.Tensor | None, *, contracted: int = -1
) -> torch.Tensor:
    """`a @ b` where the contracted axis (`a`'s last) is padded: zero its padded positions."""
    if mask is None or not _state["on"]:
        return a @ b
    zero = torch.zeros((), dtype=a.dtype)
    return torch.where(_spread(mask, a, contracted), a, zero) @ b


def cross_entropy(
    z: torch.Tensor,
    y: torch.Tensor,
    classes: int,
    pads: dict[str, torch.Tensor] | None = None,
    axes: Sequence[tuple[int, str]] = (),
) -> torch.Tensor:
    """Mean cross-entropy of logits `z` (classes along `classes`) and labels `y`, over
    the real positions of the padded axes: `axes` pairs a position of `y` with the pad
    symbol whose mask it has."""
    logits = z if classes in (1, 1 - z.dim()) or z.dim() < 2 else torch.movedim(z, classes, 1)
    masks = [
        (position, pads[symbol])
        for position, symbol in axes
        if pads and pads.get(symbol) is not None
    ]
    if not masks or not _state["on"]:
        return F.cross_entropy(logits, y)
    keep = torch.ones(y.shape, dtype=torch.bool, device=y.device)
    for position, mask in masks:
        keep = keep & _spread(mask, y, position)
    if not y.dtype.is_floating_point:
        # Labels at padded positions are ignored: torch's own mean over the rest, which
        # for a full batch is the very computation the plain operation does.
        return F.cross_entropy(logits, torch.where(keep, y, IGNORED))
    each = F.cross_entropy(logits, y, reduction="none")
    zero = torch.zeros((), dtype=each.dtype)
    return torch.where(keep, each, zero).sum() / keep.sum().to(each.dtype)


def pattern_reduce(
    plain: Callable[[torch.Tensor, str], torch.Tensor],
    x: torch.Tensor,
    reduction: str,
    masks: Sequence[tuple[int, torch.Tensor | None]],
) -> torch.Tensor:
    """`reduce(x, pattern, reduction)` reducing padded axes (`masks`: each axis of `x`
    with its mask): `plain` is the einops reduction as a function of its operand and
    reduction name. Padded positions become the reduction's identity; a mean is the
    masked sum over the number of real elements reduced."""
    used = [(dim, mask) for dim, mask in masks if _use(mask)]
    if not used:
        return plain(x, reduction)
    if reduction in ("max", "min"):
        fill = _extreme(x, reduction == "max")
    elif reduction == "prod":
        fill = torch.ones((), dtype=x.dtype)
    else:
        fill = torch.zeros((), dtype=x.dtype)
    keep = torch.ones((), dtype=torch.bool, device=x.device)
    for dim, mask in used:
        keep = keep & _spread(mask, x, dim)
    filled = torch.where(keep, x, fill)
    if reduction != "mean":
        return plain(filled, reduction)
    total = plain(filled, "sum")
    # Each output element reduces the same number of elements; of those, the padded
    # axes contribute their real counts instead of their sizes.
    others = x.numel() // builtins.max(total.numel(), 1)
    count = torch.ones((), dtype=x.dtype, device=x.device)
    for dim, mask in used:
        others //= x.shape[dim]
        count = count * mask.sum().to(x.dtype)
    return total / (count * others)


def batch_norm(
    dim: int,
    mask: torch.Tensor | None,
    x: torch.Tensor,
    mode: Any,
    over: int,
    *args: Any,
    **kw: Any,
) -> torch.Tensor:
    """`batch_norm` whose statistics run across a padded axis `dim`: with Train, each
    channel's mean and variance are over the real positions only; with Eval (running
    statistics) or no mask, the plain operation."""
    from shapescript.rt import randomness

    if not _use(mask) or not randomness._require_mode(mode, "batch_norm").training:
        return randomness.batch_norm(x, mode, over, *args, **kw)
    assert mask is not None
    names = ("weight", "bias", "running_mean", "running_var", "eps")
    values = dict(zip(names, args, strict=False)) | kw
    eps = values.get("eps", 1e-5)
    over = over % x.dim()
    axes = [a for a in range(x.dim()) if a != over]
    keep = _spread(mask, x, dim).expand_as(x)
    zero = torch.zeros((), dtype=x.dtype)
    count = keep.sum(axes, keepdim=True).to(x.dtype)
    mean_ = torch.where(keep, x, zero).sum(axes, keepdim=True) / count
    centred = x - mean_
    var_ = torch.where(keep, centred * centred, zero).sum(axes, keepdim=True) / count
    normed = centred / torch.sqrt(var_ + eps)
    shape = [1] * x.dim()
    shape[over] = x.shape[over]
    if values.get("weight") is not None:
        normed = normed * values["weight"].reshape(shape)
    if values.get("bias") is not None:
        normed = normed + values["bias"].reshape(shape)
    return normed


# ---------------------------------------------------------------------- several devices


def split_pads(
    pads: dict[str, torch.Tensor | None] | None, sizes: Sequence[int]
) -> list[dict[str, torch.Tensor | None]]:
    """Each device's masks, when a padded batch is split along its first axis in parts
    of `sizes` (22/21/21 for 64 over 3): a mask is split with the batch, so a device
    may hold only padding."""
    parts: list[dict[str, torch.Tensor | None]] = [{} for _ in sizes]
    for symbol, mask in (pads or {}).items():
        pieces = [None] * len(sizes) if mask is None else torch.split(mask, list(sizes))
        for part, piece in zip(parts, pieces, strict=True):
            part[symbol] = None if piece is None else piece.clone()
    return parts


def _all_sum(value: torch.Tensor, where: str | None) -> torch.Tensor:
    from shapescript.rt.parallel import collectives

    return collectives.all_sum(value, where)


def _all_ratio(total: torch.Tensor, real: torch.Tensor, where: str | None) -> torch.Tensor:
    """Every device's `total` added up over every device's `real` count, in one all-reduce;
    in a function `value_and_grad` differentiates, left to go with the gradients'."""
    from shapescript.rt.parallel import deferral

    later = deferral.stand_in(total, real, where)
    if later is not None:
        return later
    added = _all_sum(torch.stack([total, real.to(total.dtype)]), where)
    return added[0] / added[1]


def all_sum(x: torch.Tensor, dim: int, mask: torch.Tensor | None, where: str | None = None):
    """A sum across a padded batch split over devices: each device's masked sum, added."""
    return _all_sum(sum(x, dim, mask), where)


def all_mean(x: torch.Tensor, dim: int, mask: torch.Tensor | None, where: str | None = None):
    """A mean across a padded batch split over devices: each device's masked sum and
    number of real examples, added up in one all-reduce, then divided, so the mean is
    over the real examples of the whole batch."""
    if mask is None or not _state["on"]:
        from shapescript.rt.parallel import collectives

        return collectives.all_mean(x.mean(dim), where)
    assert mask is not None
    total = sum(x, dim, mask)
    if total.dim() == 0:
        return _all_ratio(total, count(total, mask), where)
    packed = torch.cat([total.reshape(-1), count(total, mask).reshape(1)])
    added = _all_sum(packed, where)
    return added[:-1].reshape(total.shape) / added[-1]


def all_over_all(
    name: str, x: torch.Tensor, dim: int, mask: torch.Tensor | None, where: str | None = None
) -> torch.Tensor:
    """A mean of every element (`mean(x)`) whose axis `dim` is a padded batch split over
    devices: each device's masked total and real count, added up, then divided."""
    if name != "mean" or not _use(mask):
        from shapescript.rt.parallel import collectives

        return collectives.all_mean(over_all(name, x, dim, mask), where)
    assert mask is not None
    rows = torch.movedim(x, dim, -1).reshape(-1, x.shape[dim])
    total = sum(rows, -1, mask).sum()
    real = count(total, mask) * rows.shape[0]
    return _all_ratio(total, real, where)


def all_cross_entropy(
    z: torch.Tensor,
    y: torch.Tensor,
    classes: int,
    pads: dict[str, torch.Tensor] | None,
    axes: Sequence[tuple[int, str]],
    where: str | None = None,
) -> torch.Tensor:
    """The batch's cross_entropy with the batch split over devices: each device's sum of
    its real examples' losses and their number, added up, then divided."""
    logits = z if classes in (1, 1 - z.dim()) or z.dim() < 2 else torch.movedim(z, classes, 1)
    each = F.cross_entropy(logits, y, reduction="none")
    keep = torch.ones(y.shape, dtype=torch.bool, device=y.device)
    if _state["on"]:
        for position, symbol in axes:
            mask = (pads or {}).get(symbol)
            if mask is not None:
                keep = keep & _spread(mask, y, position)
    zero = torch.zeros((), dtype=each.dtype)
    total = torch.where(keep, each, zero).sum()
    return _all_ratio(total, keep.sum().to(each.dtype), where)


# ---------------------------------------------------------------------- selections


def select(
    pads: dict[str, torch.Tensor | None],
    symbol: str | None,
    x: torch.Tensor,
    mask: torch.Tensor,
    outer: torch.Tensor | None = None,
) -> torch.Tensor:
    """`x[mask]` along `x`'s first axis. With padding on, a selection the checker keeps
    (`symbol`) keeps `x`'s size: its unselected positions are copies of the first
    selected one, and `pads[symbol]` says which are selected. `outer` is the mask of
    `x`'s own padded axis, whose padded positions are never selected."""
    on = _state["on"]
    if outer is not None and on:
        mask = mask & outer
    if symbol is None or not on:
        if symbol is not None:
            pads[symbol] = None
        return x[mask]
    pads[symbol] = mask
    positions = torch.arange(mask.shape[0], device=mask.device)
    first = mask.to(torch.int8).argmax()
    return x.index_select(0, torch.where(mask, positions, first))


# ---------------------------------------------------------------------- the last batch


def mask_of(batch: Batch) -> torch.Tensor | None:
    """The mask of a padded batch's real examples; None for a batch that isn't padded."""
    return batch.__dict__.get("_ss_mask")


def real_size(batch: Batch) -> int:
    """The number of real examples in a batch, padded or not."""
    real = batch.__dict__.get("_ss_real")
    return real if real is not None else len(batch)


def pad_batch(batch: Batch, size: int) -> Batch:
    """A batch padded to `size` examples with copies of its own, with its mask."""
    real = len(batch)
    padded_remote = _pad_remote(batch, size)
    if padded_remote is not None:
        return padded_remote
    fields = {name: pad_along(value, 0, size) for name, value in batch._fields().items()}
    padded = Batch.__new__(Batch)
    padded.__dict__.update(fields)
    padded._ss_record = batch._ss_record
    first = next(iter(fields.values()), None)
    device = first.device if first is not None else None
    padded.__dict__["_ss_mask"] = mask_for(real, size, device)
    padded.__dict__["_ss_real"] = real
    return padded


def _pad_remote(batch: Batch, size: int) -> Batch | None:
    """A batch the workers load (several devices), padded by its examples' indices, so
    each worker still loads its own part; None for a batch that holds its tensors."""
    source = batch.__dict__.get("_ss_source")
    if source is None:
        return None
    dataset, indices, where = source
    real = len(indices)
    kept = indices[np.arange(size) % real] if real and real != size else indices
    padded = type(batch)(dataset, kept, batch.__dict__["_ss_record"], where)
    padded.__dict__["_ss_mask"] = mask_for(real, size)
    padded.__dict__["_ss_real"] = real
    return padded


def _shapes(batch: Batch) -> tuple:
    """What recording keys a batch's shapes by, without loading a batch the workers load."""
    if "_ss_source" in batch.__dict__:
        return (("examples", len(batch)),)
    return tuple(tuple(v.shape) for v in batch._fields().values())


def batch_loop(batches: Batches, padded: bool, where: str) -> Iterator[Batch]:
    """The batches of a loop, the last padded to the full size when `padded` and padding
    is on; every batch of a padded loop carries a mask, all True for a full one."""
    on = padded and _state["on"] and isinstance(batches, Batches)
    if isinstance(batches, Batches):
        _announce(batches, on)
    for batch in batches:
        if on:
            batch = pad_batch(batch, batches.size)
        _saw(where, _shapes(batch))
        yield batch


def _announce(batches: Batches, padded: bool) -> None:
    """Tell recorded steps the epoch's batch sizes, so they record them ahead."""
    from shapescript.rt import recording

    count = len(batches.dataset)
    if not count:
        return
    last = count % batches.size or batches.size
    sizes = {batches.size} if count >= batches.size else set()
    sizes.add(batches.size if padded else last)
    recording.announce_batches(batches.record._ss_name, sorted(sizes))


# ---------------------------------------------------------------------- padded functions


def padded(f: Callable[..., Any], *names: str) -> Callable[..., Any]:
    """`f` with each generic axis it can pad padded up to the ladder's next size on each
    call, and its results cut back to the real sizes.

    `f._ss_padding` (from the compiler) says, for each paddable axis, where it is in the
    parameters and in the results, and whether `f` takes masks: `{"axes": {n: [(param,
    position), ...]}, "returns": [(result, position, n), ...], "blocked": {n: reason},
    "takes": bool}`.
    """
    info = getattr(f, "_ss_padding", None)
    if info is None:
        raise ValueError(f"{getattr(f, '__name__', f)!r} isn't a compiled ShapeScript function")
    for name in names:
        if name in info.get("blocked", {}):
            raise ValueError(f"`{name}` can't be padded: {info['blocked'][name]}")
        if name not in info["axes"]:
            raise ValueError(f"`{name}` isn't a generic axis of {f.__name__}")
    chosen = list(names) if names else list(info["axes"])
    key = getattr(f, "__name__", "padded")

    @functools.wraps(f)
    def call(*args: Any) -> Any:
        if not _state["on"]:
            return f(*args)
        values = list(args)
        pads: dict[str, torch.Tensor] = {}
        reals: dict[str, int] = {}
        for symbol in chosen:
            places = info["axes"][symbol]
            if not places:
                continue
            first, position = places[0]
            real = int(values[first].shape[position])
            size = ladder_size(real)
            reals[symbol] = real
            for param, at in places:
                values[param] = pad_along(values[param], at, size)
            pads[symbol] = mask_for(real, size, values[first].device)
        _saw(key, tuple(tuple(v.shape) for v in values if isinstance(v, torch.Tensor)))
        result = f(*values, _ss_pad=pads) if info.get("takes", True) else f(*values)
        return _cut(result, info["returns"], reals)

    return call


def _cut(result: Any, returns: Sequence[tuple[int, int, str]], reals: dict[str, int]) -> Any:
    several = isinstance(result, tuple)
    items = list(result) if several else [result]
    for index, position, symbol in returns:
        if symbol in reals and isinstance(items[index], torch.Tensor):
            items[index] = items[index].narrow(position, 0, reals[symbol])
    return tuple(items) if several else items[0]
