"""Overloaded and generic functions compiled and run: each overload and instance its own
Python function, the plain name a dispatcher for Python, and one generic step training
two models as their own hand-written steps do.

The models here take tensors, not `[b] Ex` batches: batch parameters compile with the
data records, which come separately.
"""

from __future__ import annotations

import pytest
import torch

from shapescript.rt.errors import ShapeError
from shapescript.rt.optimizers import sgd
from shapescript.rt.randomness import Eval, Train
from tests.codegen.compiled import build, load

TWO_MODELS = """\
dim D = 8
dim Hd = 16
dim C = 3

model Linear:
    param w: [D C] = normal(std=0.3)
    param b: [C] = zeros

model Mlp:
    param w1: [D Hd] = normal(std=0.3)
    param w2: [Hd C] = normal(std=0.3)

fn forward(m: Linear, x: [b D], mode: Mode) -> [b C] = dropout(x, 0.2, mode) @ m.w + m.b

fn forward(m: Mlp, x: [b D], mode: Mode) -> [b C]:
    h = relu(x @ m.w1) |> dropout(0.2, mode)
    return h @ m.w2

fn loss(m: Linear, x: [b D], y: [b] Index[C], mode: Mode) -> []:
    return cross_entropy(forward(m, x, mode), y, over=C) |> mean

fn loss(m: Mlp, x: [b D], y: [b] Index[C], mode: Mode) -> []:
    return cross_entropy(forward(m, x, mode), y, over=C) |> mean

## One SGD step on any model that has a `loss`.
fn step(mut m: M, mut opt: SGD[M], x: [b D], y: [b] Index[C], mode: Mode) -> []:
    l, g = value_and_grad(loss, m, x, y, mode)
    update(mut m, mut opt, g)
    return l

fn train_linear(mut m: Linear, mut opt: SGD[Linear], x: [b D], y: [b] Index[C], mode: Mode) -> []:
    return step(mut m, mut opt, x, y, mode)

fn train_mlp(mut m: Mlp, mut opt: SGD[Mlp], x: [b D], y: [b] Index[C], mode: Mode) -> []:
    return step(mut m, mut opt, x, y, mode)

fn by_hand_linear(mut m: Linear, mut opt: SGD[Linear], x: [b D], y: [b] Index[C], mode: Mode) -> []:
    l, g = value_and_grad(loss, m, x, y, mode)
    update(mut m, mut opt, g)
    return l

fn by_hand_mlp(mut m: Mlp, mut opt: SGD[Mlp], x: [b D], y: [b] Index[C], mode: Mode) -> []:
    l, g = value_and_grad(loss, m, x, y, mode)
    update(mut m, mut opt, g)
    return l

fn never_called(m: M, x: [D]) -> [D] = x
"""


