from __future__ import annotations

import copy

import pytest
import torch

from shapescript import ShapeError
from shapescript.rt.errors import ShapeScriptError
from shapescript.rt.gradients import Grad, value_and_grad
from shapescript.rt.optimizers import (
    Optimizer,
    adamw,
    check_optimizer,
    cosine,
    sgd,
    update,
    warmup,
)
from tests.rt_training.nets import Other, Tiny, tiny_loss

WHERE = {"path": "t.ss", "line": 4, "column": 2, "function": "fit", "parameter": "opt"}


def _x(seed: int = 0) -> torch.Tensor:
    return torch.randn(8, 3, generator=torch.Generator().manual_seed(seed))


def _params(m: Tiny) -> list[torch.Tensor]:
    return [p.detach().clone() for p in m.parameters()]


def _tensors(value: object) -> list[torch.Tensor]:
    """Every tensor in a nested state dict, in order."""
    if isinstance(value, torch.Tensor):
        return [value.clone()]
    if isinstance(value, dict):
        return [t for key in sorted(value, key=str) for t in _tensors(value[key])]
    if isinstance(value, list | tuple):
        return [t for item in value for t in _tensors(item)]
    return []


def _equal(first: list[torch.Tensor], second: list[torch.Tensor]) -> bool:
    return len(first) == len(second) and all(
        torch.equal(a, b) for a, b in zip(first, second, strict=True)
    )


def test_sgd_steps_as_torch_sgd_does() -> None:
    m = Tiny.init(seed=0)
    reference = [p.detach().clone().requires_grad_() for p in m.parameters()]
    options = {"momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01, "nesterov": False}
    opt = sgd(m, lr=0.05, **options)
    torch_opt = torch.optim.SGD(reference, lr=0.05, **options)
    for step in range(5):
        x = _x(step)
        _, g = value_and_grad(tiny_loss, m, x)
        update(m, opt, g)
        torch_opt.zero_grad()
        w, b, _ = reference
        ((x @ w + b) ** 2).mean().backward()
        reference[2].grad = torch.zeros(4)
        torch_opt.step()
        for mine, theirs in zip(m.parameters(), reference, strict=True):
            torch.testing.assert_close(mine, theirs, rtol=0, atol=0)
    assert opt.steps == 5
    assert all(p.grad is None for p in m.parameters())


def test_optimizer_state_says_what_it_is_for() -> None:
    m = Tiny.init(seed=0)
    opt = adamw(m, lr=warmup(2, 1e-3))
    assert isinstance(opt, Optimizer)
    assert (opt.name, opt.model_type, opt.steps) == ("adamw", Tiny, 0)
    assert opt.lr == warmup(2, 1e-3)
    assert isinstance(opt.torch, torch.optim.AdamW)
    assert opt.torch.param_groups[0]["params"] == list(m.parameters())
    assert not opt.torch.param_groups[0]["capturable"]
    assert opt.torch.param_groups[0]["betas"] == (0.9, 0.999)
    assert opt.torch.param_groups[0]["weight_decay"] == 0.01
    assert sgd(m, lr=1).lr == 1.0 and sgd(m, lr=0.1).name == "sgd"


def test_bad_hyperparameters_and_arguments_are_refused() -> None:
    m = Tiny.init(seed=0)
    with pytest.raises(ValueError):
        adamw(m, lr=-1.0)
    with pytest.raises(TypeError, match="number or a schedule"):
        sgd(m, lr=torch.tensor(0.1))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="model first"):
        sgd(torch.zeros(3), lr=0.1)  # type: ignore[arg-type]


def test_update_sets_the_learning_rate_from_the_schedule_at_its_count() -> None:
    m = Tiny.init(seed=0)
    schedule = warmup(2, cosine(0.1, 4))
    opt = sgd(m, lr=schedule)
    seen = []
    opt.torch.register_step_pre_hook(lambda o, a, k: seen.append(o.param_groups[0]["lr"]))
    for step in range(7):
        _, g = value_and_grad(tiny_loss, m, _x(step))
        update(m, opt, g)
    assert seen == [schedule(t) for t in range(7)]


