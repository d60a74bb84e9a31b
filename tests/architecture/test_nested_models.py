"""Architectures of models that hold models: a stack drawn once with its count, the
layers found inside the held models' functions, params named by their paths."""

from __future__ import annotations

from pathlib import Path

from shapescript.analysis import check
from shapescript.architecture import architecture
from shapescript.architecture.text import architecture_text
from shapescript.syntax.source import SourceFile
from tests.architecture.programs import boxes, read

ROOT = Path(__file__).resolve().parents[2]

BLOCKS = """
dim H = 2
dim Dh = D / H

model Attention:
    param c_attn: [D (3 D)] = normal(std=0.02)
    param c_proj: [D D] = normal(std=0.02)

model Mlp:
    param c_fc: [D Hd] = normal(std=0.02)
    param c_proj: [Hd D] = normal(std=0.02)

model Block:
    param ln_1: [D] = ones
    attn: Attention
    param ln_2: [D] = ones
    mlp: Mlp

model M:
    param wte: [V D] = normal(std=0.02)
    h: [L] Block
    param ln_f: [D] = ones

fn attend(a: Attention, x: [b n D]) -> [b n D]:
    q, k, v = x @ a.c_attn |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(a.c_proj)

fn feed(f: Mlp, x: [b n D]) -> [b n D] = gelu(x @ f.c_fc) @ f.c_proj

fn block(k: Block, x: [b n D]) -> [b n D]:
    x = x + attend(k.attn, layer_norm(x, over=D, weight=k.ln_1))
    return x + feed(k.mlp, layer_norm(x, over=D, weight=k.ln_2))
"""

INDEXED = (
    BLOCKS
    + """
fn forward(m: M, ids: [b n] Index[V]) -> [b n V]:
    x = embedding(ids, m.wte)
    for l in 0..L:
        x = block(m.h[l], x)
    return linear(layer_norm(x, over=D, weight=m.ln_f), m.wte)
"""
)

ITERATED = (
    BLOCKS
    + """
fn forward(m: M, ids: [b n] Index[V]) -> [b n V]:
    x = embedding(ids, m.wte)
    for blk in m.h:
        x = block(blk, x)
    return linear(layer_norm(x, over=D, weight=m.ln_f), m.wte)
"""
)

SEEN = [
    ("embedding", "Embedding V → D", ""),
    ("frame", "Transformer block", "× L = 3"),
    ("norm", "LayerNorm", ""),
    ("attention", "Multi-head attention · H heads · causal", ""),
    ("residual", "", ""),
    ("norm", "LayerNorm", ""),
    ("mlp", "MLP D → Hd → D · GELU", ""),
    ("residual", "", ""),
    ("norm", "LayerNorm", ""),
    ("linear", "Linear D → V · tied to wte", ""),
]


def test_a_stack_indexed_in_a_loop_is_one_block_times_its_count() -> None:
    found = read(INDEXED)
    assert [(node.kind, node.label, node.repeat) for node in boxes(found)] == SEEN
    assert found.summary == (
        "Architecture of M: Embedding → Transformer block × 3 → LayerNorm → Linear · tied"
    )
    params = {node.label: [held.name for held in node.params] for node in boxes(found)}
    assert params["Multi-head attention · H heads · causal"] == [
        "h[l].attn.c_attn",
        "h[l].attn.c_proj",
    ]
    assert params["MLP D → Hd → D · GELU"] == ["h[l].mlp.c_fc", "h[l].mlp.c_proj"]
    norms = [node for node in boxes(found) if node.kind == "norm"]
    assert [[held.name for held in node.params] for node in norms] == [
        ["h[l].ln_1"],
        ["h[l].ln_2"],
        ["ln_f"],
    ]
    shapes = [held.shape for node in boxes(found) for held in node.params]
    assert (8, 24) in shapes  # the held params' shapes are read from their own models


def test_a_loop_over_the_stack_draws_the_same_layers() -> None:
    found = read(ITERATED)
    assert [(node.kind, node.label, node.repeat) for node in boxes(found)] == SEEN
    attention = next(node for node in boxes(found) if node.kind == "attention")
    assert [held.name for held in attention.params] == ["h[*].attn.c_attn", "h[*].attn.c_proj"]


def test_the_text_list_names_the_held_params() -> None:
    text = architecture_text(read(INDEXED))
    assert "┌ Transformer block (block) × L = 3" in text
    assert "h[l].attn.c_attn [D (3 D)], h[l].attn.c_proj [D D]" in text
    operations = architecture_text(read(INDEXED, detail="operations"))
    # Every operation names the param as the function reading it writes it: `attend(a: Attention)`.
    assert "← a.c_attn [D (3 D)]" in operations
    assert "m.h[l].attn.c_attn" not in operations


def test_a_literal_stack_size_is_its_count() -> None:
    source = INDEXED.replace("h: [L] Block", "h: [2] Block").replace("0..L", "0..2")
    frame = next(node for node in boxes(read(source)) if node.kind == "frame")
    assert frame.repeat == "× 2"
    iterated = ITERATED.replace("h: [L] Block", "h: [2] Block")
    frame = next(node for node in boxes(read(iterated)) if node.kind == "frame")
    assert frame.repeat == "× 2"


def test_a_model_with_no_function_lists_its_held_models() -> None:
    found = read(BLOCKS.split("fn attend")[0], model="Block")
    assert [(node.label, node.type) for node in found.sections[0].nodes] == [
        ("param ln_1", "[D]"),
        ("attn", "Attention"),
        ("param ln_2", "[D]"),
        ("mlp", "Mlp"),
    ]


def test_the_nested_gpt_of_the_training_tests() -> None:
    path = ROOT / "tests/rt_training/nested_gpt.ss"
    checked = check(SourceFile.from_text("nested_gpt.ss", path.read_text(encoding="utf-8")))
    found = architecture(checked, "Gpt")
    assert found is not None
    assert found.summary == (
        "Architecture of Gpt: Embedding → Transformer block × 2 → LayerNorm → Linear · tied"
    )
