"""Parameter groups from Python: `no_decay` and `lr_scale` of `adamw` and `sgd` step as
torch.optim does with the same param groups, and are kept by state_dict, load_state_dict,
save and load."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript.rt.gradients import value_and_grad
from shapescript.rt.models import Field, Model
from shapescript.rt.optimizers import Optimizer, adamw, cosine, learning_rate, sgd, update

STEPS = 10


class Net(Model):
    """Two matrices, a bias and a norm weight, named as nanoGPT names its kinds of param."""

    _ss_fields = (
        Field("wte", "param", (5, 3), "f32", ("normal", {"mean": 0.0, "std": 1.0})),
        Field("b", "param", (2,), "f32", ("uniform", {"lo": -1.0, "hi": 1.0})),
        Field("w", "param", (3, 2), "f32", ("normal", {"mean": 0.0, "std": 1.0})),
        Field("ln_w", "param", (2,), "f32", ("full", {"value": 1.5})),
    )


def net_loss(m: Net, x: torch.Tensor) -> torch.Tensor:
    return (((x @ m.wte) @ m.w + m.b) * m.ln_w).pow(2).mean()


def _x(step: int) -> torch.Tensor:
    return torch.randn(8, 5, generator=torch.Generator().manual_seed(step))


def _reference_groups(params: dict[str, torch.Tensor], peak: float) -> list[dict]:
    """The groups nanoGPT's rule and a slower embedding give, written for torch.optim."""
    return [
        {"params": [params["wte"]], "lr": peak * 0.1, "scale": 0.1},
        {"params": [params["b"], params["ln_w"]], "weight_decay": 0.0, "lr": peak, "scale": 1.0},
        {"params": [params["w"]], "lr": peak, "scale": 1.0},
    ]


def _torch_steps(make, options: dict, schedule, count: int) -> tuple[dict, torch.optim.Optimizer]:
    m = Net.init(seed=0)
    params = {name: p.detach().clone().requires_grad_() for name, p in m.named_parameters()}
    groups = _reference_groups(params, learning_rate(schedule, 0))
    scales = [group.pop("scale") for group in groups]
    opt = make(groups, lr=learning_rate(schedule, 0), **options)
    for step in range(count):
        for group, scale in zip(opt.param_groups, scales, strict=True):
            group["lr"] = learning_rate(schedule, step) * scale
        opt.zero_grad()
        net_loss(type("P", (), params), _x(step)).backward()
        opt.step()
    return params, opt


def _state_by_name(opt: torch.optim.Optimizer, params: dict[str, torch.Tensor]) -> dict:
    return {name: opt.state[param] for name, param in params.items()}


def _assert_same(mine: dict, theirs: dict) -> None:
    assert mine.keys() == theirs.keys()
    for name in mine:
        if isinstance(mine[name], dict):
            _assert_same(mine[name], theirs[name])
        else:
            assert torch.equal(mine[name], theirs[name]), name


@pytest.mark.parametrize(
    ("maker", "make", "options"),
    [
        ("adamw", torch.optim.AdamW, {"weight_decay": 0.1, "betas": (0.9, 0.95)}),
        ("sgd", torch.optim.SGD, {"weight_decay": 0.1, "momentum": 0.9, "nesterov": True}),
    ],
)
@pytest.mark.parametrize("through_step", [False, True], ids=["staged", "torch-step"])
def test_groups_step_as_torch_optim_with_the_same_param_groups(
    maker, make, options, through_step
) -> None:
    schedule = cosine(0.01, STEPS)
    theirs, reference = _torch_steps(make, options, schedule, STEPS)
    m = Net.init(seed=0)
    written = dict(options)
    if "betas" in written:
        written["beta1"], written["beta2"] = written.pop("betas")
    opt = {"adamw": adamw, "sgd": sgd}[maker](
        m, lr=schedule, no_decay="vectors", lr_scale="wte=0.1", **written
    )
    if through_step:
        # A step hook sends `update` through torch's own step() rather than the staged one.
        opt.torch.register_step_pre_hook(lambda *_: None)
    for step in range(STEPS):
        update(m, opt, value_and_grad(net_loss, m, _x(step))[1])
    mine = dict(m.named_parameters())
    _assert_same(
        {k: v.detach() for k, v in mine.items()}, {k: v.detach() for k, v in theirs.items()}
    )
    _assert_same(_state_by_name(opt.torch, mine), _state_by_name(reference, theirs))
    settings = [
        (g["weight_decay"], g["lr_scale"], len(g["params"])) for g in opt.torch.param_groups
    ]
    assert settings == [(0.1, 0.1, 1), (0.0, 1.0, 2), (0.1, 1.0, 1)]