def test_update_refuses_another_models_state_or_gradient() -> None:
    m, other = Tiny.init(seed=0), Other.init(seed=0)
    opt = sgd(m, lr=0.1)
    _, g = value_and_grad(tiny_loss, m, _x())
    with pytest.raises(ShapeError, match=r"SGD\[Tiny\] state can't update a Other"):
        update(other, opt, g)
    with pytest.raises(ShapeError, match=r"Grad\[Other\] can't update a Tiny"):
        update(m, opt, Grad(Other, {"w": torch.ones(3, 2)}))
    with pytest.raises(TypeError, match="gradient third"):
        update(m, opt, {"w": torch.ones(3, 2)})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="optimizer state second"):
        update(m, None, g)  # type: ignore[arg-type]


def _failing_step(m: Tiny, opt: Optimizer, g: Grad, fail: object) -> None:
    before_params, before_state = _params(m), _tensors(opt.torch.state_dict())
    before_steps, before_lr = opt.steps, opt.torch.param_groups[0]["lr"]
    with pytest.raises(RuntimeError, match="in the middle"):
        update(m, opt, g)
    assert _equal(_params(m), before_params)
    assert _equal(_tensors(opt.torch.state_dict()), before_state)
    assert opt.steps == before_steps and opt.torch.param_groups[0]["lr"] == before_lr
    assert all(p.grad is None for p in m.parameters())


@pytest.mark.parametrize("make", [adamw, sgd])
def test_a_step_that_fails_in_the_middle_leaves_params_and_state_as_they_were(make) -> None:
    m = Tiny.init(seed=0)
    opt = make(m, lr=warmup(1, 0.1), **({"momentum": 0.9} if make is sgd else {}))
    _, g = value_and_grad(tiny_loss, m, _x())

    def fail(*_: object) -> None:
        raise RuntimeError("failed in the middle of a step")

    handle = opt.torch.register_step_post_hook(fail)
    _failing_step(m, opt, g, fail)
    assert not opt.torch.state or all(not entry for entry in opt.torch.state.values())
    handle.remove()
    update(m, opt, g)
    update(m, opt, g)
    handle = opt.torch.register_step_post_hook(fail)
    _failing_step(m, opt, g, fail)
    handle.remove()

    def half(optimizer: torch.optim.Optimizer, *_: object) -> None:
        with torch.no_grad():
            m.w.add_(1.0)
        raise RuntimeError("failed in the middle of changing params")

    opt.torch.register_step_pre_hook(half)
    _failing_step(m, opt, g, half)


def test_a_gradient_of_the_wrong_shape_changes_nothing() -> None:
    m = Tiny.init(seed=0)
    opt = adamw(m, lr=0.1)
    _, g = value_and_grad(tiny_loss, m, _x())
    update(m, opt, g)
    before_params, before_state = _params(m), _tensors(opt.torch.state_dict())
    bad = Grad(Tiny, {"w": g.w, "b": g.b, "unused": torch.zeros(5)})
    with pytest.raises(ShapeError, match=r"field unused is \[5\] f32, not \[4\] f32"):
        update(m, opt, bad)
    assert _equal(_params(m), before_params)
    assert _equal(_tensors(opt.torch.state_dict()), before_state)
    assert opt.steps == 1 and all(p.grad is None for p in m.parameters())


def test_state_dict_round_trip_continues_identically() -> None:
    m = Tiny.init(seed=0)
    opt = adamw(m, lr=warmup(3, cosine(0.01, 10)), weight_decay=0.1)
    for step in range(4):
        update(m, opt, value_and_grad(tiny_loss, m, _x(step))[1])
    state = copy.deepcopy(opt.state_dict())
    assert state["optimizer"] == "adamw" and state["model"] == "Tiny"
    assert state["params"] == ["w", "b", "unused"] and state["steps"] == 4
    assert state["lr"] == {
        "schedule": "warmup",
        "steps": 3,
        "then": {"schedule": "cosine", "peak": 0.01, "steps": 10, "end": 0.0},
    }
    assert isinstance(state["torch"]["param_groups"][0]["lr"], float)

    copied = Tiny.init(seed=9)
    copied.load_state_dict(m.state_dict())
    resumed = adamw(copied, lr=0.5)
    resumed.load_state_dict(state)
    assert resumed.steps == 4 and resumed.lr == opt.lr
    for step in range(4, 8):
        update(m, opt, value_and_grad(tiny_loss, m, _x(step))[1])
        update(copied, resumed, value_and_grad(tiny_loss, copied, _x(step))[1])
        assert _equal(_params(m), _params(copied))


