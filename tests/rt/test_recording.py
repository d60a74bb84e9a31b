"""The decisions of recorded steps (rt/recording.py), with a fake recorder."""

from __future__ import annotations

import warnings
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from shapescript.rt import randomness, recording


class FakeGraph:
    def __init__(self, recorder: FakeRecorder, step, key: tuple) -> None:
        self.recorder, self.step, self.key = recorder, step, key

    def replay(self, args: tuple, kwargs: dict[str, Any]) -> Any:
        self.recorder.replayed.append(self.key)
        return self.step(*args, **kwargs)


class FakeRecorder:
    """Records by remembering the signature; fails on shapes it's told to fail on."""

    def __init__(self, fail_on: int | None = None, decline: str | None = None) -> None:
        self.fail_on = fail_on
        self.decline = decline
        self.recorded: list[tuple] = []
        self.replayed: list[tuple] = []
        self.warmed = 0

    def why_not(self, args, kwargs):
        return self.decline

    def warm_up(self, step, args, kwargs):
        self.warmed += 1
        return step(*args, **kwargs)

    def record(self, step, args, kwargs, draws):
        if self.fail_on is not None and args[0].shape[0] == self.fail_on:
            raise RuntimeError("operation not permitted when stream is capturing")
        key = recording.signature(args, kwargs)
        self.recorded.append(key)
        self.draws = draws
        if draws:
            return SeededGraph(self, step, key, draws)
        return FakeGraph(self, step, key)


class SeededGraph(FakeGraph):
    """Replays as the CUDA graph does its draws: one generator per logged draw, seeded
    before each replay from the call's own mode, handed out in order."""

    def __init__(self, recorder, step, key, draws) -> None:
        super().__init__(recorder, step, key)
        self.draws = draws
        self.generators = [torch.Generator(device=draw.device) for draw in draws]

    def replay(self, args, kwargs):
        self.recorder.replayed.append(self.key)
        for generator, seed in zip(
            self.generators, recording.draw_seeds(self.draws, args, kwargs), strict=True
        ):
            generator.manual_seed(seed)
        supply = recording.DrawSupply(self.generators)
        with randomness.drawing(supply):
            result = self.step(*args, **kwargs)
        supply.check()
        return result


def doubled(x: torch.Tensor, scale: float = 2.0) -> torch.Tensor:
    return x * scale


def make(recorder: FakeRecorder) -> recording.RecordedStep:
    return recording.RecordedStep(doubled, "doubled", "t.ss:1:1", recorder)


def test_signatures_tell_shapes_dtypes_and_host_values_apart() -> None:
    one = recording.signature((torch.zeros(2, 3),), {})
    assert one == recording.signature((torch.ones(2, 3),), {})
    assert one != recording.signature((torch.zeros(3, 3),), {})
    assert one != recording.signature((torch.zeros(2, 3, dtype=torch.float64),), {})
    assert recording.signature((torch.zeros(2),), {"scale": 1.0}) != recording.signature(
        (torch.zeros(2),), {"scale": 3.0}
    )


def test_a_step_warms_up_then_records_once_per_signature_and_replays() -> None:
    recorder = FakeRecorder()
    step = make(recorder)
    for size in (4, 4, 4, 2, 2):
        assert torch.equal(step(torch.ones(size)), torch.full((size,), 2.0))
    assert recorder.warmed == 1
    assert len(recorder.recorded) == 2
    assert step.stats.replays == 4 and step.stats.as_is == 1


def test_at_most_64_signatures_are_recorded_and_further_calls_run_as_they_are() -> None:
    recorder = FakeRecorder()
    step = make(recorder)
    step(torch.ones(1))
    for size in range(1, 80):
        step(torch.ones(size))
    assert len(recorder.recorded) == recording.LIMIT == 64
    assert step.stats.as_is == 1 + 79 - 64


