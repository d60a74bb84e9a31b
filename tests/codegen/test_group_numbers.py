"""A number inside an input group may appear on the output, as `(gh 16) -> gh 16`."""

from __future__ import annotations

import einops
import torch

from tests.codegen.compiled import load

PROGRAM = """\
fn split_patches(x: [b (gh 16)] f64) -> [b gh 16] f64 = rearrange(x, b (gh 16) -> b gh 16)

fn grouped(x: [b 16gh] f64) -> [b 16 gh] f64 = rearrange(x, b 16gh -> b 16 gh)
"""


def test_a_group_number_on_the_output_is_the_inputs() -> None:
    module = load(PROGRAM, "group_numbers.ss")
    x = torch.randn(2, 48, dtype=torch.float64)
    assert torch.equal(module.split_patches(x), einops.rearrange(x, "b (g p) -> b g p", p=16))
    assert torch.equal(module.grouped(x), einops.rearrange(x, "b (g p) -> b p g", p=16))
