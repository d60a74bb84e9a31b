"""`split H`: values with an axis of size H hold each worker's heads, and a transformer block
computes what it computes on one device, forward, backward and through optimizer steps;
with `shard params` as well, the params without H are sharded."""

from __future__ import annotations

import pytest
import torch

from shapescript.check.analyses.comms import Table
from shapescript.check.checker import check_parsed
from shapescript.rt.optimizers import adamw
from shapescript.syntax.parser import parse
from shapescript.syntax.source import SourceFile
from tests.parallel.programs import alive, one_device_and_several

BLOCK = """devices {devices}

dim D = 16
dim H = 4
dim Dh = D / H
dim Dff = 32

model Block:
    param ln1_w: [D] = normal(std=1.0)
    param ln1_b: [D] = normal(std=0.1)
    param w_qkv: [D 3*D] = normal(std=0.3)
    param w_o: [(H Dh) D] = normal(std=0.3)
    param w_o2: [D D] = normal(std=0.3)
    param ln2_w: [D] = normal(std=1.0)
    param ln2_b: [D] = normal(std=0.1)
    param w_fc: [D Dff] = normal(std=0.3)
    param w_proj: [Dff D] = normal(std=0.3)

fn scores(q: [b H n Dh], k: [b H n Dh]) -> [b H n n] = einsum(q, k: b H n Dh, b H m Dh -> b H n m)

fn scaled(q: [b H n Dh], k: [b H n Dh]) -> [b H n n] = scores(q, k) / sqrt(Dh)

fn merge(o: [b H n Dh], m: Block) -> [b n D] = rearrange(o, b H n Dh -> b n (H Dh)) @ m.w_o

fn heads(m: Block, x: [b n D]) -> [b n (H Dh)]:
    q, k, v = x @ m.w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh) |> rearrange(b H n Dh -> b n (H Dh))

fn attention(m: Block, x: [b n D]) -> [b n D] = heads(m, x) |> matmul(m.w_o)

fn attention2(m: Block, x: [b n D]) -> [b n D] = heads(m, x) @ m.w_o2

fn block(m: Block, x: [b n D]) -> [b n D]:
    x = x + attention(m, layer_norm(x, over=D, weight=m.ln1_w, bias=m.ln1_b))
    x = x + attention2(m, x)
    y = layer_norm(x, over=D, weight=m.ln2_w, bias=m.ln2_b)
    return x + (y @ m.w_fc |> gelu |> matmul(m.w_proj))

fn loss(m: Block, x: [b n D]) -> [] = mean(block(m, x) * x)

fn mixed(m: Block, x: [b n D]) -> [b H n Dh]:
    q, k, v = x @ m.w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    return softmax(q, over=H) * v

fn peak(m: Block, x: [b n D]) -> [b n Dh]:
    q, k, v = x @ m.w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    return k |> max(over=H)

fn loss2(m: Block, x: [b n D]) -> [] = mean(mixed(m, x)) + mean(peak(m, x) * m.w_o2[0, 0:4])

fn grads2(m: Block, x: [b n D]) -> Grad[Block]:
    l, g = value_and_grad(loss2, m, x)
    return g

fn grads(m: Block, x: [b n D]) -> Grad[Block]:
    l, g = value_and_grad(loss, m, x)
    return g

fn train_step(mut m: Block, mut opt: AdamW[Block], x: [b n D]) -> []:
    l, g = value_and_grad(loss, m, x)
    update(mut m, mut opt, g |> clip_norm(1.0))
    return l

fn apply(mut m: Block, mut opt: AdamW[Block], g: Grad[Block]):
    update(mut m, mut opt, g |> clip_norm(1.0))
"""

SPLIT = "cpu[0 1]\n    split H"


def _checked(text: str):
    return check_parsed(parse(SourceFile.from_text("t.ss", text)))


def test_the_plan_cuts_sums_and_uses_a_whole_operand_s_block() -> None:
    checked = _checked(BLOCK.format(devices=SPLIT))
    assert checked.errors == []
    placement = checked.placement
    assert placement.split_fields == {"Block": {"w_o": 0}}
    kinds = {name: [c.kind for c in found] for name, found in placement.collectives.items()}
    assert kinds["heads"] == ["cut"]  # q, k and v from the whole projection
    assert kinds["attention"] == ["sum"]  # (H Dh) contracted with w_o's own rows
    assert kinds["attention2"] == ["rows_right"]  # ...with the whole w_o2's matching rows
    assert not kinds.get("block")
    # softmax along H and max across it take their operands whole (an all-gather).
    assert sorted(kinds["mixed"]) == sorted(kinds["peak"]) == ["cut", "gathered"]
    assert kinds["loss2"] == ["gathered"]  # a mean of every value: of all the heads
    assert {name: len(found) for name, found in placement.gathers.items()} == {
        "mixed": 1,
        "peak": 1,
        "loss2": 1,
    }
    assert placement.split_results == {"heads": 2, "scores": 1, "scaled": 1, "mixed": 1}
    assert placement.split_params == {
        "scores": {"q": 1, "k": 1},
        "scaled": {"q": 1, "k": 1},
        "merge": {"o": 1},
    }


def test_hovers_say_what_is_split_and_what_a_contraction_sends() -> None:
    checked = _checked(BLOCK.format(devices=SPLIT))
    table = Table(checked)
    heads = checked.items[[getattr(i.item, "name", "") for i in checked.items].index("heads")]
    types = heads.body.facts.types
    q = next(t for span, t in types.items() if checked.source.text[heads.base + span.start] == "q")
    assert (
        table.value_text("heads", q) == "Split across the 2 devices along H: each holds 2 of H = 4."
    )
    model = table.value_text("heads", checked.signatures["heads"].params[0].type)
    assert model is not None and "but for `w_o`, split along H: each holds 2 of H = 4" in model
    line = checked.source.text[: checked.source.text.index("q, k, v =")].count("\n") + 1
    assert table.line_text("heads", line) is None  # the cut sends nothing


