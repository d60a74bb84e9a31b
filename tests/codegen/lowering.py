"""Compiling one `.ss` text with lowerings on and off, and comparing the two on inputs."""

from __future__ import annotations

import functools
import types
from collections.abc import Sequence

import torch

from shapescript.analysis import check
from shapescript.codegen import BuildOptions, generate
from shapescript.syntax.source import SourceFile

#: Tolerances of a lowered form against the written one, by dtype. f32: the two run the
#: same products, summed in another order at most. bf16: a result is rounded to 8 bits
#: of mantissa, so two sums in another order can land one rounding step (2**-8) apart,
#: and a gradient, a product of rounded values, a few steps.
TOLERANCES = {
    torch.float32: {"rtol": 1e-5, "atol": 1e-6},
    torch.bfloat16: {"rtol": 2e-2, "atol": 2e-2},
}


@functools.cache
def source(text: str, *, lower: bool) -> str:
    """The generated Python of a file, lowered or as written, padding off (once per
    text and switch)."""
    checked = check(SourceFile.from_text("lowering.ss", text))
    assert not checked.errors, [f"{d.code} {d.message}" for d in checked.errors]
    generated = generate(checked, BuildOptions(lower=lower, padding=False))
    assert not generated.unsupported, generated.unsupported
    return generated.source


def module(text: str, *, lower: bool) -> types.ModuleType:
    loaded = types.ModuleType("lowering")
    exec(compile(source(text, lower=lower), "lowering.py", "exec"), loaded.__dict__)
    return loaded


def assert_same(
    text: str,
    function: str,
    inputs: Sequence[torch.Tensor],
    dtype: torch.dtype,
    tolerance: dict[str, float] | None = None,
) -> None:
    """The function gives the same result and the same input gradients lowered as written,
    within `tolerance` (the dtype's in TOLERANCES unless given)."""
    results = []
    for lower in (True, False):
        leaves = [
            tensor.detach().clone().requires_grad_(tensor.is_floating_point()) for tensor in inputs
        ]
        value = getattr(module(text, lower=lower), function)(*leaves)
        weights = torch.linspace(-1, 1, value.numel(), dtype=value.dtype).reshape(value.shape)
        (value * weights).sum().backward()
        grads = [leaf.grad for leaf in leaves if leaf.requires_grad]
        results.append((value.detach(), grads))
    (lowered, lowered_grads), (written, written_grads) = results
    tolerance = tolerance or TOLERANCES[dtype]
    torch.testing.assert_close(lowered, written, **tolerance)
    for got, expected in zip(lowered_grads, written_grads, strict=True):
        torch.testing.assert_close(got, expected, **tolerance)
