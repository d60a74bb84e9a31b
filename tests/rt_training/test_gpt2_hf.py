"""examples/gpt2_hf.ss against transformers.GPT2LMHeadModel (small config, random weights,
no download): HF's state dict loads by name, the logits agree, five AdamW steps agree with
torch.optim.AdamW on HF's model, and the trained model round-trips through save/load."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from shapescript.rt.checkpoints import AdamW, load, save
from shapescript.rt.models import tensors_of
from shapescript.rt.optimizers import adamw
from tests.codegen.compiled import load as compile_source

transformers = pytest.importorskip("transformers")

ROOT = Path(__file__).resolve().parents[2]
SOURCE = (ROOT / "examples" / "gpt2_hf.ss").read_text()
V, P, N = 100, 32, 12
TOLERANCE = 1e-5


def _hf_model() -> torch.nn.Module:
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        n_layer=2,
        n_embd=64,
        n_head=4,
        vocab_size=V,
        n_positions=P,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=0,
        eos_token_id=0,
    )
    model = transformers.GPT2LMHeadModel(config).float()
    # Biases and norms start at 0 and 1 in both; make them random so a mix-up shows.
    with torch.no_grad():
        for name, value in model.named_parameters():
            if name.endswith("bias") or "ln_" in name:
                value.add_(torch.randn_like(value) * 0.1)
    return model.eval()


def _ids(seed: int, rows: int = 3) -> torch.Tensor:
    return torch.randint(0, V, (rows, N), generator=torch.Generator().manual_seed(seed))


@pytest.fixture(scope="module")
def compiled():
    return compile_source(SOURCE, "gpt2_hf.ss")


def _loaded(compiled, hf: torch.nn.Module):
    m = compiled.Gpt2LMHead.init(seed=0)
    result = m.load_state_dict(hf.state_dict(), strict=False)
    assert result.missing_keys == []
    # HF lists the tied output layer under its own name too; old versions also keep the
    # causal mask buffers `attn.bias` and `attn.masked_bias`, which the model computes.
    assert "lm_head.weight" in result.unexpected_keys
    assert all(
        key == "lm_head.weight" or key.endswith((".attn.bias", ".attn.masked_bias"))
        for key in result.unexpected_keys
    ), result.unexpected_keys
    assert torch.equal(hf.state_dict()["lm_head.weight"], m.transformer.wte.weight)
    return m


def _assert_close(mine: torch.Tensor, theirs: torch.Tensor, what: str) -> None:
    difference = (mine - theirs).abs().max().item()
    assert difference <= TOLERANCE, f"{what}: largest difference {difference}"


@pytest.mark.slow
def test_hf_weights_load_by_name_and_give_hf_logits(compiled) -> None:
    hf = _hf_model()
    m = _loaded(compiled, hf)
    names = set(tensors_of(m))
    assert "transformer.h.1.attn.c_attn.weight" in names
    assert names == set(hf.state_dict()) - {"lm_head.weight"} - {
        key for key in hf.state_dict() if key.endswith((".attn.bias", ".attn.masked_bias"))
    }
    ids = _ids(1)
    with torch.no_grad():
        expected = hf(ids).logits
    _assert_close(compiled.forward(m, ids), expected, "logits")


@pytest.mark.slow
def test_five_adamw_steps_match_torch_optim_on_hf_and_round_trip(compiled, tmp_path) -> None:
    hf = _hf_model()
    m = _loaded(compiled, hf)
    options = {"lr": 6e-4, "weight_decay": 0.1, "eps": 1e-8}
    opt = adamw(m, lr=options["lr"], weight_decay=0.1, eps=1e-8)
    reference = torch.optim.AdamW(hf.parameters(), **options)
    for step in range(5):
        ids = _ids(10 + step)
        # HF shifts the labels inside; ShapeScript's loss takes the shifted targets.
        reference.zero_grad()
        expected = hf(ids, labels=ids).loss
        expected.backward()
        reference.step()
        found = compiled.step(m, opt, ids[:, :-1], ids[:, 1:])
        _assert_close(found, expected.detach(), f"loss of step {step}")
    trained = hf.state_dict()
    for name, tensor in tensors_of(m).items():
        _assert_close(tensor, trained[name], name)
    with torch.no_grad():
        _assert_close(compiled.forward(m, _ids(2)), hf(_ids(2)).logits, "logits after training")

    save(tmp_path / "gpt2_hf.pt", m, opt)
    again, again_opt = load(
        tmp_path / "gpt2_hf.pt", compiled.Gpt2LMHead, AdamW[compiled.Gpt2LMHead]
    )
    for name, tensor in tensors_of(m).items():
        assert torch.equal(tensors_of(again)[name], tensor), name
    ids = _ids(20)
    assert torch.equal(
        compiled.step(again, again_opt, ids[:, :-1], ids[:, 1:]),
        compiled.step(m, opt, ids[:, :-1], ids[:, 1:]),
    )
    for name, tensor in tensors_of(m).items():
        assert torch.equal(tensors_of(again)[name], tensor), name
