"""Models as the code generator compiles them, for the runtime's tests."""

from __future__ import annotations

import torch

from shapescript.rt.models import Field, Model

D, HD, C = 784, 256, 10


class Mlp(Model):
    """A two-layer classifier."""

    _ss_fields = (
        Field("w1", "param", (D, HD), "f32", ("normal", {"mean": 0.0, "std": 0.02})),
        Field("b1", "param", (HD,), "f32", ("zeros", {})),
        Field("w2", "param", (HD, C), "f32", ("uniform", {"lo": -0.1, "hi": 0.1})),
        Field("b2", "param", (C,), "f32", ("zeros", {})),
        Field("mean", "buffer", (D,), "f32", ("zeros", {})),
    )


class Tiny(Model):
    """A small model with a param the loss doesn't use and a buffer."""

    _ss_fields = (
        Field("w", "param", (3, 2), "f32", ("normal", {"mean": 0.0, "std": 1.0})),
        Field("b", "param", (2,), "f32", ("full", {"value": 0.5})),
        Field("unused", "param", (4,), "f32", ("uniform", {"lo": -1.0, "hi": 1.0})),
        Field("count", "buffer", (), "i64", ("full", {"value": 7})),
    )


class Other(Model):
    """Another model type, to mix up with Tiny."""

    _ss_fields = (Field("w", "param", (3, 2), "f32", ("ones", {})),)


def forward(m: Mlp, x: torch.Tensor) -> torch.Tensor:
    h = torch.relu((x - m.mean) @ m.w1 + m.b1)
    return h @ m.w2 + m.b2


def loss(m: Mlp, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.cross_entropy(forward(m, x), y)


def tiny_loss(m: Tiny, x: torch.Tensor) -> torch.Tensor:
    return ((x @ m.w + m.b) ** 2).mean()
