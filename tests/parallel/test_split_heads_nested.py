"""`split H` with models that hold models: every param along H, at any depth (held once or
in a stack), holds each worker's heads, and outputs, gradients, an AdamW step and fields
assigned on the workers (through `mut m.h[1].attn` too) are one device's, with `shard
params` as well."""

from __future__ import annotations

import pytest
import torch

from shapescript.check.checker import check_parsed
from shapescript.rt.optimizers import adamw
from shapescript.syntax.parser import parse
from shapescript.syntax.source import SourceFile
from tests.parallel.programs import alive, compiled, one_device_and_several

PROGRAM = """devices {devices}

dim D = 16
dim H = 4
dim Dh = D / H
dim Dff = 32
dim L = 2

model Attention:
    param w_qkv: [D 3*D] = normal(std=0.1)
    param w_o: [(H Dh) D] = normal(std=0.1)

model Mlp:
    param w_fc: [D Dff] = normal(std=0.1)
    param w_proj: [Dff D] = normal(std=0.1)

model Block:
    param ln_w: [D] = normal(std=1.0)
    attn: Attention
    param w_o2: [(H Dh) D] = normal(std=0.1)
    mlp: Mlp

model Net:
    param w_mix: [(H Dh) D] = normal(std=0.1)
    h: [L] Block
    top: Attention

fn heads(a: Attention, x: [b n D]) -> [b n (H Dh)]:
    q, k, v = x @ a.w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh) |> rearrange(b H n Dh -> b n (H Dh))

fn attention(a: Attention, x: [b n D]) -> [b n D] = heads(a, x) |> matmul(a.w_o)

fn block(blk: Block, x: [b n D]) -> [b n D]:
    y = layer_norm(x, over=D, weight=blk.ln_w)
    x = x + attention(blk.attn, y) + heads(blk.attn, y) @ blk.w_o2
    return x + (x @ blk.mlp.w_fc |> gelu |> matmul(blk.mlp.w_proj))

fn forward(m: Net, x: [b n D]) -> [b n D]:
    for blk in m.h:
        x = block(blk, x)
    x = block(m.h[1], x)
    return x + heads(m.top, x) @ m.w_mix + attention(m.top, x)

fn loss(m: Net, x: [b n D]) -> [] = mean(forward(m, x) * x)

fn grads(m: Net, x: [b n D]) -> Grad[Net]:
    l, g = value_and_grad(loss, m, x)
    return g

fn held_grad(m: Net, x: [b n D]) -> Grad[Block]:
    l, g = value_and_grad(loss, m, x)
    return g.h[1]

fn held_field_grad(m: Net, x: [b n D]) -> [(H Dh) D]:
    l, g = value_and_grad(loss, m, x)
    return g.h[0].attn.w_o

fn scale_attention(mut a: Attention, s: float):
    a.w_o = a.w_o * s
    a.w_qkv = a.w_qkv * s

fn scale_second(mut m: Net, s: float):
    scale_attention(mut m.h[1].attn, s)
    m.w_mix = m.w_mix * s

fn train_step(mut m: Net, mut opt: AdamW[Net], x: [b n D]) -> []:
    l, g = value_and_grad(loss, m, x)
    update(mut m, mut opt, g |> clip_norm(1.0))
    return l

fn apply(mut m: Net, mut opt: AdamW[Net], g: Grad[Net]):
    update(mut m, mut opt, g |> clip_norm(1.0))

fn keep(m: Net, opt: AdamW[Net]):
    save("ckpt.pt", m, opt)

fn resume(x: [b n D]) -> []:
    m, opt = load("ckpt.pt", Net, AdamW[Net])
    l = train_step(mut m, mut opt, x)
    return loss(m, x)
"""

SPLIT = "cpu[0 1]\n    split H"


def _checked(text: str):
    return check_parsed(parse(SourceFile.from_text("t.ss", text)))