def test_state_of_another_optimizer_or_model_is_refused() -> None:
    m = Tiny.init(seed=0)
    adam_state = adamw(m, lr=0.1).state_dict()
    opt = sgd(m, lr=0.1)
    with pytest.raises(ShapeError, match=r"AdamW\[Tiny\] state into SGD\[Tiny\]"):
        opt.load_state_dict(adam_state)
    with pytest.raises(ShapeError, match=r"SGD\[Other\] state into SGD\[Tiny\]"):
        opt.load_state_dict(sgd(Other.init(seed=0), lr=0.1).state_dict())
    with pytest.raises(ShapeError):
        opt.load_state_dict({"steps": 3})


def test_update_moves_the_state_to_another_model_of_the_same_type() -> None:
    first = Tiny.init(seed=0)
    opt = adamw(first, lr=0.01)
    twin = Tiny.init(seed=0)
    reference = adamw(twin, lr=0.01)
    for step in range(3):
        update(first, opt, value_and_grad(tiny_loss, first, _x(step))[1])
        update(twin, reference, value_and_grad(tiny_loss, twin, _x(step))[1])
    second = Tiny.init(seed=5)
    second.load_state_dict(first.state_dict())
    frozen = _params(first)
    for step in range(3, 6):
        update(second, opt, value_and_grad(tiny_loss, second, _x(step))[1])
        update(twin, reference, value_and_grad(tiny_loss, twin, _x(step))[1])
        assert _equal(_params(second), _params(twin))
    assert _equal(_params(first), frozen)
    assert opt.torch.param_groups[0]["params"] == list(second.parameters())
    assert all(p in opt.torch.state for p in second.parameters())


def test_check_optimizer() -> None:
    m = Tiny.init(seed=0)
    check_optimizer(adamw(m, lr=0.1), "adamw", Tiny, WHERE)
    with pytest.raises(ShapeError, match=r"t\.ss:4:2: .*expected AdamW\[Tiny\] .*got SGD\[Tiny\]"):
        check_optimizer(sgd(m, lr=0.1), "adamw", Tiny, WHERE)
    with pytest.raises(ShapeError, match=r"got AdamW\[Other\]"):
        check_optimizer(adamw(Other.init(seed=0), lr=0.1), "adamw", Tiny, WHERE)
    with pytest.raises(ShapeError, match="got float"):
        check_optimizer(0.1, "sgd", Tiny, WHERE)


FUSED_PROGRAM = """\
dim D = 4

model Lin:
    param w: [D D] = normal(std=0.5)

fn loss(m: Lin, x: [b D]) -> [] = x @ m.w |> square |> mean

fn optimizer(m: Lin) -> AdamW[Lin] = adamw(m, lr=0.1, fused=true)

fn step(mut m: Lin, mut opt: AdamW[Lin], x: [b D]) -> []:
    l, g = value_and_grad(loss, m, x)
    update(mut m, mut opt, g)
    return l
"""


def test_a_program_asks_for_the_fused_adamw_and_steps_as_torchs_fused_adamw() -> None:
    import shapescript

    module = shapescript.compile(FUSED_PROGRAM, "fused.ss", devices="cpu")
    m = module.Lin.init(seed=0)
    opt = module.optimizer(m)
    assert opt.torch.param_groups[0]["fused"]
    reference = m.w.detach().clone().requires_grad_()
    torch_opt = torch.optim.AdamW([reference], lr=0.1, fused=True)
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(0))
    for _ in range(3):
        module.step(m, opt, x)
        torch_opt.zero_grad()
        ((x @ reference) ** 2).mean().backward()
        torch_opt.step()
        assert torch.equal(m.w, reference)


def test_fused_is_a_bool() -> None:
    import shapescript

    with pytest.raises(ShapeScriptError, match="E0502.*takes a bool as `fused`"):
        shapescript.compile(
            FUSED_PROGRAM.replace("fused=true", "fused=1"), "fused_int.ss", devices="cpu"
        )
