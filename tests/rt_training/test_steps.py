"""`update`'s usual path (`rt.steps`): torch's step bit for bit, and never half done."""

from __future__ import annotations

import signal
from collections.abc import Callable

import pytest
import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

from shapescript import ShapeError
from shapescript.rt import steps
from shapescript.rt.gradients import Grad, value_and_grad
from shapescript.rt.models import Field, Model, params_of
from shapescript.rt.optimizers import Optimizer, adamw, cosine, sgd, update, warmup
from tests.rt_training.nets import Tiny, tiny_loss


class Mixed(Model):
    """Params of every float dtype torch's CPU optimizers step."""

    _ss_fields = (
        Field("w", "param", (3, 2), "f32", ("normal", {"mean": 0.0, "std": 1.0})),
        Field("v", "param", (5,), "f64", ("normal", {"mean": 0.0, "std": 1.0})),
        Field("h", "param", (4,), "bf16", ("uniform", {"lo": -1.0, "hi": 1.0})),
        Field("q", "param", (2, 2), "f16", ("uniform", {"lo": -1.0, "hi": 1.0})),
    )


def _random_grad(model: type[Model], seed: int) -> Grad:
    """A gradient of normal values in each field's shape and dtype."""
    generator = torch.Generator().manual_seed(seed)
    values = {
        field.name: torch.randn(field.shape, generator=generator).to(field.torch_dtype)
        for field in model._ss_fields
    }
    return Grad(model, values)


def _mixed_grad(step: int) -> Grad:
    return _random_grad(Mixed, 100 + step)


