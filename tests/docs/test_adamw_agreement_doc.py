"""docs/pytorch-weights.md's 1e-5 AdamW agreement comes with its condition: the key bias of
`c_attn` has no true gradient (softmax ignores a shift shared by all keys), which the page
says and this test shows."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import shapescript

ROOT = Path(__file__).resolve().parents[2]


def _after_the_agreement() -> str:
    """The page from the 1e-5 AdamW claim to the next heading."""
    page = (ROOT / "docs" / "pytorch-weights.md").read_text(encoding="utf-8")
    flat = " ".join(page.split())
    return flat.split("AdamW steps within 1e-5", 1)[1].split(" ## ", 1)[0]


@pytest.mark.slow
def test_the_key_bias_of_c_attn_has_only_float_noise_for_a_gradient() -> None:
    source = (ROOT / "examples" / "gpt2_hf.ss").read_text(encoding="utf-8")
    compiled = shapescript.compile(source, "gpt2_hf.ss", devices="cpu")
    m = compiled.Gpt2LMHead.init(seed=0)
    with torch.no_grad():
        for param in m.parameters():
            param.add_(torch.randn_like(param) * 0.1)
    ids = torch.randint(0, 100, (3, 12), generator=torch.Generator().manual_seed(1))
    compiled.loss(m, ids[:, :-1], ids[:, 1:]).backward()
    gradient = m.transformer.h[0].attn.c_attn.bias.grad
    queries, keys, values = gradient.split(64)
    assert keys.abs().max() < 1e-6
    assert queries.abs().max() > 1e-4 and values.abs().max() > 1e-4


def test_the_page_gives_the_condition_of_the_adamw_agreement() -> None:
    paragraph = _after_the_agreement()
    assert "std 0.02" in paragraph
    assert "key bias" in paragraph
