"""Models and training compiled from ShapeScript: the examples' models, a training loop
against hand-written PyTorch, seeds, dropout's call paths and the runtime checks."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from shapescript.rt.errors import ShapeError
from shapescript.rt.gradients import value_and_grad
from shapescript.rt.randomness import Eval, Mode, Train
from tests.codegen.compiled import build, load

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

CLASSIFIER = """\
dim D = 784
dim Hd = 256
dim C = 10

## A two-layer classifier.
model Mlp:
    ## The first layer's weights.
    param w1: [D Hd] = normal(std=0.02)
    param b1: [Hd] = zeros
    param w2: [Hd C] = normal(std=0.02)
    param b2: [C] = zeros

fn forward(m: Mlp, x: [b D], mode: Mode) -> [b C]:
    h = relu(x @ m.w1 + m.b1) |> dropout(0.1, mode)
    return h @ m.w2 + m.b2

fn loss(m: Mlp, x: [b D], y: [b] Index[C], mode: Mode) -> []:
    return cross_entropy(forward(m, x, mode), y, over=C) |> mean

fn optimizer(m: Mlp) -> AdamW[Mlp] = adamw(m, lr=warmup(10, cosine(3e-3, 90)))

fn step(mut m: Mlp, mut opt: AdamW[Mlp], x: [b D], y: [b] Index[C]) -> []:
    l, g = value_and_grad(loss, m, x, y, Eval)
    update(mut m, mut opt, g |> clip_norm(1.0))
    return l
"""


def _example(name: str, **options):
    path = EXAMPLES / name
    return load(path.read_text(), str(path), **options)


def test_attention_example_runs_with_its_model() -> None:
    module = _example("attention.ss")
    layer = module.Attention.init(seed=0)
    assert module.Attention.__doc__ == "The weights of one attention layer."
    assert set(layer.state_dict()) == {"w_qkv", "w_o"}
    x = torch.randn(2, 5, 768)
    out = module.forward(layer, x)
    expected = module.causal_attention(x, layer.w_qkv, layer.w_o)
    assert out.shape == (2, 5, 768)
    torch.testing.assert_close(out, expected)


def test_patchify_example_runs_with_its_model() -> None:
    module = _example("patchify.ss")
    pe = module.PatchEmbed.init(seed=0)
    img = torch.rand(2, 3, 32, 48)
    out = module.embed(pe, img)
    assert out.shape == (2, 6, 768)
    torch.testing.assert_close(out, module.patchify(img, pe.w, pe.bias))
    assert torch.equal(pe.bias, torch.zeros(768))


def _lr(t: int) -> float:
    """warmup(10, cosine(3e-3, 90)), written out."""
    if t < 10:
        return 3e-3 * t / 10
    return 3e-3 * (1 + math.cos(math.pi * min(t - 10, 90) / 90)) / 2


class Reference(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.empty(784, 256))
        self.b1 = torch.nn.Parameter(torch.empty(256))
        self.w2 = torch.nn.Parameter(torch.empty(256, 10))
        self.b2 = torch.nn.Parameter(torch.empty(10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x @ self.w1 + self.b1) @ self.w2 + self.b2


@pytest.mark.parametrize("checks", ["always", "never"])
def test_a_compiled_training_loop_trains_as_the_pytorch_loop_does(checks: str) -> None:
    module = load(CLASSIFIER, "classifier.ss", checks=checks)
    generator = torch.Generator().manual_seed(1234)
    m = module.Mlp.init(seed=0)
    opt = module.optimizer(m)
    reference = Reference()
    reference.load_state_dict(m.state_dict())
    torch_opt = torch.optim.AdamW(reference.parameters(), lr=0.0)
    rng = torch.get_rng_state()
    for t in range(100):
        x = torch.randn(64, 784, generator=generator)
        y = torch.randint(0, 10, (64,), generator=generator)
        value = module.step(m, opt, x, y)

        torch_opt.zero_grad()
        for group in torch_opt.param_groups:
            group["lr"] = _lr(t)
        expected = torch.nn.functional.cross_entropy(reference(x), y)
        expected.backward()
        torch.nn.utils.clip_grad_norm_(reference.parameters(), 1.0)
        torch_opt.step()
        assert abs(value.item() - expected.item()) <= 1e-5, f"step {t}"
    assert opt.steps == 100
    assert torch.equal(rng, torch.get_rng_state())
    assert all(p.grad is None for p in m.parameters())


SEEDED = """\
model A:
    param w: [4 3] = normal(std=1.0)
    param b: [3] = uniform(lo=-1.0, hi=1.0)
    buffer n: [] i64 = full(7)