ADAMW_OPTIONS = [
    {},
    {"weight_decay": 0.0},
    {"amsgrad": True},
    {"maximize": True, "weight_decay": 0.1},
    {"beta1": 0.8, "beta2": 0.99, "eps": 1e-6, "amsgrad": True},
]
SGD_OPTIONS = [
    {},
    {"momentum": 0.9},
    {"momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01},
    {"momentum": 0.9, "nesterov": True},
    {"maximize": True, "weight_decay": 0.1},
]


def _torch_optimizer(make, params: list[torch.Tensor], options: dict) -> torch.optim.Optimizer:
    if make is adamw:
        options = dict(options)
        betas = (options.pop("beta1", 0.9), options.pop("beta2", 0.999))
        return torch.optim.AdamW(params, lr=0.0, betas=betas, **options)
    return torch.optim.SGD(params, lr=0.0, **options)


def _state_tensors(opt: torch.optim.Optimizer, params: list[torch.Tensor]) -> list:
    return [(key, value.clone()) for param in params for key, value in opt.state[param].items()]


def _same_state(first: list, second: list) -> bool:
    return len(first) == len(second) and all(
        a_key == b_key and a.dtype == b.dtype and torch.equal(a, b)
        for (a_key, a), (b_key, b) in zip(first, second, strict=True)
    )


def _step_both(
    m: Model,
    opt: Optimizer,
    torch_opt: torch.optim.Optimizer,
    reference: list[torch.Tensor],
    g: Grad,
    lr: float,
) -> None:
    """`update` on `m` and torch's own step on `reference` with the same gradient and rate;
    asserts the params and the state come out the same, bit for bit."""
    update(m, opt, g)
    for group in torch_opt.param_groups:
        group["lr"] = lr
    for param, value in zip(reference, g.values(), strict=True):
        param.grad = value.clone()
    torch_opt.step()
    for mine, theirs in zip(m.parameters(), reference, strict=True):
        assert mine.dtype == theirs.dtype and torch.equal(mine, theirs)
    mine_state = _state_tensors(opt.torch, list(m.parameters()))
    assert _same_state(mine_state, _state_tensors(torch_opt, reference))


@pytest.mark.parametrize(
    ("make", "options"),
    [(adamw, options) for options in ADAMW_OPTIONS] + [(sgd, options) for options in SGD_OPTIONS],
)
def test_the_staged_step_is_torchs_bit_for_bit(make, options: dict) -> None:
    m = Mixed.init(seed=0)
    schedule = warmup(2, cosine(0.05, 5))
    opt = make(m, lr=schedule, **options)
    reference = [p.detach().clone().requires_grad_() for p in m.parameters()]
    torch_opt = _torch_optimizer(make, reference, options)
    for step in range(7):
        g = _mixed_grad(step)
        assert steps.supported(opt.torch, params_of(m), g.values())
        _step_both(m, opt, torch_opt, reference, g, schedule(step))
    assert opt.steps == 7 and opt.torch.param_groups[0]["lr"] == schedule(6)
    assert all(p.grad is None for p in m.parameters())


class Many(Model):
    """Many params per dtype, so each multi-tensor op steps a list (f32, f64), and the ones
    that can't (f16, bf16) step one by one beside them."""

    _ss_fields = tuple(
        Field(f"w{index}", "param", shape, dtype, ("normal", {"mean": 0.0, "std": 1.0}))
        for index, (shape, dtype) in enumerate(
            [
                ((7, 5), "f32"),
                ((5,), "f32"),
                ((3, 4, 2), "f32"),
                ((1,), "f32"),
                ((6,), "f16"),
                ((4, 4), "f64"),
                ((9,), "f64"),
                ((3, 3), "bf16"),
                ((64,), "f32"),
            ]
        )
    )


@pytest.mark.parametrize("options", ADAMW_OPTIONS)
def test_many_params_of_each_dtype_step_as_torch_does_bit_for_bit(options: dict) -> None:
    m = Many.init(seed=1)
    opt = adamw(m, lr=0.01, **options)
    reference = [p.detach().clone().requires_grad_() for p in m.parameters()]
    torch_opt = _torch_optimizer(adamw, reference, options)
    for step in range(6):
        _step_both(m, opt, torch_opt, reference, _random_grad(Many, 200 + step), 0.01)


def _tiny_grad(m: Tiny, step: int) -> Grad:
    x = torch.randn(8, 3, generator=torch.Generator().manual_seed(step))
    return value_and_grad(tiny_loss, m, x)[1]


def _snapshot(m: Model, opt: Optimizer) -> tuple:
    params = [p.detach().clone() for p in m.parameters()]
    state = _state_tensors(opt.torch, list(m.parameters()))
    return params, state, opt.steps, opt.torch.param_groups[0]["lr"]


def _same(first: tuple, second: tuple) -> bool:
    params_a, state_a, *rest_a = first
    params_b, state_b, *rest_b = second
    return (
        all(torch.equal(a, b) for a, b in zip(params_a, params_b, strict=True))
        and _same_state(state_a, state_b)
        and rest_a == rest_b
    )


MAKERS = [
    pytest.param(lambda m: adamw(m, lr=warmup(1, 0.1), amsgrad=True), id="adamw-amsgrad"),
    pytest.param(lambda m: adamw(m, lr=0.1, weight_decay=0.0), id="adamw"),
    pytest.param(lambda m: sgd(m, lr=0.1, momentum=0.9, weight_decay=0.01), id="sgd-momentum"),
]


def _fail_on_call(number: int, error: BaseException) -> Callable[..., None]:
    """A stand-in for `steps._check` that raises `error` on its `number`th call."""
    calls = [0]
    real = steps._check

    def check(param: torch.Tensor, tensor: torch.Tensor, written: bool = True) -> None:
        calls[0] += 1
        if calls[0] == number:
            raise error
        real(param, tensor, written)

    return check


@pytest.mark.parametrize("make", MAKERS)
@pytest.mark.parametrize("error", [RuntimeError("in the middle"), KeyboardInterrupt()])
def test_an_exception_while_the_step_is_worked_out_changes_nothing(
    make, error: BaseException, monkeypatch: pytest.MonkeyPatch
) -> None:
    m, twin = Tiny.init(seed=0), Tiny.init(seed=0)
    opt, reference = make(m), make(twin)
    for step in range(2):
        update(m, opt, _tiny_grad(m, step))
        update(twin, reference, _tiny_grad(twin, step))
    before = _snapshot(m, opt)
    with monkeypatch.context() as patched:
        patched.setattr(steps, "_check", _fail_on_call(6, error))
        with pytest.raises(type(error)):
            update(m, opt, _tiny_grad(m, 2))
    assert _same(_snapshot(m, opt), before)
    assert all(p.grad is None for p in m.parameters())
    for step in range(2, 5):
        update(m, opt, _tiny_grad(m, step))
        update(twin, reference, _tiny_grad(twin, step))
        assert _same(_snapshot(m, opt), _snapshot(twin, reference))


def _interrupt_after_op(monkeypatch: pytest.MonkeyPatch, number: int) -> None:
    """Make the `number`th op of the next step send SIGINT right after it runs."""
    real = steps.Prepared.write
    seen = [0]

    def write(self: steps.Prepared, tensors: list[torch.Tensor], function, *args, **kw) -> None:
        seen[0] += 1
        if seen[0] == number:
            real_function = function

            def function(*args: object, **kw: object) -> object:
                result = real_function(*args, **kw)
                signal.raise_signal(signal.SIGINT)
                return result

        real(self, tensors, function, *args, **kw)

    monkeypatch.setattr(steps.Prepared, "write", write)


def _interrupted_step(make, number: int) -> bool:
    """Whether SIGINT after the `number`th op of a model's second step finished that step.

    False when the step has fewer ops; raises AssertionError where it ends any other way.
    """
    m, twin = Tiny.init(seed=0), Tiny.init(seed=0)
    opt, reference = make(m), make(twin)
    update(m, opt, _tiny_grad(m, 0))
    update(twin, reference, _tiny_grad(twin, 0))
    # Ctrl-C as Python handles it by default: a test run earlier in this process (a
    # kernel, an event loop) may have left another SIGINT handler in place.
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.MonkeyPatch.context() as patched:
            _interrupt_after_op(patched, number)
            try:
                update(m, opt, _tiny_grad(m, 1))
            except KeyboardInterrupt:
                interrupted = True
            else:
                interrupted = False
    finally:
        signal.signal(signal.SIGINT, handler)
    update(twin, reference, _tiny_grad(twin, 1))
    assert _same(_snapshot(m, opt), _snapshot(twin, reference))
    assert opt.steps == 2
    update(m, opt, _tiny_grad(m, 2))
    update(twin, reference, _tiny_grad(twin, 2))
    assert _same(_snapshot(m, opt), _snapshot(twin, reference))
    return interrupted


@pytest.mark.parametrize("make", MAKERS)
def test_an_interrupt_after_any_op_of_a_step_finishes_it_then_raises(make) -> None:
    number = 1
    while _interrupted_step(make, number):
        number += 1
    assert number > 9


@pytest.mark.parametrize("make", MAKERS)
def test_a_keyboard_interrupt_in_a_step_hook_restores_everything(make) -> None:
    m = Tiny.init(seed=0)
    opt = make(m)
    update(m, opt, _tiny_grad(m, 0))
    before = _snapshot(m, opt)

    def interrupt(optimizer: torch.optim.Optimizer, *_: object) -> None:
        with torch.no_grad():
            m.w.add_(1.0)
        raise KeyboardInterrupt

    handle = opt.torch.register_step_post_hook(interrupt)
    with pytest.raises(KeyboardInterrupt):
        update(m, opt, _tiny_grad(m, 1))
    handle.remove()
    assert _same(_snapshot(m, opt), before)
    assert all(p.grad is None for p in m.parameters())


def test_the_state_tensors_change_in_place_as_torchs_do() -> None:
    m = Tiny.init(seed=0)
    opt = adamw(m, lr=0.1)
    update(m, opt, _tiny_grad(m, 0))
    entry = opt.torch.state[m.w]
    kept = dict(entry)
    values = {key: value.clone() for key, value in kept.items()}
    update(m, opt, _tiny_grad(m, 1))
    assert all(opt.torch.state[m.w][key] is value for key, value in kept.items())
    assert not any(torch.equal(kept[key], values[key]) for key in kept)


def test_state_that_doesnt_fit_its_param_is_refused_before_anything_changes() -> None:
    m = Tiny.init(seed=0)
    opt = adamw(m, lr=0.1)
    update(m, opt, _tiny_grad(m, 0))
    opt.torch.state[m.b]["exp_avg_sq"] = torch.zeros(2, dtype=torch.float64)
    before = _snapshot(m, opt)
    with pytest.raises(ShapeError, match=r"a tensor \[2\] torch.float64 on cpu in the step"):
        update(m, opt, _tiny_grad(m, 1))
    assert _same(_snapshot(m, opt), before)


def test_steps_torch_would_take_differently_go_through_its_step() -> None:
    m = Tiny.init(seed=0)
    opt = adamw(m, lr=0.1)
    params, g = params_of(m), _tiny_grad(m, 0)
    assert steps.supported(opt.torch, params, g.values())
    handle = opt.torch.register_step_pre_hook(lambda *_: None)
    assert not steps.supported(opt.torch, params, g.values())
    handle.remove()
    handle = register_optimizer_step_post_hook(lambda *_: None)
    try:
        assert not steps.supported(opt.torch, params, g.values())
    finally:
        handle.remove()
    foreach = torch.optim.SGD(params, lr=0.1, foreach=True)
    assert not steps.supported(foreach, params, g.values())
    sparse = [g.values()[0].to_sparse(), *g.values()[1:]]
    assert not steps.supported(opt.torch, params, sparse)


def test_a_gradient_sharing_a_params_memory_steps_as_torch_does() -> None:
    m, twin = Tiny.init(seed=0), Tiny.init(seed=0)
    opt = adamw(m, lr=0.1)
    reference = [p.detach().clone().requires_grad_() for p in twin.parameters()]
    torch_opt = torch.optim.AdamW(reference, lr=0.1)
    update(m, opt, Grad(Tiny, {name: getattr(m, name).detach() for name in Tiny._ss_params}))
    for param in reference:
        param.grad = param.detach()
    torch_opt.step()
    assert all(torch.equal(a, b) for a, b in zip(m.parameters(), reference, strict=True))


def _fused_reference(params: list[torch.Tensor], options: dict) -> torch.optim.Optimizer:
    options = dict(options)
    betas = (options.pop("beta1", 0.9), options.pop("beta2", 0.999))
    return torch.optim.AdamW(params, lr=0.0, betas=betas, fused=True, **options)


@pytest.mark.parametrize("options", ADAMW_OPTIONS)
def test_a_fused_adamw_steps_as_torchs_fused_adamw_bit_for_bit(options: dict) -> None:
    for model in (Mixed, Many):
        m = model.init(seed=0)
        schedule = warmup(2, cosine(0.05, 5))
        opt = adamw(m, lr=schedule, fused=True, **options)
        assert opt.torch.param_groups[0]["fused"]
        reference = [p.detach().clone().requires_grad_() for p in m.parameters()]
        torch_opt = _fused_reference(reference, options)
        for step in range(5):
            g = _random_grad(model, 300 + step)
            assert steps.supported(opt.torch, params_of(m), g.values())
            _step_both(m, opt, torch_opt, reference, g, schedule(step))
        assert opt.steps == 5


def test_a_fused_adamw_with_param_groups_steps_each_group_at_its_rate() -> None:
    m = Tiny.init(seed=0)
    opt = adamw(m, lr=0.1, fused=True, no_decay="vectors", lr_scale="w=0.5")
    reference = [p.detach().clone().requires_grad_() for p in m.parameters()]
    groups = [
        {"params": [reference[0]], "lr": 0.05, "weight_decay": 0.01},
        {"params": reference[1:], "lr": 0.1, "weight_decay": 0.0},
    ]
    torch_opt = torch.optim.AdamW(groups, lr=0.1, fused=True)
    for step in range(3):
        g = _tiny_grad(m, step)
        update(m, opt, g)
        for param, value in zip(reference, g.values(), strict=True):
            param.grad = value.clone()
        torch_opt.step()
        for mine, theirs in zip(m.parameters(), reference, strict=True):
            assert torch.equal(mine, theirs)


def test_a_fused_step_that_doesnt_fit_changes_nothing() -> None:
    m = Tiny.init(seed=0)
    opt = adamw(m, lr=0.1, fused=True)
    update(m, opt, _tiny_grad(m, 0))
    opt.torch.state[m.b]["exp_avg"] = torch.zeros(3)
    before = _snapshot(m, opt)
    with pytest.raises(ShapeError, match=r"a tensor \[3\] torch.float32 on cpu in the step"):
        update(m, opt, _tiny_grad(m, 1))
    assert _same(_snapshot(m, opt), before)
    opt.torch.state[m.b]["exp_avg"] = torch.zeros(2)
    opt.torch.state[m.w]["step"] = torch.tensor(1.0, dtype=torch.float64)
    with pytest.raises(ShapeError, match="fused AdamW step count"):
        update(m, opt, _tiny_grad(m, 1))


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("exp_avg_sq", lambda: torch.zeros(2, dtype=torch.float64)),
        ("exp_avg", lambda: _inference(torch.zeros(2))),
        ("exp_avg", lambda: torch.nn.Parameter(torch.zeros(2))),
        ("step", lambda: torch.zeros(2)),
        ("step", lambda: _inference(torch.tensor(1.0))),
    ],
    ids=["wrong dtype", "inference", "not a plain tensor", "two counts", "inference count"],
)
def test_fused_state_of_any_kind_that_doesnt_fit_is_refused_before_anything_changes(
    key: str, value
) -> None:
    m = Tiny.init(seed=0)
    opt = adamw(m, lr=0.1, fused=True)
    update(m, opt, _tiny_grad(m, 0))
    opt.torch.state[m.b][key] = value()
    before = _snapshot(m, opt)
    with pytest.raises(ShapeError):
        update(m, opt, _tiny_grad(m, 1))
    assert _same(_snapshot(m, opt), before)


def _inference(tensor: torch.Tensor) -> torch.Tensor:
    with torch.inference_mode():
        return tensor.clone()


FUSED = lambda m: adamw(m, lr=0.1, fused=True)  # noqa: E731


def test_an_interrupt_after_any_op_of_a_fused_step_finishes_it_then_raises() -> None:
    number = 1
    while _interrupted_step(FUSED, number):
        number += 1
    assert number == 3


def test_sigint_during_the_fused_kernel_waits_until_the_versions_say_it_ran(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = torch._fused_adamw_
    m, twin = Tiny.init(seed=0), Tiny.init(seed=0)
    opt, reference = FUSED(m), FUSED(twin)

    def interrupted(*args: object, **kw: object) -> None:
        real(*args, **kw)
        signal.raise_signal(signal.SIGINT)

    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        monkeypatch.setattr(torch, "_fused_adamw_", interrupted)
        with pytest.raises(KeyboardInterrupt):
            update(m, opt, _tiny_grad(m, 0))
    finally:
        signal.signal(signal.SIGINT, handler)
    monkeypatch.undo()
    update(twin, reference, _tiny_grad(twin, 0))
    assert _same(_snapshot(m, opt), _snapshot(twin, reference))