def test_held_models_params_along_h_are_split_by_their_models() -> None:
    checked = _checked(PROGRAM.format(devices=SPLIT))
    assert checked.errors == []
    assert checked.placement.split_fields == {
        "Attention": {"w_o": 0},
        "Block": {"w_o2": 0},
        "Net": {"w_mix": 0},
    }


def _results(module) -> list[tuple[str, torch.Tensor]]:
    x = torch.randn(2, 5, 16, generator=torch.Generator().manual_seed(0))
    m = module.Net.init(seed=0)
    found = [("forward", module.forward(m, x)), ("loss", module.loss(m, x))]
    found += [(f"grad {name}", value) for name, value in module.grads(m, x).items()]
    found += [(f"held grad {name}", value) for name, value in module.held_grad(m, x).items()]
    found += [("h.0.attn.w_o grad", module.held_field_grad(m, x))]
    # eps well above the gradients' f32 rounding: with 1e-8, a gradient near zero (the
    # first position's query) turns a 1e-10 difference into a different step.
    opt = adamw(m, lr=0.01, eps=1e-4)
    found += [("step loss", module.train_step(m, opt, x))]
    # A gradient from Python: cut on each worker as its model's params are, by path.
    module.apply(m, opt, module.grads(m, x))
    # Assigned on the workers, a split param through `mut` of a held model among them.
    module.scale_second(m, 0.5)
    found += [(name, value.detach().clone()) for name, value in m.state_dict().items()]
    for index, state in opt.state_dict()["torch"]["state"].items():
        found += [
            (f"state {index} {key}", value)
            for key, value in state.items()
            if isinstance(value, torch.Tensor)
        ]
    found += [("after the step", module.forward(m, x))]
    # Saved whole from the workers' heads, loaded and cut again for another step.
    module.keep(m, opt)
    found += [("resumed", module.resume(x))]
    return found


@pytest.mark.slow
@pytest.mark.parametrize(
    "layout", [SPLIT, SPLIT + "\n    shard params"], ids=["split", "split-and-shard"]
)
def test_a_nested_model_split_along_h_gives_one_device_s_results(
    tmp_path, monkeypatch, layout: str
) -> None:
    monkeypatch.chdir(tmp_path)
    expected, got, pids = one_device_and_several(PROGRAM, layout, _results, tmp_path)
    assert [name for name, _ in got] == [name for name, _ in expected]
    assert "grad h.1.attn.w_o" in dict(got) and "h.1.w_o2" in dict(got)
    for (name, mine), (_, theirs) in zip(expected, got, strict=True):
        assert theirs.shape == mine.shape, name
        assert torch.allclose(theirs, mine, atol=1e-6, rtol=0), (name, mine, theirs)
    # The step changed the held models' split params: not trivially equal.
    before = compiled(PROGRAM.format(devices="cpu"), tmp_path / "again.ss").Net.init(seed=0)
    assert not torch.allclose(dict(got)["h.1.attn.w_o"], before.h[1].attn.w_o)
    assert not any(alive(pid) for pid in pids)


def test_hovers_name_the_held_models_split_params_by_path() -> None:
    from shapescript.check.analyses.comms import Table

    text = PROGRAM.format(devices=SPLIT)
    checked = _checked(text)
    table = Table(checked)
    model = table.value_text("forward", checked.signatures["forward"].params[0].type)
    assert model is not None
    assert "but for `w_mix`, `h.0.w_o2`, `h.0.attn.w_o`, `h.1.w_o2`" in model
    assert "`top.w_o`, split along H: each holds 2 of H = 4" in model
    step = text.index("fn train_step")
    line = text[: text.index("l, g = value_and_grad", step)].count("\n") + 1
    grads = table.line_text("train_step", line)
    assert grads is not None
    # A split param's gradient is each device's own, the held models' too.
    assert "`h.0.attn.w_qkv`" in grads and "`top.w_qkv`" in grads
    assert "w_o" not in grads and "w_mix" not in grads
