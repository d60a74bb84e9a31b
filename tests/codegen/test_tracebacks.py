"""Tracebacks through compiled code name the `.ss` file and line."""

from __future__ import annotations

import traceback

import pytest
import torch

import shapescript
from tests.codegen.compiled import load

PROGRAM = """\
import python torch
dim N = 5
fn load_weights() -> [N 4] f64:
    raw = torch.zeros(N, 3, dtype=torch.float64)
    return raw as [N 4] f64

fn project(x: [b 4] f64) -> [b N] f64:
    w = load_weights()
    return x @ rearrange(w, n d -> d n)

fn broken(x: [b 4] f64) -> [b 4] f64:
    y = x * 2.0
    z = torch.matmul(y, torch.ones(3, 3, dtype=torch.float64))
    return z as [b 4] f64

fn staged(x: [b 4] f64) -> [b 4] f64:
    y = x
        |> mul(2.0)
        |> torch.matmul(torch.ones(3, 3, dtype=torch.float64))
        |> add(1.0)
    return y as [b 4] f64
"""


def ss_frames(error: BaseException) -> list[traceback.FrameSummary]:
    return [
        frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == "trace.ss"
    ]


def test_a_failed_as_inside_a_body_is_raised_from_its_line() -> None:
    module = load(PROGRAM, "trace.ss")
    with pytest.raises(shapescript.ShapeError) as raised:
        module.project(torch.zeros(2, 4, dtype=torch.float64))
    frames = ss_frames(raised.value)
    assert [(frame.name, frame.lineno) for frame in frames] == [("project", 8), ("load_weights", 5)]
    assert frames[-1].line == "return raw as [N 4] f64"
    assert (raised.value.path, raised.value.line, raised.value.function) == (
        "trace.ss",
        5,
        "load_weights",
    )


def test_a_torch_error_inside_a_body_is_raised_from_its_line() -> None:
    module = load(PROGRAM, "trace.ss")
    with pytest.raises(RuntimeError) as raised:
        module.broken(torch.zeros(2, 4, dtype=torch.float64))
    frames = ss_frames(raised.value)
    assert [(frame.name, frame.lineno) for frame in frames] == [("broken", 13)]
    assert frames[-1].line.startswith("z = torch.matmul(")
    line = PROGRAM.splitlines()[12]
    assert (frames[-1].colno, frames[-1].end_colno) == (4, len(line))


def test_an_argument_check_is_raised_from_the_function_line() -> None:
    module = load(PROGRAM, "trace.ss")
    with pytest.raises(shapescript.ShapeError) as raised:
        module.project(torch.zeros(2, 3, dtype=torch.float64))
    assert [frame.lineno for frame in ss_frames(raised.value)] == [7]
    assert (raised.value.line, raised.value.parameter) == (7, "x")


def test_an_error_in_a_stage_of_a_pipe_is_raised_from_the_stage_line() -> None:
    module = load(PROGRAM, "trace.ss")
    with pytest.raises(RuntimeError) as raised:
        module.staged(torch.zeros(2, 4, dtype=torch.float64))
    frames = ss_frames(raised.value)
    assert [(frame.name, frame.lineno) for frame in frames] == [("staged", 19)]
    assert frames[-1].line == "|> torch.matmul(torch.ones(3, 3, dtype=torch.float64))"
