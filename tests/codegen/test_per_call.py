"""What a compiled function does on each call: padding code only in the body that a
padded call takes, and nothing that doesn't depend on the call."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript.rt import models
from shapescript.rt.errors import ShapeError
from tests.codegen.compiled import build, load

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _function(source: str, name: str) -> ast.FunctionDef:
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise AssertionError(f"no function {name} in the generated code")


def _bodies(source: str, name: str) -> tuple[str, str]:
    """The plain and the padded body of a function that takes masks."""
    function = _function(source, name)
    for node in function.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "not _ss_pad":
            plain = "\n".join(ast.unparse(stmt) for stmt in node.body)
            padded = "\n".join(ast.unparse(stmt) for stmt in node.orelse)
            return plain, padded
    raise AssertionError(f"{name} has no plain body chosen by `if not _ss_pad:`")


def _attention() -> str:
    text = (EXAMPLES / "attention.ss").read_text(encoding="utf-8")
    return build(text, "examples/attention.ss").source


def test_the_plain_body_of_causal_attention_has_no_padding_code() -> None:
    plain, padded = _bodies(_attention(), "causal_attention")
    assert "_ss_rt.padding" not in plain and "_ss_pads" not in plain
    # The plain body's attention is the fused kernel; the padded one joins the keys' mask.
    assert "_ss_F.scaled_dot_product_attention(" in plain
    assert "_ss_rt.attention.padded(" in padded


def test_a_plain_body_calls_on_without_masks() -> None:
    plain, padded = _bodies(_attention(), "forward")
    assert "_ss_pad" not in plain
    assert "_ss_pad={'n': _ss_pads.get('n')}" in padded


def test_a_function_that_takes_no_masks_has_one_body() -> None:
    source = build("dim D = 4\nfn twice(x: [D]) -> [D] = x * 2\n", "one.ss").source
    function = ast.unparse(_function(source, "twice"))
    assert "_ss_pad" not in function
    assert function.count("return") == 1


def test_padded_and_plain_calls_agree_through_a_call(tmp_path) -> None:
    text = (EXAMPLES / "attention.ss").read_text(encoding="utf-8")
    text = text.replace("dim D = 768", "dim D = 8").replace("dim H = 12", "dim H = 2")
    module = load(text, "examples/attention_small.ss")
    layer = module.Attention.init(seed=0)
    padded = shapescript.padded(module.forward, "n")
    generator = torch.Generator().manual_seed(0)
    for n in (3, 6, 11):
        x = torch.randn(2, n, 8, generator=generator)
        expected = module.forward(layer, x)
        assert torch.allclose(padded(layer, x), expected, rtol=0, atol=1e-5), n


def test_a_function_that_makes_no_tensor_asks_for_no_device() -> None:
    unchecked = build(
        (EXAMPLES / "attention.ss").read_text(encoding="utf-8"),
        "examples/attention.ss",
        checks="never",
        value_checks="never",
    ).source
    assert "_ss_dev" not in ast.unparse(_function(unchecked, "forward"))
    makes_a_mask = build(
        "fn masked(s: [n n]) -> [n n] = masked_fill(s, !causal[n n], 0.0)\n",
        "mask.ss",
        checks="never",
        value_checks="never",
    ).source
    assert "_ss_dev = " in ast.unparse(_function(makes_a_mask, "masked"))
    optimizer = build(
        "model M:\n    param w: [4] = zeros\n\nfn optimizer(m: M) -> AdamW[M] = adamw(m, lr=0.1)\n",
        "optimizer.ss",
    ).source
    assert "_ss_dev" not in ast.unparse(_function(optimizer, "optimizer"))


TRAINING = """\
dim D = 8

model Mlp:
    param w1: [D D] = normal(std=0.1)
    param w2: [D D] = normal(std=0.1)

fn hidden(m: Mlp, x: [b D]) -> [b D] = relu(x @ m.w1)

fn forward(m: Mlp, x: [b D]) -> [b D] = hidden(m, x) @ m.w2

fn loss(m: Mlp, x: [b D], y: [b] Index[D]) -> [] = cross_entropy(forward(m, x), y, over=D)

fn optimizer(m: Mlp) -> AdamW[Mlp] = adamw(m, lr=1e-2)

fn step(mut m: Mlp, mut opt: AdamW[Mlp], x: [b D], y: [b] Index[D]) -> []:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    return l
"""


def test_a_training_step_checks_its_model_once(monkeypatch) -> None:
    module = load(TRAINING, "per_call_training.ss")
    m = module.Mlp.init(seed=0)
    opt = module.optimizer(m)
    x, y = torch.randn(4, 8), torch.tensor([0, 1, 2, 3])
    counted = []
    real = models.check_model
    monkeypatch.setattr(models, "check_model", lambda *a, **k: counted.append(1) or real(*a, **k))
    module.step(m, opt, x, y)
    assert len(counted) == 1
    counted.clear()
    module.forward(m, x)
    assert len(counted) == 1


def test_an_internal_call_checks_no_argument_but_a_python_call_does() -> None:
    source = build(TRAINING, "per_call_training.ss").source
    forward = ast.unparse(_function(source, "forward"))
    assert "_ss_in_hidden(m, x)" in forward
    copy = ast.unparse(_function(source, "_ss_in_hidden"))
    assert "check_model" not in copy and "argument_error" not in copy
    assert "_ss_rt.calls.shown_as(_ss_in_hidden, 'hidden')" in source
    module = load(TRAINING, "per_call_training.ss")
    m = module.Mlp.init(seed=0)
    with pytest.raises(ShapeError, match="expected"):
        module.hidden(m, torch.randn(4, 3))
    assert module._ss_in_hidden.__name__ == "hidden"
