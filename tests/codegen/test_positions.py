"""`positions(n)` in a GPT's position embedding compiles to torch.arange on the declared
device, and gives what slicing the table (`m.wpe[0:n] as [n D]`) gives."""

from __future__ import annotations

import pytest
import torch

import shapescript

GPT = """\
dim V = 16
dim T = 8
dim D = 4

model Gpt:
    param wte: [V D] = normal(std=0.02)
    param wpe: [T D] = normal(std=0.02)

fn by_positions(m: Gpt, ids: [b n] Index[V]) -> [b n D]:
    return embedding(ids, m.wte) + m.wpe[positions(n) as [n] Index[T]]

fn by_embedding(m: Gpt, ids: [b n] Index[V]) -> [b n D]:
    return embedding(ids, m.wte) + embedding(positions(n) as [n] Index[T], m.wpe)

fn by_slice(m: Gpt, ids: [b n] Index[V]) -> [b n D]:
    return embedding(ids, m.wte) + (m.wpe[0:n] as [n D])

fn full_context(m: Gpt, ids: [b T] Index[V]) -> [b T D]:
    return embedding(ids, m.wte) + m.wpe[positions(T)]
"""


@pytest.fixture(scope="module")
def gpt():
    return shapescript.compile(GPT, "gpt_positions.ss")


def test_position_embeddings_match_the_sliced_table(gpt) -> None:
    m = gpt.Gpt.init(seed=0)
    ids = torch.randint(0, 16, (2, 5), generator=torch.Generator().manual_seed(0))
    expected = gpt.by_slice(m, ids)
    assert torch.equal(gpt.by_positions(m, ids), expected)
    assert torch.equal(gpt.by_embedding(m, ids), expected)
    full = torch.randint(0, 16, (2, 8), generator=torch.Generator().manual_seed(1))
    assert torch.equal(gpt.full_context(m, full), m.wte[full] + m.wpe)


def test_a_sequence_longer_than_the_table_fails_the_as_check(gpt) -> None:
    m = gpt.Gpt.init(seed=0)
    with pytest.raises(shapescript.rt.DomainError, match="in \\[0, 8\\)"):
        gpt.by_positions(m, torch.zeros(1, 9, dtype=torch.long))


def test_positions_compile_to_arange_on_the_declared_device() -> None:
    from tests.codegen.compiled import build

    generated = build(GPT, "gpt_positions.ss")
    assert "_ss_torch.arange(" in generated.source
    assert "device=_ss_dev" in generated.source.split("_ss_torch.arange(", 1)[1].split("\n")[0]
