"""README.md and docs/pytorch-weights.md quote the error for a torch.nn.Module passed where a
ShapeScript model is expected as it really reads."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import shapescript
from shapescript.rt.errors import ShapeError

transformers = pytest.importorskip("transformers")

ROOT = Path(__file__).resolve().parents[2]


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def message() -> str:
    source = (ROOT / "examples" / "gpt2_hf.ss").read_text(encoding="utf-8")
    compiled = shapescript.compile(source, "gpt2_hf.ss", devices="cpu")
    config = transformers.GPT2Config(
        n_layer=2, n_embd=64, n_head=4, vocab_size=100, n_positions=32, bos_token_id=0
    )
    hf = transformers.GPT2LMHeadModel(config).eval()
    with pytest.raises(ShapeError) as caught:
        compiled.forward(hf, torch.zeros(2, 12, dtype=torch.long))
    return f"ShapeError: {caught.value}"


@pytest.mark.slow
def test_the_pytorch_weights_page_quotes_the_message_whole(message: str) -> None:
    page = (ROOT / "docs" / "pytorch-weights.md").read_text(encoding="utf-8")
    section = page.split("## Passing the PyTorch module by mistake", 1)[1]
    quoted = section.split("```\n", 1)[1].split("```", 1)[0]
    assert _flat(quoted) == _flat(message)


@pytest.mark.slow
def test_the_readme_quotes_the_messages_words(message: str) -> None:
    readme = _flat((ROOT / "README.md").read_text(encoding="utf-8"))
    start = message.index("got a torch.nn.Module")
    assert _flat(message[start:]) in readme
