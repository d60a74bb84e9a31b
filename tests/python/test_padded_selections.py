"""Boolean selections kept at their target's size: exact (float64, 1e-12), and a step
that makes one is recordable."""

from __future__ import annotations

import pytest
import torch

import shapescript
from shapescript.check.checker import check_text
from shapescript.codegen import generate
from shapescript.rt import padding

SOURCE = """dim D = 3

fn pooled(v: [m D] f64) -> [D] f64 = mean(softmax(v, over=m) * v, over=m)

fn running(v: [m D] f64) -> [m D] f64 = cumsum(v, over=m)

fn positive_rows(x: [n D] f64) -> [D] f64:
    keep = sum(x, over=D) > 0.0
    s = x[keep]
    return mean(sum(s * s, over=D)) + pooled(s) + max(s)

fn running_rows(x: [n D] f64) -> [] f64:
    keep = sum(x, over=D) > 0.0
    return sum(running(x[keep]))
"""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    path = tmp_path_factory.mktemp("selections") / "rows.ss"
    path.write_text(SOURCE, encoding="utf-8")
    return shapescript.compile(SOURCE, str(path)), generate(check_text(SOURCE, str(path))).source


def test_a_kept_selection_gives_the_compact_result(compiled) -> None:
    module, source = compiled
    assert "_ss_rt.padding.select(_ss_pads, '?k'" in source
    generator = torch.Generator().manual_seed(0)
    for n in (1, 5, 9):
        x = torch.randn(n, 3, generator=generator, dtype=torch.float64)
        x[0] = x[0].abs()  # at least one row is selected
        kept = module.positive_rows(x)
        was = padding.fixed_shapes(False)
        try:
            compact = module.positive_rows(x)
        finally:
            padding.fixed_shapes(was)
        rows = x[x.sum(1) > 0]
        expected = (rows * rows).sum(1).mean() + (torch.softmax(rows, 0) * rows).mean(0)
        expected = expected + rows.max()
        assert torch.allclose(compact, expected, rtol=0, atol=1e-12)
        assert torch.allclose(kept, expected, rtol=0, atol=1e-12)


def test_a_selection_reaching_a_running_sum_is_compacted_where_it_is_made(compiled) -> None:
    module, source = compiled
    x = torch.randn(6, 3, dtype=torch.float64)
    rows = x[x.sum(1) > 0]
    assert torch.allclose(module.running_rows(x), rows.cumsum(0).sum(), rtol=0, atol=1e-12)
    facts = check_text(SOURCE).padding
    blockers = [b for b in facts.selections.values() if b is not None]
    assert [b.text for b in blockers] == ["`cumsum` over `m` has no masked version for a selection"]


def test_a_step_with_a_kept_selection_is_recorded_and_one_compacted_is_not() -> None:
    head = """dim D = 3
model Lin:
    param w: [D] = normal(std=0.02)
fn picky(m: Lin, x: [b D]) -> []:
    keep = sum(x, over=D) > 0.0
    return mean(x[keep] @ m.w)
fn running(v: [k]) -> [k] = cumsum(v, over=k)
fn ranked(m: Lin, x: [b D]) -> []:
    keep = sum(x, over=D) > 0.0
    return sum(running(x[keep] @ m.w))
"""
    steps = """fn kept(mut m: Lin, mut opt: SGD[Lin], x: [b D]) -> []:
    l, g = value_and_grad(picky, m, x)
    update(mut m, mut opt, g)
    return l
"""
    checked = check_text(head + steps)
    assert not checked.errors, [d.message for d in checked.errors]
    assert checked.padding.steps["kept"] is None
    assert "H3101" not in [d.code for d in checked.diagnostics]
    compacted = steps.replace("kept", "compacted").replace("picky", "ranked")
    checked = check_text(head + compacted)
    blocker = checked.padding.steps["compacted"]
    assert blocker is not None and blocker.function == "ranked"
    assert "`cumsum` over `k` has no masked version for a selection" in blocker.why
    assert [d.code for d in checked.diagnostics].count("H3101") == 1
