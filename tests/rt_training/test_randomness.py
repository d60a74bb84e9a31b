from __future__ import annotations

import dataclasses
import hashlib

import pytest
import torch

import shapescript
from shapescript.rt.randomness import (
    CallCounter,
    Eval,
    Mode,
    Train,
    batch_norm,
    check_mode,
    dropout,
)

WHERE = {"path": "t.ss", "line": 7, "column": 3, "function": "forward", "parameter": "mode"}


def test_modes_are_immutable_and_exported_from_shapescript() -> None:
    assert shapescript.Train is Train and shapescript.Eval is Eval and shapescript.Mode is Mode
    mode = Train(seed=3)
    assert isinstance(mode, Mode) and isinstance(Eval, Mode)
    assert mode.training and not Eval.training
    with pytest.raises(dataclasses.FrozenInstanceError):
        mode.seed = 4  # type: ignore[misc]
    assert repr(mode) == "Train(seed=3)" and repr(Eval) == "Eval"
    for seed in (1.0, "1", True, None):
        with pytest.raises(TypeError):
            Train(seed=seed)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Train(3)  # type: ignore[misc]


def test_child_extends_a_training_path_and_eval_stays_eval() -> None:
    mode = Train(seed=1).child("forward#0").child("dropout#1")
    assert mode.path == ("forward#0", "dropout#1")
    assert Train(seed=1).path == ()
    assert Eval.child("forward#0") is Eval


def test_call_counter_keys_count_per_loop_prefix_and_name() -> None:
    calls = CallCounter()
    keys = [
        calls.key("forward"),
        calls.key("dropout"),
        calls.key("forward"),
        calls.key("forward", "4"),
        calls.key("forward", "4"),
        calls.key("forward", "5"),
        calls.key("forward", "4.17"),
        calls.key("dropout"),
    ]
    assert keys == [
        "forward#0",
        "dropout#0",
        "forward#1",
        "forward@4#0",
        "forward@4#1",
        "forward@5#0",
        "forward@4.17#0",
        "dropout#1",
    ]
    assert CallCounter().key("forward") == "forward#0"


def test_dropout_draws_from_the_seed_and_path() -> None:
    x = torch.ones(64, 32)
    base = Train(seed=7).child("forward#0")
    first = dropout(x, 0.5, base.child("dropout#0"))
    again = dropout(x, 0.5, base.child("dropout#0"))
    second = dropout(x, 0.5, base.child("dropout#1"))
    other_call = dropout(x, 0.5, Train(seed=7).child("forward#1").child("dropout#0"))
    other_seed = dropout(x, 0.5, Train(seed=8).child("forward#0").child("dropout#0"))
    assert torch.equal(first, again)
    for different in (second, other_call, other_seed):
        assert not torch.equal(first, different)
    seed = int.from_bytes(hashlib.sha256(b"7/forward#0/dropout#0").digest()[:8], "big")
    keep = torch.rand(64, 32, generator=torch.Generator().manual_seed(seed)) >= 0.5
    assert torch.equal(first, keep * 2.0)


def test_dropout_keeps_the_mean_dtype_and_shape() -> None:
    x = torch.ones(200, 200, dtype=torch.bfloat16)
    y = dropout(x, 0.25, Train(seed=0).child("dropout#0"))
    assert y.dtype == torch.bfloat16 and y.shape == x.shape
    assert abs((y == 0).float().mean().item() - 0.25) < 0.01
    kept = torch.tensor(1 / 0.75, dtype=torch.bfloat16)
    assert torch.equal(y.unique(), torch.stack([torch.zeros((), dtype=torch.bfloat16), kept]))


def test_dropout_with_eval_returns_its_input() -> None:
    x = torch.randn(3, 4)
    assert dropout(x, 0.5, Eval) is x


def test_dropout_leaves_the_global_random_state_alone() -> None:
    before = torch.get_rng_state()
    dropout(torch.ones(10, 10), 0.3, Train(seed=1).child("dropout#0"))
    assert torch.equal(before, torch.get_rng_state())


def test_gradients_flow_through_the_values_dropout_keeps() -> None:
    x = torch.ones(50, requires_grad=True)
    y = dropout(x, 0.2, Train(seed=2).child("dropout#0"))
    y.sum().backward()
    assert x.grad is not None
    assert torch.equal(x.grad, (y.detach() != 0) / 0.8)


def test_dropout_refuses_p_outside_0_to_1_and_non_modes() -> None:
    for p in (-0.1, 1.0, 1.5):
        with pytest.raises(ValueError, match="p is at least 0"):
            dropout(torch.ones(3), p, Eval)
    with pytest.raises(TypeError, match="mode"):
        dropout(torch.ones(3), 0.5, True)  # type: ignore[arg-type]


@pytest.mark.parametrize("shape", [(8, 5), (4, 5, 6), (2, 5, 3, 3)])
def test_batch_norm_matches_torch_in_both_modes(shape: tuple[int, ...]) -> None:
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=generator)
    weight, bias = torch.randn(5, generator=generator), torch.randn(5, generator=generator)
    mean, var = torch.randn(5, generator=generator), torch.rand(5, generator=generator) + 0.5
    train = batch_norm(x, Train(seed=0), over=1, weight=weight, bias=bias)
    expected = torch.nn.functional.batch_norm(x, None, None, weight, bias, training=True)
    torch.testing.assert_close(train, expected, rtol=0, atol=0)
    evaluated = batch_norm(
        x, Eval, over=1, weight=weight, bias=bias, running_mean=mean, running_var=var, eps=1e-3
    )
    expected = torch.nn.functional.batch_norm(x, mean, var, weight, bias, training=False, eps=1e-3)
    torch.testing.assert_close(evaluated, expected, rtol=0, atol=0)


def test_batch_norm_over_the_last_axis_keeps_running_stats_unchanged() -> None:
    x = torch.randn(6, 4, 5)
    mean, var = torch.zeros(5), torch.ones(5)
    y = batch_norm(x, Train(seed=0), over=-1, running_mean=mean, running_var=var)
    flat = x.reshape(-1, 5)
    expected = (flat - flat.mean(0)) / torch.sqrt(flat.var(0, unbiased=False) + 1e-5)
    torch.testing.assert_close(y.reshape(-1, 5), expected)
    assert torch.equal(mean, torch.zeros(5)) and torch.equal(var, torch.ones(5))
    torch.testing.assert_close(
        batch_norm(x, Eval, over=-1, running_mean=mean, running_var=var), x / (1 + 1e-5) ** 0.5
    )


def test_batch_norm_with_eval_needs_running_stats() -> None:
    with pytest.raises(ValueError, match="running_mean and running_var"):
        batch_norm(torch.randn(4, 3), Eval, over=1)
    with pytest.raises(ValueError, match="over=2"):
        batch_norm(torch.randn(4, 3), Train(seed=0), over=2)


def test_check_mode() -> None:
    check_mode(Eval, WHERE)
    check_mode(Train(seed=1), WHERE)
    with pytest.raises(TypeError, match=r"t\.ss:7:3: in fn forward, .*expected a Mode.*got str"):
        check_mode("train", WHERE)
