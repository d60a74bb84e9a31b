"""Every export of a model that holds models: the Hugging Face folder, GGUF, .pt2 and
the export module keep each nested param by its full path and give the source's outputs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript.rt import devices

ROOT = Path(__file__).resolve().parents[2]
GPT2_HF = ROOT / "examples" / "gpt2_hf.ss"


@pytest.fixture(autouse=True)
def cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    devices._reset_for_tests()
    yield
    devices._reset_for_tests()


@pytest.mark.slow
def test_a_nested_gpt2s_hf_folder_keeps_every_path_and_gives_its_logits() -> None:
    transformers = pytest.importorskip("transformers")
    from safetensors import safe_open

    Path("gpt2_hf.ss").write_text(GPT2_HF.read_text())
    config = shapescript.export_hf("gpt2_hf.ss", "out_hf", seed=2)
    source = shapescript.compile(GPT2_HF.read_text(), "gpt2_hf.ss", devices="cpu")
    model = source.Gpt2LMHead.init(seed=2)
    with safe_open("out_hf/model.safetensors", "pt") as stored:
        names = set(stored.keys())
        for path, value in model.state_dict().items():
            stored_name = next(n for n in names if n.endswith(path))
            torch.testing.assert_close(stored.get_tensor(stored_name), value)
    assert "model.transformer.h.1.attn.c_attn.weight" in names
    assert len(names) == len(model.state_dict())
    assert set(config["shapescript"]["fields"]) == set(model.state_dict())
    loaded = transformers.AutoModelForCausalLM.from_pretrained("out_hf", trust_remote_code=True)
    ids = torch.tensor([[3, 4, 5, 6], [9, 8, 7, 6]])
    with torch.no_grad():
        got = loaded(input_ids=ids).logits
        want = source.forward(model, ids)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