@pytest.mark.parametrize(
    ("body", "what"),
    [
        ("fn f(m: M) -> [D] = m.w[0]\n", "indexing a value split along H"),
        ("fn f(m: M) -> [H D] = m.w / H\n", "`H` used as a number"),
        (
            "fn g(x: [a c]) -> [a c] = softmax(x, over=a)\nfn f(m: M) -> [H D] = g(m.w)\n",
            "a value split along H given to `g`'s `x`, whose type doesn't split it there",
        ),
    ],
)
def test_what_has_no_lowering_with_split_h_is_e1801(body: str, what: str) -> None:
    text = (
        "devices cpu[0 1]\n    split H\n\ndim H = 4\ndim D = 2\n\n"
        "model M:\n    param w: [H D] = zeros\n\n" + body
    )
    errors = _checked(text).errors
    assert [d.code for d in errors] == ["E1801"]
    assert what in errors[0].message


def _results(module) -> list[torch.Tensor]:
    x = torch.randn(2, 5, 16, generator=torch.Generator().manual_seed(0))
    m = module.Block.init(seed=0)
    found = [module.heads(m, x), module.attention(m, x), module.attention2(m, x)]
    # Arguments split along H from Python: each worker gets its heads.
    q = torch.randn(2, 4, 5, 4, generator=torch.Generator().manual_seed(1))
    found += [module.scaled(q, q * 2), module.merge(q, m)]
    # Along and across H: gathered whole, and cut again where the result has H.
    found += [module.mixed(m, x), module.peak(m, x), module.loss2(m, x)]
    found += module.grads2(m, x).values()
    found += [module.block(m, x), module.loss(m, x)]
    found += module.grads(m, x).values()
    opt = adamw(m, lr=0.01)
    found += [module.train_step(m, opt, x) for _ in range(3)]
    # A gradient from Python: cut on each worker as its model's params are.
    module.apply(m, opt, module.grads(m, x))
    found += [value.detach().clone() for value in m.state_dict().values()]
    for state in opt.state_dict()["torch"]["state"].values():
        found += [value for value in state.values() if isinstance(value, torch.Tensor)]
    return found


@pytest.mark.slow
@pytest.mark.parametrize(
    "layout", [SPLIT, SPLIT + "\n    shard params"], ids=["split", "split-and-shard"]
)
def test_a_transformer_block_split_along_h_gives_one_device_s_results(
    tmp_path, monkeypatch, layout: str
) -> None:
    monkeypatch.chdir(tmp_path)
    expected, got, pids = one_device_and_several(BLOCK, layout, _results, tmp_path)
    assert len(got) == len(expected) == 7 + 3 + 9 + 9 + 3 + 9 + 3 * 9
    for index, (mine, theirs) in enumerate(zip(expected, got, strict=True)):
        assert theirs.shape == mine.shape, index
        assert torch.allclose(theirs, mine, atol=1e-5, rtol=0), (index, mine, theirs)
    # The steps changed the model: not trivially equal.
    assert not torch.allclose(got[28], got[30])
    assert not any(alive(pid) for pid in pids)


def test_hovers_give_sizes_with_generic_axes_symbolically() -> None:
    checked = _checked(BLOCK.format(devices=SPLIT))
    table = Table(checked)
    text = checked.source.text
    step = text.index("fn train_step")

    def line(needle: str, start: int = 0) -> int:
        return text[: text.index(needle, start)].count("\n") + 1

    attention = table.line_text("attention", line("fn attention(m"))
    assert attention is not None
    assert (
        "- all-reduce of `matmul` across the heads, its values: 16·b·n × f32 = 64·b·n bytes"
    ) in attention
    grads = table.line_text("train_step", line("l, g = value_and_grad", step))
    assert grads is not None
    # w_o's gradient is each device's own; the whole params' are added up.
    assert "params `ln1_w`, `ln1_b`, `w_qkv`, `w_o2`, `ln2_w`" in grads
    assert "which adds up what each device computed from its heads: 2,112 × f32" in grads
    assert "- inside `loss`: 256·b·n bytes per call" in grads
    assert "In all: 8,448 bytes (8 KiB) + 256·b·n bytes." in grads
    norms = table.line_text("train_step", line("update(mut m", step))
    assert norms is not None and "all-reduce of `clip_norm`'s sum of squares" in norms
    mixed = table.line_text("mixed", line("return softmax(q, over=H) * v"))
    assert mixed is not None
    assert "- all-gather of `q` along H: 16·b·n × f32 = 64·b·n bytes" in mixed
    peak = table.line_text("peak", line("return k |> max(over=H)"))
    assert peak is not None and "- all-gather of the input of `max(over=H)` along H" in peak
    assert table.function_text("block") == (
        "Runs on the workers, each of the 2 devices on its part of the data; "
        "sends 128·b·n bytes per call, its calls included."
    )


def test_split_h_splits_held_models_params_along_h_by_their_model() -> None:
    text = (
        "devices cpu[0 1]\n    split H\n\ndim H = 4\ndim D = 2\n\n"
        "model Attention:\n    param w: [H D] = zeros\n\n"
        "model Block:\n    param b: [D] = zeros\n    h: [2] Attention\n\n"
        "fn f(m: Block) -> [H D] = m.h[0].w\n"
    )
    checked = _checked(text)
    assert checked.errors == []
    # Split by the model that declares the param, wherever it is held.
    assert checked.placement.split_fields == {"Attention": {"w": 0}}
    assert checked.placement.split_results == {"f": 0}
