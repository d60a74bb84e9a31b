"""Operations across the batch written as a pipe stage or `@`, and `batch_norm`'s statistics,
on several devices: each lowered as its call form is, or refused when checked, never a
result for one worker's part of the batch."""

from __future__ import annotations

import pytest
import torch

import shapescript
from shapescript.analysis import check
from shapescript.check.checker import check_parsed
from shapescript.codegen import generate
from shapescript.syntax.parser import parse
from shapescript.syntax.source import SourceFile
from tests.parallel.programs import compiled

PROGRAM = """devices {devices}

dim D = 4

data Ex:
    x: [D]

fn piped_mean(batch: [b] Ex) -> [D] = batch.x |> mean(over=b)

fn piped_sum(batch: [b] Ex) -> [D] = batch.x |> relu |> sum(over=b)

fn outer(x: [b D]) -> [D D] = rearrange(x, b D -> D b) @ x

fn gram(batch: [b] Ex) -> [D D] = outer(batch.x)

model Bn:
    param s: [D] = normal(std=1.0)
    param w: [D] = normal(std=1.0)
    param c: [D] = normal(std=1.0)

fn normed(m: Bn, batch: [b] Ex, mode: Mode) -> [b D]:
    return gelu(batch.x + m.s) |> batch_norm(mode, over=D, weight=m.w, bias=m.c)

fn bn_loss(m: Bn, batch: [b] Ex, mode: Mode) -> [] = mean(normed(m, batch, mode) * batch.x)

fn bn_grads(m: Bn, batch: [b] Ex, mode: Mode) -> Grad[Bn]:
    l, g = value_and_grad(bn_loss, m, batch, mode)
    return g
"""


def _check(text: str):
    return check_parsed(parse(SourceFile.from_text("t.ss", text)))


def _errors(text: str) -> list[tuple[str, str, str]]:
    checked = _check(text)
    return [(d.code, text[d.span.start : d.span.end], d.message) for d in checked.errors]


def test_a_pipe_stage_and_at_across_the_batch_are_collectives() -> None:
    checked = _check(PROGRAM.format(devices="cpu[0 1]"))
    assert checked.errors == []
    collectives = checked.placement.collectives
    assert [c.kind for c in collectives["piped_mean"]] == ["mean"]
    assert [c.kind for c in collectives["piped_sum"]] == ["sum"]
    assert [c.kind for c in collectives["outer"]] == ["sum"]


def test_the_generated_pipe_stage_and_at_are_all_reduced() -> None:
    text = PROGRAM.format(devices="cpu[0 1]")
    source = generate(check(SourceFile.from_text("t.ss", text))).source
    # A mean whose batch can be padded lowers to adding up masked sums and real counts,
    # in the padded body; the plain body (and bn_loss, which takes no masks) all-reduce
    # the mean. Each sum is in both bodies of its function.
    assert source.count("_ss_rt.padding.all_mean(") == 1
    assert source.count("_ss_collectives.all_mean(") == 2
    assert source.count("_ss_collectives.all_sum(") == 4
    assert "'t.ss:12:" in source  # the `@`, named by its line


def test_at_that_keeps_the_batch_axis_is_no_collective() -> None:
    text = PROGRAM.format(devices="cpu[0 1]") + (
        "\nfn project(batch: [b] Ex, w: [D D]) -> [b D] = batch.x @ w\n"
    )
    checked = _check(text)
    assert checked.errors == []
    assert "project" not in checked.placement.collectives


HEAD = "devices cpu[0 1]\n\ndim D = 4\n\ndata Ex:\n    x: [D]\n\n"


def test_batch_norm_in_a_call_and_a_pipe_stage_all_reduce_their_statistics() -> None:
    text = HEAD + (
        "fn n(batch: [b] Ex, mode: Mode) -> [b D] = batch_norm(batch.x, mode, over=D)\n"
        "fn p(batch: [b] Ex, mode: Mode) -> [b D] = batch.x |> batch_norm(mode, over=D)\n"
    )
    checked = _check(text)
    assert checked.errors == []
    assert [c.kind for c in checked.placement.collectives["n"]] == ["stats"]
    assert [c.kind for c in checked.placement.collectives["p"]] == ["stats"]
    source = generate(check(SourceFile.from_text("t.ss", text))).source
    assert source.count("_ss_collectives.batch_norm('t.ss:") == 2
    assert "_ss_rt.randomness.batch_norm(" not in source


def test_batch_norm_over_the_batch_axis_itself_needs_no_collective() -> None:
    text = HEAD + "fn n(batch: [b] Ex, mode: Mode) -> [b D] = batch_norm(batch.x, mode, over=b)\n"
    checked = _check(text)
    assert checked.errors == []
    assert "n" not in checked.placement.collectives


def test_batch_norm_in_eval_uses_running_statistics_and_is_allowed() -> None:
    text = HEAD + "fn n(batch: [b] Ex) -> [b D] = batch_norm(batch.x, Eval, over=D)\n"
    assert _errors(text) == []
    assert "n" not in _check(text).placement.collectives


def test_an_unlowered_pipe_stage_across_the_batch_is_e1801() -> None:
    text = HEAD + "fn n(batch: [b] Ex) -> [D] = batch.x |> max(over=b)\n"
    [(code, span, message)] = _errors(text)
    assert code == "E1801"
    assert span == "max(over=b)"
    assert "pipe stage `|> max`" in message


def _batch(count: int) -> dict[str, torch.Tensor]:
    return {"x": torch.randn(count, 4, generator=torch.Generator().manual_seed(0))}


@pytest.mark.slow
def test_two_workers_give_what_one_device_gives(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    batch = _batch(5)  # split 3 and 2: the mean weighs each worker's part
    mode = shapescript.Train(seed=0)

    def results(module) -> list[torch.Tensor]:
        m = module.Bn.init(seed=1)
        found = [module.piped_mean(batch), module.piped_sum(batch), module.gram(batch)]
        # batch_norm's statistics are the whole batch's, forward and backward.
        found.append(module.normed(m, batch, mode))
        found.append(module.bn_loss(m, batch, mode))
        found.extend(module.bn_grads(m, batch, mode).values())
        return found

    one = compiled(PROGRAM.format(devices="cpu"), tmp_path / "one.ss")
    expected = results(one)
    two = compiled(PROGRAM.format(devices="cpu[0 1]"), tmp_path / "two.ss")
    try:
        got = results(two)
        assert len(two._ss_program.pids()) == 2
    finally:
        two._ss_program.stop()
    assert len(got) == len(expected) == 8
    for mine, theirs in zip(expected, got, strict=True):
        assert torch.allclose(theirs, mine, atol=1e-5, rtol=0), (mine, theirs)
    # Not trivially equal: the gradient of `s` goes back through the statistics.
    assert expected[5].abs().max() > 1e-3
