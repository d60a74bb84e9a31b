"""`mut` of a held model: `step(mut m.h[l])`, `fix(mut m.h[0].attn)` change the outer model's
held module in place, and gradients and updates afterwards see the change; the checker
refuses a chain through a model the function may not change, and a tensor field."""

from __future__ import annotations

import torch

from shapescript.check.checker import check_parsed
from shapescript.syntax.parser import parse
from shapescript.syntax.source import SourceFile
from tests.codegen.compiled import load

SOURCE = """\
dim D = 4
dim L = 3

model Attention:
    param w: [D D] = normal(std=0.5)

model Block:
    param ln: [D] = ones
    attn: Attention

model Net:
    h: [L] Block
    top: Block

fn scale_attention(mut a: Attention, s: float):
    a.w = a.w * s

fn scale_block(mut blk: Block, s: float):
    blk.ln = blk.ln * s
    scale_attention(mut blk.attn, s)

fn scale_layer(mut m: Net, l: int, s: float):
    scale_block(mut m.h[l], s)

fn scale_second_attention(mut m: Net, s: float):
    scale_attention(mut m.h[1].attn, s)

fn scale_top(mut m: Net, s: float):
    scale_attention(mut m.top.attn, s)

fn forward(m: Net, x: [b D]) -> [b D]:
    y = x * m.top.ln
    for blk in m.h:
        y = tanh(y @ blk.attn.w) * blk.ln
    return y @ m.top.attn.w

fn loss(m: Net, x: [b D]) -> []:
    return sum(forward(m, x) * forward(m, x)) / 2.0

fn grad_second(m: Net, x: [b D]) -> [D D]:
    l, g = value_and_grad(loss, m, x)
    return g.h[1].attn.w

fn train(mut m: Net, x: [b D]):
    opt = sgd(m, lr=0.1)
    l, g = value_and_grad(loss, m, x)
    update(mut m, mut opt, g)

fn scale_then_train(mut m: Net, x: [b D]):
    scale_attention(mut m.h[1].attn, 0.5)
    train(mut m, x)
"""


def _compiled():
    return load(SOURCE, "held_mut.ss")


def _weights(model) -> dict[str, torch.Tensor]:
    return {name: value.detach().clone() for name, value in model.state_dict().items()}


def _check(text: str):
    return check_parsed(parse(SourceFile.from_text("t.ss", text)))


def test_mut_of_a_held_model_changes_only_that_module_of_the_outer_model() -> None:
    module = _compiled()
    m = module.Net.init(seed=0)
    before = _weights(m)
    held = m.h[1].attn.w
    module.scale_second_attention(m, 2.0)
    after = _weights(m)
    assert m.h[1].attn.w is held
    assert torch.equal(after["h.1.attn.w"], before["h.1.attn.w"] * 2.0)
    assert [name for name in before if not torch.equal(before[name], after[name])] == ["h.1.attn.w"]


def test_mut_with_a_variable_index_and_a_deeper_chain() -> None:
    module = _compiled()
    m = module.Net.init(seed=0)
    before = _weights(m)
    module.scale_layer(m, 2, 3.0)
    module.scale_top(m, 0.5)
    after = _weights(m)
    changed = [name for name in before if not torch.equal(before[name], after[name])]
    assert changed == ["h.2.ln", "h.2.attn.w", "top.attn.w"]
    assert torch.equal(after["h.2.attn.w"], before["h.2.attn.w"] * 3.0)
    assert torch.equal(after["top.attn.w"], before["top.attn.w"] * 0.5)


def test_gradients_and_updates_afterwards_see_the_change() -> None:
    module = _compiled()
    x = torch.randn(5, 4, generator=torch.Generator().manual_seed(1))
    untouched = module.Net.init(seed=0)
    expected = module.Net.init(seed=0)
    with torch.no_grad():
        expected.h[1].attn.w.mul_(0.5)
    m = module.Net.init(seed=0)
    module.scale_second_attention(m, 0.5)
    grad = module.grad_second(m, x)
    assert torch.equal(grad, module.grad_second(expected, x))
    assert not torch.equal(grad, module.grad_second(untouched, x))
    trained = module.Net.init(seed=0)
    module.scale_then_train(trained, x)
    module.train(expected, x)
    module.train(untouched, x)
    for name, value in _weights(expected).items():
        assert torch.equal(_weights(trained)[name], value), name
    assert not torch.equal(_weights(trained)["h.0.attn.w"], _weights(untouched)["h.0.attn.w"])


def test_a_held_model_of_a_parameter_without_mut_is_refused() -> None:
    text = SOURCE + (
        "\nfn frozen(m: Net):\n"
        "    scale_block(mut m.h[0], 2.0)\n"
        "\nfn alias(m: Net):\n"
        "    blk = m.h[0]\n"
        "    scale_block(mut blk, 2.0)\n"
        "\nfn looped(m: Net):\n"
        "    for blk in m.h:\n"
        "        blk.ln = blk.ln * 2.0\n"
    )
    checked = _check(text)
    found = [(error.code, error.message) for error in checked.errors]
    assert found == [
        ("E1102", "this passes `m.h[0]` as mut, but `m` is a parameter without mut"),
        ("E1102", "this passes `blk` as mut, but `blk` may be a parameter without mut"),
        ("E1102", "this assigns a field, but `blk` may be a parameter without mut"),
    ]


def test_a_tensor_field_or_a_stack_is_not_passed_as_mut() -> None:
    text = SOURCE + (
        "\nimport python torch\n"
        "\nfn tensor(mut m: Net):\n"
        "    torch.nn.init.zeros_(mut m.top.ln)\n"
        "\nfn stack(mut m: Net):\n"
        "    scale_block(mut m.h, 2.0)\n"
        "\nfn outside(mut m: Net):\n"
        "    torch.nn.init.zeros_(mut m.h[7])\n"
    )
    checked = _check(text)
    found = [(error.code, error.message) for error in checked.errors]
    assert found == [
        ("E1101", "`m.top.ln` is [D], a value, so it can't be passed as mut"),
        ("E0904", "`scale_block` can't take this as `blk`: [L] Block isn't the model Block"),
        ("E3403", "index 7 is outside [L] Block, whose models are 0 to 2"),
    ]