def test_python_lists_and_dicts_say_the_same_as_the_text() -> None:
    m = Net.init(seed=0)
    written = adamw(m, lr=0.1, no_decay="b, ln_w", lr_scale="wte=0.1 w = 2")
    given = adamw(m, lr=0.1, no_decay=["b", "ln_w"], lr_scale={"wte": 0.1, "w": 2})
    assert [g["params"] for g in written.torch.param_groups] == [
        g["params"] for g in given.torch.param_groups
    ]
    assert [g["lr"] for g in given.torch.param_groups] == [0.1 * 0.1, 0.1, 0.1 * 2]


def test_a_plain_optimizer_is_one_group_of_every_param() -> None:
    m = Net.init(seed=0)
    for opt in (adamw(m, lr=0.1), sgd(m, lr=0.1, no_decay="", lr_scale="")):
        (group,) = opt.torch.param_groups
        assert group["params"] == list(m.parameters()) and group["lr_scale"] == 1.0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"no_decay": "vectors ln_ww"},
            r"Net has no field `ln_ww` for `no_decay`.*did you mean `ln_w`",
        ),
        ({"lr_scale": "wte"}, r"`wte` has no factor in `lr_scale`"),
        ({"lr_scale": "wte=0.1 matrices=0.5"}, r"`wte` gets two learning-rate factors"),
        ({"lr_scale": {"wte": -1}}, r"`wte=-1` in `lr_scale`"),
    ],
)
def test_options_that_select_wrongly_are_refused(options, message) -> None:
    with pytest.raises(ValueError, match=message):
        adamw(Net.init(seed=0), lr=0.1, **options)


def test_options_of_another_kind_are_a_type_error() -> None:
    with pytest.raises(TypeError, match="no_decay is a string or a list of field paths, not int"):
        adamw(Net.init(seed=0), lr=0.1, no_decay=3)
    with pytest.raises(TypeError, match="lr_scale is a string or a dict"):
        sgd(Net.init(seed=0), lr=0.1, lr_scale=["wte"])


def _run(opt: Optimizer, m: Net, steps: range) -> None:
    for step in steps:
        update(m, opt, value_and_grad(net_loss, m, _x(step))[1])


def test_state_dict_keeps_the_groups_and_a_plain_optimizer_takes_them_back() -> None:
    m = Net.init(seed=0)
    opt = adamw(m, lr=cosine(0.01, 8), weight_decay=0.1, no_decay="vectors", lr_scale="wte=0.1")
    _run(opt, m, range(4))
    state = copy.deepcopy(opt.state_dict())
    groups = state["torch"]["param_groups"]
    assert [g["params"] for g in groups] == [[0], [1, 3], [2]]
    assert [(g["weight_decay"], g["lr_scale"]) for g in groups] == [
        (0.1, 0.1),
        (0.0, 1.0),
        (0.1, 1.0),
    ]
    assert sorted(state["torch"]["state"]) == [0, 1, 2, 3]
    assert state["torch"]["state"][3]["exp_avg"].shape == (2,)

    copied = Net.init(seed=9)
    copied.load_state_dict(m.state_dict())
    resumed = adamw(copied, lr=0.5)
    resumed.load_state_dict(state)
    _run(opt, m, range(4, 8))
    _run(resumed, copied, range(4, 8))
    for mine, theirs in zip(m.parameters(), copied.parameters(), strict=True):
        assert torch.equal(mine, theirs)
    assert [g["lr_scale"] for g in resumed.torch.param_groups] == [0.1, 1.0, 1.0]


def test_save_load_continue_is_an_uninterrupted_run(tmp_path: Path) -> None:
    path = tmp_path / "ckpt.pt"
    straight = Net.init(seed=0)
    opt = sgd(straight, lr=0.05, momentum=0.9, weight_decay=0.1, no_decay="vectors", lr_scale="w=3")
    _run(opt, straight, range(6))

    m = Net.init(seed=0)
    first = sgd(m, lr=0.05, momentum=0.9, weight_decay=0.1, no_decay="vectors", lr_scale="w=3")
    _run(first, m, range(3))
    shapescript.save(path, m, first)
    loaded, again = shapescript.load(path, Net, shapescript.SGD[Net])
    _run(again, loaded, range(3, 6))
    for mine, theirs in zip(loaded.parameters(), straight.parameters(), strict=True):
        assert torch.equal(mine, theirs)
    _assert_same(
        _state_by_name(again.torch, dict(loaded.named_parameters())),
        _state_by_name(opt.torch, dict(straight.named_parameters())),
    )
