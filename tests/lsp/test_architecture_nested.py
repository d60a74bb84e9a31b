"""`shapescript/architecture` over the protocol for a model that holds models."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from tests.lsp.test_features import open_document, position

ROOT = Path(__file__).resolve().parents[2]
NESTED = (ROOT / "tests/rt_training/nested_gpt.ss").read_text(encoding="utf-8")


@pytest.mark.asyncio
async def test_the_request_draws_a_stack_once_with_its_count(client: LanguageClient):
    uri = await open_document(client, NESTED, "nested_gpt.ss")
    assert list(client.diagnostics[uri]) == []
    where = position(NESTED, "model Gpt", 6)
    layers = await client.protocol.send_request_async(
        "shapescript/architecture",
        {
            "textDocument": {"uri": uri},
            "position": {"line": where.line, "character": where.character},
        },
    )
    assert layers.model == "Gpt"
    assert layers.summary == (
        "Architecture of Gpt: Embedding → Transformer block × 2 → LayerNorm → Linear · tied"
    )
    assert "┌ Transformer block (block) × L = 2" in layers.text
    assert "h[l].attn.c_attn [D (3 D)], h[l].attn.c_proj [D D]" in layers.text
    assert "Transformer block × L = 2" in layers.svg
    followed = [link.label for link in layers.links if link.kind == "followed"]
    assert followed[:3] == ["block", "attend", "feed"]