model B:
    buffer n: [] i64 = full(7)
    param c: [2] = ones
    param b: [3] = uniform(lo=-1.0, hi=1.0)
    param w: [4 3] = normal(std=1.0)

fn make_a(seed: int) -> A = A.init(seed=seed)
"""


def test_seeds_give_the_same_fields_and_reordering_keeps_the_others() -> None:
    module = load(SEEDED, "seeded.ss")
    first, second = module.make_a(3), module.A.init(seed=3)
    for name, value in first.state_dict().items():
        assert torch.equal(value, second.state_dict()[name])
    assert not torch.equal(first.w, module.A.init(seed=4).w)
    other = module.B.init(seed=3)
    assert torch.equal(other.w, first.w)
    assert torch.equal(other.b, first.b)
    assert set(other.state_dict()) == {"n", "c", "b", "w"}


def test_field_assignment_copies_in_place() -> None:
    module = load(
        """\
model A:
    param w: [4 3] = zeros

fn bump(mut a: A, by: float):
    a.w = a.w + by
""",
        "assign.ss",
    )
    a = module.A.init(seed=0)
    param = a.w
    module.bump(a, 2.0)
    assert a.w is param
    assert torch.equal(a.w, torch.full((4, 3), 2.0))


DROPOUT = """\
fn twice(x: [n], mode: Mode) -> [2 n]:
    first = dropout(x, 0.5, mode)
    second = dropout(x, 0.5, mode)
    return stack(first, second, over=k)

fn calls(x: [n], mode: Mode) -> [2 2 n] = stack(twice(x, mode), twice(x, mode), over=c)

fn epochs(x: [n], mode: Mode, lo: int, hi: int) -> [n]:
    total = zeros_like(x)
    for epoch in lo..hi:
        total = total + dropout(x, 0.5, mode) * epoch
    return total
"""


def _masks(values: torch.Tensor) -> list[torch.Tensor]:
    flat = values.reshape(-1, values.shape[-1])
    return [row != 0 for row in flat]


def test_dropouts_in_a_function_and_two_calls_draw_different_masks() -> None:
    module = load(DROPOUT, "dropout.ss")
    x = torch.ones(64)
    rng = torch.get_rng_state()
    masks = _masks(module.calls(x, Train(seed=0)))
    assert len(masks) == 4
    for i in range(4):
        for j in range(i + 1, 4):
            assert not torch.equal(masks[i], masks[j])
    again = _masks(module.calls(x, Train(seed=0)))
    assert all(torch.equal(a, b) for a, b in zip(masks, again, strict=True))
    assert torch.equal(rng, torch.get_rng_state())
    assert torch.equal(module.calls(x, Eval), torch.ones(2, 2, 64))


def test_each_loop_iteration_draws_its_own_mask_keyed_by_its_value() -> None:
    module = load(DROPOUT, "dropout.ss")
    x = torch.ones(64)
    whole = module.epochs(x, Train(seed=1), 3, 5)
    third = module.epochs(x, Train(seed=1), 3, 4)
    fourth = module.epochs(x, Train(seed=1), 4, 5)
    assert torch.equal(whole, third + fourth)
    assert not torch.equal(third / 3 != 0, fourth / 4 != 0)


def test_the_call_paths_are_the_runtimes() -> None:
    generated = build(DROPOUT, "dropout.ss")
    assert "_ss_calls = _ss_rt.randomness.CallCounter()" in generated.source
    assert "mode.child(_ss_calls.key('twice'))" in generated.source
    assert "mode.child(_ss_calls.key('dropout', f'{epoch}'))" in generated.source


def test_wrong_arguments_name_the_parameter_and_the_line() -> None:
    module = load(
        CLASSIFIER
        + """
model Other:
    param w: [3] = zeros

fn norm_of(g: Grad[Mlp]) -> [] = norm(g)

fn grads(m: Other) -> Grad[Other]:
    l, g = value_and_grad(total, m)
    return g