def test_a_failing_recording_warns_and_the_step_runs_as_it_is_from_then_on() -> None:
    recorder = FakeRecorder(fail_on=3)
    step = make(recorder)
    step(torch.ones(2))
    step(torch.ones(2))
    with pytest.warns(RuntimeWarning, match="couldn't be recorded"):
        assert torch.equal(step(torch.ones(3)), torch.full((3,), 2.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        step(torch.ones(2))
    assert step.failed and step.stats.as_is == 3


def test_where_the_recorder_declines_steps_run_as_they_are_and_say_why() -> None:
    step = make(FakeRecorder(decline="CUDA isn't available: steps run as they are"))
    step(torch.ones(2))
    step(torch.ones(2))
    assert step.stats.as_is == 2 and step.stats.why_not is not None


def test_recording_off_runs_steps_as_they_are() -> None:
    recorder = FakeRecorder()
    step = make(recorder)
    was = recording.record_steps(False)
    try:
        step(torch.ones(2))
        step(torch.ones(2))
    finally:
        recording.record_steps(was)
    assert recorder.warmed == 0 and step.stats.as_is == 2


def test_announced_signatures_are_recorded_ahead_after_the_warm_up() -> None:
    recorder = FakeRecorder()
    step = make(recorder)
    step.announce([((torch.ones(8),), {}), ((torch.ones(5),), {})])
    assert recorder.recorded == []
    step(torch.ones(8))
    assert len(recorder.recorded) == 2
    step(torch.ones(5))
    assert step.stats.replays == 1 and len(recorder.recorded) == 2


def test_the_environment_variable_turns_recording_off(monkeypatch) -> None:
    import importlib

    monkeypatch.setenv("SHAPESCRIPT_RECORD_STEPS", "off")
    fresh = importlib.reload(recording)
    try:
        assert fresh.recording_on() is False
    finally:
        monkeypatch.delenv("SHAPESCRIPT_RECORD_STEPS")
        importlib.reload(recording)
    assert recording.recording_on() is True


def test_on_the_cpu_the_cuda_recorder_declines_with_a_reason() -> None:
    why = recording.CudaRecorder().why_not((torch.ones(2),), {})
    assert why is not None


@pytest.mark.skipif(torch.cuda.is_available(), reason="on CUDA the benchmark records for real")
def test_the_benchmark_says_recording_is_off_and_why_on_the_cpu(capsys) -> None:
    from benchmarks import recorded_steps

    assert recorded_steps.main([]) == 0
    assert "recording is off: CUDA isn't available" in capsys.readouterr().out


def test_a_loops_announced_batch_sizes_are_recorded_ahead_from_the_last_call() -> None:
    from shapescript.rt.data import Batch

    class Ex:
        _ss_name = "Ex"
        _ss_fields = (SimpleNamespace(name="x"),)

    def batch(size: int) -> Batch:
        made = Batch.__new__(Batch)
        made.__dict__.update({"x": torch.ones(size, 2)})
        made._ss_record = Ex
        return made

    def total(b: Batch) -> torch.Tensor:
        return b.x.sum()

    recorder = FakeRecorder()
    step = recording.RecordedStep(total, "total", "t.ss:1:1", recorder)
    step.announce_sizes("Ex", [8, 3])
    assert recorder.recorded == []
    step(batch(8))
    shapes = sorted(key[0][0][2][1][0][1][1] for key in recorder.recorded)
    assert shapes == [(3, 2), (8, 2)]
    step(batch(3))
    assert step.stats.replays == 1 and len(recorder.recorded) == 2


def noisy(x: torch.Tensor, mode: randomness.Mode) -> torch.Tensor:
    """Two dropout draws on their own paths, as compiled code makes them."""
    first = randomness.dropout(x, 0.5, mode.child("forward#0").child("dropout#0"))
    return randomness.dropout(first, 0.25, mode.child("forward#0").child("dropout#1"))


def test_train_steps_record_their_draws_and_replay_the_masks_they_would_have_drawn() -> None:
    recorder = FakeRecorder()
    step = recording.RecordedStep(noisy, "noisy", "t.ss:1:1", recorder)
    x = torch.ones(64)
    results = [step(x, randomness.Train(seed=seed)) for seed in range(4)]
    # The warm-up logs each draw's place among the arguments and its path; later seeds
    # share the one graph, whose replays draw what unrecorded calls would have.
    assert [draw.place for draw in recorder.draws] == [1, 1]
    assert [draw.path for draw in recorder.draws] == [
        ("forward#0", "dropout#0"),
        ("forward#0", "dropout#1"),
    ]
    assert len(recorder.recorded) == 1 and step.stats.replays == 3
    for seed, result in enumerate(results):
        assert torch.equal(result, noisy(x, randomness.Train(seed=seed)))
    assert not torch.equal(results[1], results[2])


def test_a_draw_seed_follows_the_calls_mode_and_path() -> None:
    draws = [recording.Draw("mode", ("dropout#0",), "cpu")]
    mode = randomness.Train(seed=7).child("outer#0")
    (seed,) = recording.draw_seeds(draws, (), {"mode": mode})
    assert seed == mode.child("dropout#0").generator_seed()


def test_a_draw_whose_mode_the_step_isnt_given_keeps_it_from_being_recorded() -> None:
    def own_mode(x: torch.Tensor) -> torch.Tensor:
        return randomness.dropout(x, 0.5, randomness.Train(seed=3))

    recorder = FakeRecorder()
    step = recording.RecordedStep(own_mode, "own_mode", "t.ss:1:1", recorder)
    step(torch.ones(4))
    step(torch.ones(4))
    assert recorder.recorded == [] and step.stats.as_is == 2
    assert step.stats.why_not == "a dropout draw's mode isn't one the step is given"


def test_a_recording_that_draws_differently_from_its_warm_up_fails() -> None:
    supply = recording.DrawSupply([torch.Generator()])
    supply(randomness.Train(seed=1), torch.device("cpu"))
    with pytest.raises(RuntimeError, match="more random numbers"):
        supply(randomness.Train(seed=1), torch.device("cpu"))
    with pytest.raises(RuntimeError, match="fewer random numbers"):
        recording.DrawSupply([torch.Generator()]).check()
