"""zip's other tensor is iterated along the axis the checker chose for it."""

from __future__ import annotations

import torch

from tests.codegen.compiled import load

PROGRAM = """\
dim D = 3

fn by_name(x: [n D] f64, y: [D n] f64) -> [n D] f64 = x
    |> map(r => r, over=n) |> zip(y) |> map((a, b) => a + b)

fn from_chain(x: [n D] f64, y: [n D] f64) -> [n D] f64 = x
    |> map(r => r, over=n) |> zip(y |> map(r => r * 2.0, over=n)) |> map((a, b) => a - b)
"""


def test_zip_along_the_axis_named_like_the_chains() -> None:
    module = load(PROGRAM, "zip.ss")
    x = torch.randn(5, 3, dtype=torch.float64)
    y = torch.randn(3, 5, dtype=torch.float64)
    assert torch.allclose(module.by_name(x, y), x + y.T, atol=1e-12)


def test_zip_along_the_first_axis_of_a_chains_result() -> None:
    module = load(PROGRAM, "zip.ss")
    x = torch.randn(5, 3, dtype=torch.float64)
    y = torch.randn(5, 3, dtype=torch.float64)
    assert torch.allclose(module.from_chain(x, y), x - 2 * y, atol=1e-12)
