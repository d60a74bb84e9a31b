"""Hugging Face folders load with transformers, in a Python without shapescript, and give
the source's outputs; generate gives the source's greedy tokens."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript import cli
from shapescript.rt import devices
from tests.export.programs import ENCODER

pytest.importorskip("transformers")
pytest.importorskip("safetensors")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

LANGUAGE = """
import sys
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained(sys.argv[1], trust_remote_code=True)
prompt = torch.tensor([[1, 5, 7]])
tokens = model.generate(prompt, max_new_tokens=16, do_sample=False)
logits = model(input_ids=torch.tensor([[3, 4, 5, 6], [9, 8, 7, 6]])).logits
assert not [name for name in sys.modules if name.split(".")[0] == "shapescript"]
torch.save({"tokens": tokens, "logits": logits}, sys.argv[2])
"""

ANY_MODEL = """
import sys
import torch
from transformers import AutoModel

model = AutoModel.from_pretrained(sys.argv[1], trust_remote_code=True)
x = torch.load(sys.argv[3])
assert not [name for name in sys.modules if name.split(".")[0] == "shapescript"]
torch.save(model(x), sys.argv[2])
"""


@pytest.fixture(autouse=True)
def cpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    devices._reset_for_tests()
    yield
    devices._reset_for_tests()


def without_shapescript(script: str, *args: str) -> None:
    subprocess.run([sys.executable, "-c", script, *args], check=True, timeout=600)


@pytest.mark.parametrize(("example", "model_name"), [("gpt2", "Gpt2"), ("llama", "Llama")])
def test_the_examples_folder_loads_and_generates_the_sources_greedy_tokens(
    example: str, model_name: str
) -> None:
    text = (ROOT / "examples" / f"{example}.ss").read_text()
    Path(f"{example}.ss").write_text(text)
    assert cli.main(["export", f"{example}.ss", "--hf", "out_hf", "--seed", "3"]) == 0
    config = json.loads(Path("out_hf/config.json").read_text())
    assert config["architectures"] == ["ShapeScriptForCausalLM"]
    assert config["max_position_embeddings"] in (128, 256)
    assert config["shapescript"]["vllm"] is True
    assert config["num_hidden_layers"] == 2
    assert config["attention_scales"] == [0.25, 0.25]  # torch's default, 1/sqrt(16)
    from safetensors import safe_open

    with safe_open("out_hf/model.safetensors", "pt") as stored:
        names = set(stored.keys())
    assert "model.embed_tokens.weight" in names
    # gpt2 ties its output layer to the embedding table; llama has its own.
    assert ("lm_head.weight" in names) == (example == "llama")
    without_shapescript(LANGUAGE, "out_hf", "out.pt")
    got = torch.load("out.pt")
    source = shapescript.compile(text, f"{example}.ss", devices="cpu")
    model = getattr(source, model_name).init(seed=3)
    with torch.no_grad():
        ids = torch.tensor([[3, 4, 5, 6], [9, 8, 7, 6]])
        want = source.forward(model, ids, torch.arange(4).expand(2, 4))
        torch.testing.assert_close(got["logits"], want, atol=1e-5, rtol=1e-5)
        tokens = torch.tensor([[1, 5, 7]])
        for _ in range(16):
            positions = torch.arange(tokens.shape[1])[None]
            logits = source.forward(model, tokens, positions)
            tokens = torch.cat([tokens, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    assert got["tokens"].tolist() == tokens.tolist()


def test_a_model_that_isnt_a_language_model_loads_with_automodel() -> None:
    Path("enc.ss").write_text(ENCODER)
    config = shapescript.export_hf("enc.ss", "enc_hf", seed=1)
    assert config["architectures"] == ["ShapeScriptModel"]
    assert config["shapescript"]["unservable"].startswith("E3301")
    assert config["shapescript"]["vllm"] is False
    x = torch.randn(2, 5, 8)
    torch.save(x, "x.pt")
    without_shapescript(ANY_MODEL, "enc_hf", "y.pt", "x.pt")
    source = shapescript.compile(ENCODER, "enc.ss", devices="cpu")
    with torch.no_grad():
        want = source.forward(source.Encoder.init(seed=1), x)
    torch.testing.assert_close(torch.load("y.pt"), want, atol=1e-5, rtol=1e-5)


def test_a_folder_shapescript_wrote_is_replaced() -> None:
    Path("enc.ss").write_text(ENCODER)
    shapescript.export_hf("enc.ss", "enc_hf", seed=1, verify=False)
    shapescript.export_hf("enc.ss", "enc_hf", seed=2, verify=False)
    assert Path("enc_hf/model.safetensors").is_file()


COUNTING = """
import sys
import torch
from transformers import AttentionInterface, AutoModelForCausalLM
from transformers.integrations.sdpa_attention import sdpa_attention_forward