fn total(m: Other) -> [] = sum(m.w)
""",
        "wrong.ss",
    )
    other = module.Other.init(seed=0)
    x = torch.zeros(2, 784)
    with pytest.raises(ShapeError, match=r"wrong.ss:13.*parameter `m`.*Mlp"):
        module.forward(other, x, Eval)
    with pytest.raises(ShapeError, match=r"wrong.ss:\d+.*parameter `g`.*Grad\[Other\]"):
        module.norm_of(module.grads(other))
    with pytest.raises(TypeError, match=r"wrong.ss:13.*parameter `mode`.*Mode"):
        module.forward(module.Mlp.init(seed=0), x, "train")


def test_a_standalone_build_makes_models_with_the_runtimes_values_and_checks_them() -> None:
    generated = build(SEEDED, "seeded.ss", standalone=True, devices="cpu")
    assert not generated.unsupported
    assert "shapescript" not in generated.source.split("\n", 1)[1].replace("ShapeScript", "")
    standalone = load(SEEDED, "seeded.ss", standalone=True, devices="cpu")
    module = load(SEEDED, "seeded.ss")
    made, expected = standalone.make_a(3).state_dict(), module.A.init(seed=3).state_dict()
    assert list(made) == list(expected)
    for name, value in expected.items():
        assert torch.equal(made[name], value) and made[name].dtype == value.dtype
    assert not any(torch.equal(made["w"], other) for other in [module.A.init(seed=4).w])
    with pytest.raises(ValueError, match="expected a A model, got B"):
        standalone.make_a.__globals__["_ss_check_model"](
            standalone.B.init(seed=0), standalone.A, _WHERE
        )


MODES = """\
fn drop(x: [n], mode: Mode) -> [n] = dropout(x, 0.5, mode)

fn twice(x: [n], mode: Mode) -> [n] = drop(x, mode) + drop(x, mode)

fn trained(x: [n]) -> [n] = twice(x, Train(seed=3))

fn evaluated(x: [n]) -> [n] = twice(x, Eval)
"""


def test_a_standalone_build_has_modes_that_draw_as_the_runtimes_do() -> None:
    generated = build(MODES, "modes.ss", standalone=True, devices="cpu")
    assert not generated.unsupported and "_ss_rt" not in generated.source
    standalone = load(MODES, "modes.ss", standalone=True, devices="cpu")
    module = load(MODES, "modes.ss")
    x = torch.randn(64)
    assert torch.equal(standalone.trained(x), module.trained(x))
    assert not torch.equal(standalone.trained(x), 2 * x)
    assert torch.equal(standalone.evaluated(x), 2 * x)
    with pytest.raises(ValueError, match="parameter `mode`: expected a Mode, got int"):
        standalone.drop(x, 0)


_WHERE = {"path": "seeded.ss", "line": 1, "column": 1, "function": "f", "parameter": "m"}


FORWARD = """\
dim D = 4

model Mlp:
    param w: [D D] = normal(std=0.5)
    buffer shift: [D] = full(1.0)

fn forward(m: Mlp, x: [n D]) -> [n D]:
    return relu(x @ m.w + m.shift)
"""


def test_a_standalone_function_that_takes_a_model_checks_it_and_reads_its_fields() -> None:
    standalone = load(FORWARD, "forward.ss", standalone=True, devices="cpu")
    module = load(FORWARD, "forward.ss")
    x = torch.randn(3, 4)
    expected = module.forward(module.Mlp.init(seed=0), x)
    assert torch.equal(standalone.forward(standalone.Mlp.init(seed=0), x), expected)
    with pytest.raises(
        ValueError, match="forward.ss:7:12: in fn forward, argument for parameter `m`"
    ):
        standalone.forward(x, x)
    with pytest.raises(TypeError, match="Mlp.init"):
        standalone.Mlp()


def test_batch_norm_uses_the_batch_under_train_and_running_stats_under_eval() -> None:
    module = load(
        """\
fn bn(x: [b n] f64, mode: Mode, mean: [n] f64, var: [n] f64) -> [b n] f64:
    return batch_norm(x, mode, over=n, running_mean=mean, running_var=var)
""",
        "bn.ss",
    )
    x = torch.randn(8, 5, dtype=torch.float64)
    mean, var = torch.zeros(5, dtype=torch.float64), torch.full((5,), 4.0, dtype=torch.float64)
    expected = torch.nn.functional.batch_norm(x, None, None, training=True)
    torch.testing.assert_close(module.bn(x, Train(seed=0), mean, var), expected)
    torch.testing.assert_close(module.bn(x, Eval, mean, var), x / math.sqrt(4.0 + 1e-5))


NESTED = """\
import python torch

fn nested(x: [n], mode: Mode) -> [n]:
    total = zeros_like(x)
    for epoch in 3..5:
        for item in torch.ones(2):
            total = total + dropout(x, 0.5, mode)
    return total
