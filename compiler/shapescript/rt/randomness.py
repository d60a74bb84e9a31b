"""Modes and the operations they steer: dropout, batch_norm, and the paths random draws follow.

There is no global random state. A training mode carries a seed and a path of calls
(`forward#0/dropout#1`); each draw has a generator of its own, seeded from both.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch

from shapescript.rt.errors import CheckFailure


def seed_for(text: str) -> int:
    """The first 8 bytes, big-endian, of the SHA-256 of `text`: a generator's seed."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


@dataclass(frozen=True, slots=True)
class Mode:
    """`Train(seed=s)` with the path of calls it was passed down, or `Eval` (seed None)."""

    seed: int | None
    path: tuple[str, ...] = ()

    @property
    def training(self) -> bool:
        return self.seed is not None

    def child(self, part: str) -> Mode:
        """The mode a call passes on: this one with `part` added to its path (Eval stays Eval)."""
        if self.seed is None:
            return self
        return Mode(self.seed, (*self.path, part))

    def generator_seed(self) -> int:
        """The seed of the draw at this mode's path."""
        return seed_for(f"{self.seed}/{'/'.join(self.path)}")

    def __repr__(self) -> str:
        if self.seed is None:
            return "Eval"
        if not self.path:
            return f"Train(seed={self.seed})"
        return f"Train(seed={self.seed}, path={'/'.join(self.path)!r})"


def Train(*, seed: int) -> Mode:  # noqa: N802 (the name ShapeScript programs use)
    """The training mode whose random operations draw from `seed`."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"Train: seed is an int, not {type(seed).__name__}")
    return Mode(seed)


Eval = Mode(None)


class CallCounter:
    """The calls one invocation of a compiled function has passed a mode to, by loop and name."""

    __slots__ = ("_counts",)

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str], int] = {}

    def key(self, name: str, loop: str = "") -> str:
        """`forward#0`, `forward#1`, ...; in a loop iteration `forward@4#0`, `forward@4.17#0`."""
        counts = self._counts
        count = counts.get((loop, name), 0)
        counts[(loop, name)] = count + 1
        return f"{name}@{loop}#{count}" if loop else f"{name}#{count}"


def _require_mode(mode: Any, operation: str) -> Mode:
    if not isinstance(mode, Mode):
        raise TypeError(
            f"{operation}: mode is shapescript.Train(seed=...) or shapescript.Eval, "
            f"not {type(mode).__name__}"
        )
    return mode


#: Per thread, what hands out each draw's generator while a step is warmed up or
#: recorded (`rt/recording.py`); unset, each draw makes its own.
_draws = threading.local()


@contextmanager
def drawing(supply: Callable[[Mode, torch.device], torch.Generator]) -> Iterator[None]:
    """Within the block, each draw on this thread takes its generator from `supply`."""
    was = getattr(_draws, "supply", None)
    _draws.supply = supply
    try:
        yield
    finally:
        _draws.supply = was


def _generator(mode: Mode, device: torch.device) -> torch.Generator:
    supply = getattr(_draws, "supply", None)
    if supply is not None:
        return supply(mode, device)
    generator = torch.Generator(device=device)
    generator.manual_seed(mode.generator_seed())
    return generator


def dropout(x: torch.Tensor, p: float, mode: Mode) -> torch.Tensor:
    """Zero each value with probability `p` and scale the rest by 1/(1-p); Eval gives `x`."""
    if not 0 <= p < 1:
        raise ValueError(f"dropout: p is at least 0 and less than 1, not {p}")
    if _require_mode(mode, "dropout").seed is None:
        return x
    generator = _generator(mode, x.device)
    drawn = torch.rand(x.shape, generator=generator, device=x.device, dtype=torch.float32)
    return x * (drawn >= p) / (1 - p)


def batch_norm(
    x: torch.Tensor,
    mode: Mode,
    over: int,
    weight: torch.Tensor | None = None,
    bias: torch.Tensor | None = None,
    running_mean: torch.Tensor | None = None,
    running_var: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    """Normalise each index of axis `over` over the others, by batch (Train) or running stats."""
    training = _require_mode(mode, "batch_norm").training
    if not -x.dim() <= over < x.dim():
        raise ValueError(f"batch_norm: over={over} isn't an axis of a tensor of {x.dim()} axes")
    if not training and (running_mean is None or running_var is None):
        raise ValueError("batch_norm with Eval needs running_mean and running_var")
    moved = x.movedim(over, 1) if x.dim() > 1 else x.unsqueeze(0)
    normed = torch.nn.functional.batch_norm(
        moved,
        None if training else running_mean,
        None if training else running_var,
        weight,
        bias,
        training=training,
        eps=eps,
    )
    return normed.movedim(1, over) if x.dim() > 1 else normed.squeeze(0)


def check_mode(value: Any, where: dict[str, Any]) -> None:
    """TypeError, naming the `.ss` location, unless `value` is a Mode."""
    if not isinstance(value, Mode):
        message = (
            "expected a Mode, shapescript.Train(seed=...) or shapescript.Eval, "
            f"got {type(value).__name__}"
        )
        raise TypeError(str(CheckFailure(message, **where)))


__all__ = [
    "CallCounter",
    "Eval",
    "Mode",
    "Train",
    "batch_norm",
    "check_mode",
    "dropout",
    "seed_for",
]
