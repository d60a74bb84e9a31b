"""Operations across the batch written as a pipe stage or `@`, `batch_norm`'s statistics and
`split H` on several devices: each lowered as its call form is, or refused when checked,
never a result for one worker's part of the batch."""

from __future__ import annotations

import pytest
import torch

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
    # The mean's batch can be padded: its lowering adds up masked sums and real counts.
    assert source.count("_ss_rt.padding.all_mean(") == 1
    assert source.count("_ss_collectives.all_sum(") == 2
    assert "'t.ss:12:" in source  # the `@`, named by its line


def test_at_that_keeps_the_batch_axis_is_no_collective() -> None:
    text = PROGRAM.format(devices="cpu[0 1]") + (
        "\nfn project(batch: [b] Ex, w: [D D]) -> [b D] = batch.x @ w\n"
    )
    checked = _check(text)
    assert checked.errors == []
    assert "project" not in checked.placement.collectives


HEAD = "devices cpu[0 1]\n\ndim D = 4\n\ndata Ex:\n    x: [D]\n\n"


def test_batch_norm_in_a_call_is_e1801() -> None:
    text = HEAD + "fn n(batch: [b] Ex, mode: Mode) -> [b D] = batch_norm(batch.x, mode, over=D)\n"
    [(code, span, message)] = _errors(text)
    assert code == "E1801"
    assert span == "batch_norm(batch.x, mode, over=D)"
    assert "`batch_norm`'s statistics" in message


def test_batch_norm_as_a_pipe_stage_is_e1801() -> None:
    text = HEAD + "fn n(batch: [b] Ex, mode: Mode) -> [b D] = batch.x |> batch_norm(mode, over=D)\n"
    [(code, span, message)] = _errors(text)
    assert code == "E1801"
    assert span == "batch_norm(mode, over=D)"
    assert "pipe stage `|> batch_norm`" in message


def test_batch_norm_in_eval_uses_running_statistics_and_is_allowed() -> None:
    text = HEAD + "fn n(batch: [b] Ex) -> [b D] = batch_norm(batch.x, Eval, over=D)\n"
    assert _errors(text) == []


def test_an_unlowered_pipe_stage_across_the_batch_is_e1801() -> None:
    text = HEAD + "fn n(batch: [b] Ex) -> [D] = batch.x |> max(over=b)\n"
    [(code, span, message)] = _errors(text)
    assert code == "E1801"
    assert span == "max(over=b)"
    assert "pipe stage `|> max`" in message


def test_split_h_is_e1801_when_checked() -> None:
    text = "devices cpu[0 1 2]\n    split H\n\ndim H = 12\n"
    [(code, span, message)] = _errors(text)
    assert code == "E1801"
    assert span == "split H"
    assert "`split H` isn't supported yet" in message


def _batch(count: int) -> dict[str, torch.Tensor]:
    return {"x": torch.randn(count, 4, generator=torch.Generator().manual_seed(0))}


@pytest.mark.slow
def test_two_workers_give_what_one_device_gives(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    batch = _batch(5)  # split 3 and 2: the mean weighs each worker's part
    one = compiled(PROGRAM.format(devices="cpu"), tmp_path / "one.ss")
    expected = [one.piped_mean(batch), one.piped_sum(batch), one.gram(batch)]
    two = compiled(PROGRAM.format(devices="cpu[0 1]"), tmp_path / "two.ss")
    try:
        got = [two.piped_mean(batch), two.piped_sum(batch), two.gram(batch)]
        assert len(two._ss_program.pids()) == 2
    finally:
        two._ss_program.stop()
    for mine, theirs in zip(expected, got, strict=True):
        assert torch.allclose(theirs, mine, atol=1e-6), (mine, theirs)
