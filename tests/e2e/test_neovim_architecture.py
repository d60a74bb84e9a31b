"""The architecture's text list in a real Neovim's hover, through `nvim_lsp_probe.py`.

Neovim shows no images in hovers, so hovering a model's name draws the text list:
one line per layer with ↓, ⊕ and frames. Also checks `shapescript/architecture` and
`shapescript/setArchitectureDetail` from Neovim's own client.
"""

from __future__ import annotations

import pytest

from tests.e2e.test_neovim import NVIM, PROBE, REPO, Run, probe

pytestmark = pytest.mark.slow

STEPS = [
    {"op": "diagnostics", "name": "open"},
    {"op": "hover", "name": "hover model", "find": "model Gpt", "offset": 6},
    {"op": "hover", "name": "hover forward", "find": "fn forward", "offset": 3},
    {
        "op": "request",
        "name": "architecture",
        "method": "shapescript/architecture",
        "find": "model Gpt",
        "offset": 6,
    },
    {
        "op": "notify",
        "name": "set detail",
        "method": "shapescript/setArchitectureDetail",
        "params": {"detail": "operations"},
    },
    {"op": "hover", "name": "hover operations", "find": "model Gpt", "offset": 6},
]


@pytest.fixture(scope="module")
def gpt(tmp_path_factory) -> Run:
    assert PROBE.is_file() and NVIM
    text = (REPO / "examples" / "gpt.ss").read_text(encoding="utf-8")
    return probe(tmp_path_factory.mktemp("nvim-gpt"), "gpt.ss", text, STEPS)


def test_hover_on_the_model_shows_the_text_list(gpt: Run):
    assert gpt.step("open")["count"] == 0
    text = gpt.step("hover model")["text"]
    assert "Architecture of Gpt, from [forward](" in text.replace("**", "")
    for line in (
        "• ids",
        "↓ Embedding V → D",
        "┌ Transformer block (block) × L = 6",
        "│ ↓ Multi-head attention · H heads · causal",
        "│ ⊕ + x",
        "│ ↓ MLP D → Dff → D · GELU",
        "↓ Linear D → V · tied to wte",
        "↓ Cross-entropy over V",
        "← targets [b n] Index[V]",
    ):
        assert line in text, f"{line!r} not in the hover:\n{text}"
    assert "data:image" not in text
    assert "Architecture of Gpt" in gpt.step("hover forward")["text"]


def test_request_and_detail_switch(gpt: Run):
    answer = gpt.step("architecture")["result"]
    assert answer["model"] == "Gpt" and answer["detail"] == "layers"
    assert 'data-node="forward.1"' in answer["svg"]
    gpt.step("set detail")
    text = gpt.step("hover operations")["text"]
    assert "↓ layer_norm over D" in text and "← m.w_qkv [D 3*D]" in text