"""


def test_a_loop_over_a_python_value_is_keyed_by_its_iteration_index() -> None:
    generated = build(NESTED, "nested.ss")
    assert "for _ss_i2, item in _ss_enumerate(torch.ones(2)):" in generated.source
    assert "_ss_calls.key('dropout', f'{epoch}.{_ss_i2}')" in generated.source
    module = load(NESTED, "nested.ss")
    x = torch.ones(256)
    kept = module.nested(x, Train(seed=5))
    assert torch.equal(kept, module.nested(x, Train(seed=5)))
    # Four different masks: some values are kept by some of the draws only.
    assert ((kept > 0) & (kept < 8)).any()


GRADIENTS = (
    CLASSIFIER
    + """
fn halve(g: Grad[Mlp]) -> Grad[Mlp] = g * 0.5 + g - g

fn size_of(g: Grad[Mlp]) -> [] = norm(g)

fn train_loss(m: Mlp, x: [b D], y: [b] Index[C], mode: Mode) -> []:
    l, g = value_and_grad(loss, m, x, y, mode)
    return l
"""
)


def test_gradient_arithmetic_norm_and_a_mode_through_value_and_grad() -> None:
    module = load(GRADIENTS, "gradients.ss")
    m = module.Mlp.init(seed=0)
    x, y = torch.randn(4, 784), torch.randint(0, 10, (4,))
    mode = Train(seed=9)
    value = module.train_loss(m, x, y, mode)
    assert torch.equal(value, module.loss(m, x, y, mode.child("loss#0")).detach())
    assert not torch.equal(value, module.loss(m, x, y, mode.child("loss#1")).detach())
    _, g = value_and_grad(module.loss, m, x, y, Eval)
    half = module.halve(g)
    torch.testing.assert_close(half.w1, g.w1 * 0.5)
    expected = torch.cat([value.flatten() for value in g.values()]).norm()
    torch.testing.assert_close(module.size_of(g), expected)


#: The modes the Python function `seen` was given, as compiled code passes them.
SEEN: list[Mode] = []


def seen(x: torch.Tensor, mode: Mode) -> torch.Tensor:
    SEEN.append(mode)
    return x


def test_a_mode_passed_to_a_python_function_is_extended_with_its_name() -> None:
    module = load(
        """\
import python tests

fn call(x: [n], mode: Mode) -> [n]:
    for epoch in 0..2:
        x = tests.codegen.test_training.seen(x, mode)
    return x
""",
        "python_mode.ss",
    )
    SEEN.clear()
    module.call(torch.ones(3), Train(seed=1))
    assert [mode.path for mode in SEEN] == [("seen@0#0",), ("seen@1#0",)]


SGD_BY_HAND = """\
dim D = 6
dim C = 3

model Mlp:
    param w1: [D C] = normal(std=0.1)
    param w2: [C] = zeros

fn loss(m: Mlp, x: [b D], y: [b] Index[C]) -> []:
    return cross_entropy(x @ m.w1 + m.w2, y, over=C) |> mean

fn step(mut m: Mlp, x: [b D], y: [b] Index[C], lr: float):
    l, g = value_and_grad(loss, m, x, y)
    m.w1 = m.w1 - lr * g.w1
    m.w2 = m.w2 - lr * g.w2

fn fit(mut m: Mlp, x: [b D], y: [b] Index[C], steps: int):
    for i in 0..steps:
        step(mut m, x, y, 0.1)
"""


@pytest.mark.parametrize("checks", ["always", "never"])
def test_the_references_sgd_by_hand_changes_the_model_in_place(checks: str) -> None:
    module = load(SGD_BY_HAND, "sgd_by_hand.ss", checks=checks)
    m = module.Mlp.init(seed=0)
    w1 = m.w1
    x, y = torch.randn(16, 6), torch.randint(0, 3, (16,))
    before = module.loss(m, x, y).item()
    params = [torch.nn.Parameter(p.detach().clone()) for p in m.parameters()]
    module.fit(m, x, y, 20)
    for _ in range(20):
        loss = torch.nn.functional.cross_entropy(x @ params[0] + params[1], y)
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for param, grad in zip(params, grads, strict=True):
                param -= 0.1 * grad
    assert m.w1 is w1
    assert module.loss(m, x, y).item() < before
    for mine, theirs in zip(m.parameters(), params, strict=True):
        torch.testing.assert_close(mine, theirs)
