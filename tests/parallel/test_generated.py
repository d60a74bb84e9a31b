"""What the compiler makes of a program on several devices, without starting workers."""

from __future__ import annotations

from shapescript.analysis import check
from shapescript.codegen import generate
from shapescript.rt.parallel.controller import split_sizes
from shapescript.syntax.source import SourceFile
from tests.parallel.programs import readme_on


def _source(devices_text: str) -> str:
    text = readme_on(devices_text)
    return generate(check(SourceFile.from_text("train.ss", text))).source


def test_a_batch_is_split_as_evenly_as_possible_the_first_workers_taking_one_more() -> None:
    assert split_sizes(64, 3) == [22, 21, 21]
    assert split_sizes(36, 3) == [12, 12, 12]
    assert split_sizes(2, 3) == [1, 1, 0]


def test_functions_on_the_workers_are_called_on_every_worker() -> None:
    source = _source("cpu[0 1 2]")
    assert "_ss_program = _ss_parallel.Program(__file__, 'cpu[0 1 2]', globals())" in source
    assert (
        "train_step = _ss_program.remote(train_step, 'train_step', {'batch': None}, None, "
        "('m', 'opt'), 'train.ss:54:4')"
    ) in source
    assert "forward = _ss_program.remote(forward, 'forward', {'x': 0}, 0, ()" in source
    # Functions in the controller stay as they are.
    assert "run = _ss_program" not in source
    assert "fit = _ss_program" not in source


def test_operations_across_the_batch_are_all_reduces() -> None:
    source = _source("cpu[0 1 2]")
    assert "return _ss_collectives.all_mean(_ss_F.cross_entropy(" in source
    assert "_ss_collectives.all_mean(hits.to(_ss_f32).mean(), 'train.ss:" in source


def test_one_device_has_no_workers() -> None:
    source = _source("cpu")
    assert "_ss_parallel" not in source
    assert "_ss_collectives" not in source


def test_split_h_names_the_dim_and_the_split_params_for_the_workers() -> None:
    text = (
        "devices cpu[0 1 2]\n    split H\n\ndim H = 12\ndim D = 4\n\n"
        "model M:\n    param w: [H D] = zeros\n    param v: [D D] = zeros\n\n"
        "fn twice(m: M) -> [H D] = m.w * 2\n"
    )
    checked = check(SourceFile.from_text("split.ss", text))
    assert checked.errors == []
    source = generate(checked).source
    assert "_ss_split_heads = ('H', {'M': {'w': 0}})" in source
    # Its result is every worker's heads, joined along H.
    assert "twice = _ss_program.remote(twice, 'twice', {}, 0, (), " in source


def test_a_parameter_split_along_h_is_split_and_checked_against_the_worker_s_share() -> None:
    text = "devices cpu[0 1 2]\n    split H\n\ndim H = 12\n\nfn twice(x: [H]) -> [H] = x * 2\n"
    checked = check(SourceFile.from_text("split.ss", text))
    assert checked.errors == []
    source = generate(checked).source
    assert "twice = _ss_program.remote(twice, 'twice', {'x': 0}, 0, (), " in source
    # H is read from the argument (a worker's share), not checked against 12.
    assert "H = _ss_s0[0]" in source
    assert "!= 12" not in source