seen = []


def counting(module, query, key, value, attention_mask, **kwargs):
    seen.append([module.layer_idx, list(query.shape), module.scaling])
    return sdpa_attention_forward(module, query, key, value, attention_mask, **kwargs)


AttentionInterface.register("counting", counting)
ids = torch.tensor([[3, 4, 5, 6, 7]])
counted = AutoModelForCausalLM.from_pretrained(
    sys.argv[1], trust_remote_code=True, attn_implementation="counting"
)
eager = AutoModelForCausalLM.from_pretrained(sys.argv[1], trust_remote_code=True)
difference = (counted(input_ids=ids).logits - eager(input_ids=ids).logits).abs().max().item()
torch.save({"seen": seen, "difference": difference}, sys.argv[2])
"""


def test_each_attention_goes_through_transformers_attention_table() -> None:
    Path("llama.ss").write_text((ROOT / "examples" / "llama.ss").read_text())
    shapescript.export_hf("llama.ss", "llama_hf", verify=False)
    without_shapescript(COUNTING, "llama_hf", "seen.pt")
    result = torch.load("seen.pt")
    assert result["seen"] == [[0, [1, 4, 5, 16], 0.25], [1, [1, 4, 5, 16], 0.25]]
    assert result["difference"] < 1e-5


def test_weights_from_a_checkpoint_that_also_holds_an_optimizer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A training checkpoint (model and optimizer) gives its first model of the type, as
    `-o x.pt2 --weights` does; a file without one says so, naming no code of ours."""
    from safetensors.torch import load_file

    from shapescript.rt.checkpoints import save
    from shapescript.rt.optimizers import adamw

    Path("enc.ss").write_text(ENCODER)
    source = shapescript.compile(ENCODER, "enc.ss", devices="cpu")
    trained = source.Encoder.init(seed=7)
    save("ckpt.pt", trained, adamw(trained, lr=1e-3))
    assert cli.main(["export", "enc.ss", "--hf", "enc_hf", "--weights", "ckpt.pt"]) == 0
    torch.testing.assert_close(load_file("enc_hf/model.safetensors")["w"], trained.w.detach())
    save("steps.pt", 3)
    assert cli.main(["export", "enc.ss", "--hf", "enc_hf2", "--weights", "steps.pt"]) == 1
    err = capsys.readouterr().err
    assert "`steps.pt` holds no `Encoder` model: it holds 1 value (int)" in err
    assert ".py:" not in err


def test_weights_from_a_checkpoint_in_bfloat16_are_verified() -> None:
    from safetensors.torch import load_file

    Path("enc.ss").write_text(ENCODER)
    source = shapescript.compile(ENCODER, "enc.ss", devices="cpu")
    trained = source.Encoder.init(seed=7)
    shapescript.save("ckpt.pt", trained)
    config = shapescript.export_hf("enc.ss", "enc_hf", weights="ckpt.pt", dtype="bfloat16")
    assert config["dtype"] == "bfloat16"
    stored = load_file("enc_hf/model.safetensors")
    assert stored["w"].dtype == torch.bfloat16
    torch.testing.assert_close(stored["w"], trained.w.detach().to(torch.bfloat16))
