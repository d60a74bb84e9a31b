"""The runtime check of an `Index[V]` argument: one pass over its values (torch.aminmax)
and two numbers read back, not a comparison, another, their `|` and an `any`."""

from __future__ import annotations

import pytest
import torch

import shapescript
from shapescript.analysis import check
from shapescript.codegen import BuildOptions, generate
from shapescript.syntax.source import SourceFile

PROGRAM = """devices cpu

dim V = 5

fn pick(ids: [b n] Index[V], table: [V D]) -> [b n D] = embedding(ids, table)
"""


def test_an_index_argument_is_checked_by_one_call_on_its_values() -> None:
    checked = check(SourceFile.from_text("pick.ss", PROGRAM))
    assert not checked.errors
    source = generate(checked, BuildOptions()).source
    assert "_ss_rt.index_error(ids, V, _ss_fn_pick, 0, 'indices in [0, 5)')" in source
    assert "(ids < 0)" not in source


def test_indices_in_range_pass_and_so_does_none() -> None:
    module = shapescript.compile(PROGRAM, "pick.ss")
    table = torch.arange(10.0).reshape(5, 2)
    ids = torch.tensor([[0, 4], [2, 1]])
    assert module.pick(ids, table)[:, :, 0].tolist() == [[0.0, 8.0], [4.0, 2.0]]
    assert module.pick(ids[:0], table).shape == (0, 2, 2)


@pytest.mark.parametrize(("values", "shown"), [([[0, 5]], "0 to 5"), ([[-1, 3]], "-1 to 3")])
def test_an_index_out_of_range_names_the_argument_and_the_extent(values, shown) -> None:
    module = shapescript.compile(PROGRAM, "pick.ss")
    with pytest.raises(shapescript.DomainError) as caught:
        module.pick(torch.tensor(values), torch.zeros(5, 2))
    message = str(caught.value)
    assert "indices in [0, 5)" in message
    assert f"but they go from {shown}" in message
    assert "ids" in message