def _batches(steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(7)
    return [
        (torch.randn(16, 8, generator=generator), torch.randint(0, 3, (16,), generator=generator))
        for _ in range(steps)
    ]


@pytest.mark.parametrize(
    ("model", "generic", "by_hand", "mode"),
    [
        ("Linear", "step", "by_hand_linear", Eval),
        ("Mlp", "step", "by_hand_mlp", Eval),
        ("Linear", "step", "by_hand_linear", Train(seed=3)),
        ("Mlp", "step", "by_hand_mlp", Train(seed=3)),
        # Called from ShapeScript, the call of step is one more step of a mode's path, so
        # dropout would draw other masks than the hand-written step's: Eval only.
        ("Linear", "train_linear", "by_hand_linear", Eval),
        ("Mlp", "train_mlp", "by_hand_mlp", Eval),
    ],
    ids=["linear", "mlp", "linear-train", "mlp-train", "linear-from-ss", "mlp-from-ss"],
)
def test_one_generic_step_trains_each_model_as_its_own_step_does(
    model: str, generic: str, by_hand: str, mode
) -> None:
    module = load(TWO_MODELS, "two_models.ss")
    cls = getattr(module, model)
    first, second = cls.init(seed=0), cls.init(seed=0)
    first_opt, second_opt = sgd(first, lr=0.5), sgd(second, lr=0.5)
    for x, y in _batches(20):
        mine = getattr(module, generic)(first, first_opt, x, y, mode)
        theirs = getattr(module, by_hand)(second, second_opt, x, y, mode)
        assert torch.equal(mine, theirs)
    untrained = cls.init(seed=0).state_dict()
    for name, value in first.state_dict().items():
        assert torch.equal(value, second.state_dict()[name]), name
        assert not torch.equal(value, untrained[name]), name


def test_each_overload_and_instance_is_a_function_of_its_own() -> None:
    source = build(TWO_MODELS, "two_models.ss").source
    for name in (
        "_ss_forward__Linear",
        "_ss_forward__Mlp",
        "_ss_loss__Linear",
        "_ss_loss__Mlp",
        "_ss_step__Linear",
        "_ss_step__Mlp",
    ):
        assert f"def {name}(" in source
    # ShapeScript calls them directly, through their unchecked copies; the plain names
    # are for Python.
    assert "value_and_grad(_ss_in_loss__Mlp, m" in source
    assert "return _ss_in_step__Linear(m, opt, x, y" in source
    assert "_ss_never_called__" not in source


def test_python_calls_the_overload_for_its_first_arguments_model() -> None:
    module = load(TWO_MODELS, "two_models.ss")
    linear, mlp = module.Linear.init(seed=0), module.Mlp.init(seed=0)
    x = torch.randn(5, 8)
    torch.testing.assert_close(module.forward(linear, x, Eval), x @ linear.w + linear.b)
    expected = torch.relu(x @ mlp.w1) @ mlp.w2
    torch.testing.assert_close(module.forward(m=mlp, x=x, mode=Eval), expected)
    with pytest.raises(TypeError, match="first argument's model, one of Linear, Mlp; got Tensor"):
        module.forward(x, x, Eval)


def test_python_calls_the_instance_for_its_model_arguments_class() -> None:
    module = load(TWO_MODELS, "two_models.ss")
    mlp = module.Mlp.init(seed=0)
    twin = module.Mlp.init(seed=0)
    x, y = _batches(1)[0]
    value = module.step(mlp, sgd(mlp, lr=0.5), x, y, Eval)
    assert torch.equal(value, module.by_hand_mlp(twin, sgd(twin, lr=0.5), x, y, Eval))
    assert torch.equal(mlp.w1, twin.w1)
    with pytest.raises(TypeError, match="no instance for Tensor"):
        module.step(x, None, x, y, Eval)
    with pytest.raises(TypeError, match="no ShapeScript code calls"):
        module.never_called(mlp, torch.zeros(8))


def test_an_instance_checks_its_arguments_as_the_generic_function() -> None:
    module = load(TWO_MODELS, "two_models.ss")
    mlp = module.Mlp.init(seed=0)
    x, y = _batches(1)[0]
    with pytest.raises(ShapeError) as raised:
        module.step(mlp, sgd(mlp, lr=0.5), x[:, :5], y, Eval)
    assert raised.value.function == "step"
    assert (
        raised.value.line
        == TWO_MODELS.split("\n").index(
            "fn step(mut m: M, mut opt: SGD[M], x: [b D], y: [b] Index[C], mode: Mode) -> []:"
        )
        + 1
    )
    linear = module.Linear.init(seed=0)
    with pytest.raises(ShapeError, match="Linear"):
        module.train_mlp(linear, sgd(linear, lr=0.5), x, y, Eval)


REFERENCE_STEP = """\
dim D = 8
dim C = 3

model A:
    param w: [D C] = normal(std=0.1)

fn loss(m: A, x: [b D], y: [b] Index[C]) -> []:
    return cross_entropy(x @ m.w, y, over=C) |> mean

## One SGD step on any model that has a `loss`.
fn step(mut m: M, mut opt: SGD[M], x: [b D], y: [b] Index[C]) -> []:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    return l

fn train(mut m: A, x: [b D], y: [b] Index[C]) -> []:
    opt = sgd(m, lr=0.1)
    return step(mut m, mut opt, x, y)
"""


def test_the_reference_generic_step_runs() -> None:
    module = load(REFERENCE_STEP, "reference_step.ss")
    m = module.A.init(seed=0)
    before = m.w.detach().clone()
    x, y = _batches(1)[0]
    reference = before.clone().requires_grad_()
    expected = torch.nn.functional.cross_entropy(x @ reference, y)
    expected.backward()
    value = module.train(m, x, y)
    torch.testing.assert_close(value, expected.detach())
    torch.testing.assert_close(m.w, before - 0.1 * reference.grad)
    assert module.step.__doc__.startswith("One SGD step on any model that has a `loss`.")
