from __future__ import annotations

import math

import pytest
import torch

from shapescript.rt.optimizers import (
    Schedule,
    check_schedule,
    cosine,
    learning_rate,
    schedule_from_state,
    schedule_state,
    warmup,
)

WHERE = {"path": "t.ss", "line": 2, "column": 1, "function": "fit", "parameter": "lr"}


def test_cosine_follows_the_formula_and_stays_at_end() -> None:
    schedule = cosine(3e-3, 90, end=1e-4)
    for t in (0, 1, 45, 89, 90, 91, 500):
        expected = 1e-4 + (3e-3 - 1e-4) * (1 + math.cos(math.pi * min(t, 90) / 90)) / 2
        assert schedule(t) == expected
    assert schedule(0) == 3e-3 and schedule(90) == pytest.approx(1e-4)


def test_cosine_up_to_its_steps_is_cosine_annealing() -> None:
    param = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([param], lr=0.1)
    annealing = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=20, eta_min=0.01)
    schedule = cosine(0.1, 20, end=0.01)
    for t in range(21):
        assert optimizer.param_groups[0]["lr"] == pytest.approx(schedule(t), rel=1e-12)
        optimizer.step()
        annealing.step()


def test_warmup_rises_from_zero_then_starts_its_schedule_afresh() -> None:
    schedule = warmup(10, cosine(3e-3, 90))
    assert [schedule(t) for t in (0, 5)] == [0.0, 3e-3 * 5 / 10]
    assert schedule(10) == 3e-3
    assert schedule(55) == cosine(3e-3, 90)(45)
    assert warmup(4, 0.5)(2) == 0.25 and warmup(4, 0.5)(7) == 0.5
    assert warmup(0, 0.5)(0) == 0.5


def test_a_number_is_a_constant_learning_rate() -> None:
    assert learning_rate(0.1, 0) == learning_rate(0.1, 1000) == 0.1


def test_schedules_check_their_arguments() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        cosine(0.1, 0)
    with pytest.raises(ValueError, match="at least 0"):
        warmup(-1, 0.1)
    with pytest.raises(TypeError):
        cosine(0.1, 10.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cosine("0.1", 10)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="number or a schedule"):
        warmup(10, torch.tensor(0.1))  # type: ignore[arg-type]


def test_a_schedule_round_trips_through_its_state() -> None:
    schedule = warmup(10, cosine(3e-3, 90, end=1e-5))
    state = schedule_state(schedule)
    assert state == {
        "schedule": "warmup",
        "steps": 10,
        "then": {"schedule": "cosine", "peak": 3e-3, "steps": 90, "end": 1e-5},
    }
    assert schedule_from_state(state) == schedule
    assert schedule_state(0.1) == 0.1 and schedule_from_state(0.1) == 0.1
    with pytest.raises(ValueError):
        schedule_from_state({"schedule": "linear"})


def test_check_schedule() -> None:
    check_schedule(cosine(0.1, 10), WHERE)
    check_schedule(0.1, WHERE)
    check_schedule(1, WHERE)
    assert isinstance(cosine(0.1, 10), Schedule)
    with pytest.raises(TypeError, match=r"t\.ss:2:1: in fn fit, .*expected a Schedule"):
        check_schedule(torch.tensor(0.1), WHERE)
