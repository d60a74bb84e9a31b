"""GPT-2 written from the docs alone loads HF's weights and trains as HF's model does."""

from __future__ import annotations

import copy
import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import torch

transformers = pytest.importorskip("transformers")

import shapescript  # noqa: E402
import shapescript.rt as rt  # noqa: E402

HERE = Path(__file__).parent
VOCAB = 96
POSITIONS = 32
LR = 1e-3
BETA1, BETA2 = 0.9, 0.95
WEIGHT_DECAY = 0.1
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def gpt2() -> ModuleType:
    """The .ss program, imported through the import hook."""
    shapescript.install()
    shapescript.devices("cpu")
    sys.path.insert(0, str(HERE))
    try:
        return importlib.import_module("outsider_gpt2")
    finally:
        sys.path.remove(str(HERE))


def make_hf(initializer_range: float) -> Any:
    """A small random GPT2LMHeadModel without dropout; its activation is HF's default, gelu_new."""
    config = transformers.GPT2Config(
        n_layer=2,
        n_head=4,
        n_embd=64,
        vocab_size=VOCAB,
        n_positions=POSITIONS,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
        bos_token_id=0,
        eos_token_id=0,
        initializer_range=initializer_range,
    )
    assert config.activation_function == "gelu_new"
    torch.manual_seed(0)
    return transformers.GPT2LMHeadModel(config)


@pytest.fixture(scope="module")
def hf_initial() -> Any:
    """HF's model at its default initial scale (std 0.02)."""
    return make_hf(0.02)


@pytest.fixture(scope="module")
def hf_large() -> Any:
    """HF's model with weights five times the default scale, so activations reach the
    range where gelu_new and exact GELU differ by far more than the tolerance."""
    return make_hf(0.1)


def loaded_pair(gpt2: ModuleType, hf_initial: Any) -> tuple[Any, Any]:
    """A copy of HF's model and the ShapeScript model holding the same weights."""
    hf = copy.deepcopy(hf_initial)
    m = gpt2.Gpt2LMHead.init(seed=1)
    result = m.load_state_dict(hf.state_dict(), strict=False)
    assert result.missing_keys == []
    assert result.unexpected_keys == ["lm_head.weight"]
    return hf, m


def token_batches(count: int, seed: int = 1) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.randint(0, VOCAB, (4, POSITIONS), generator=generator) for _ in range(count)]


def max_param_difference(m: Any, hf: Any) -> float:
    hf_state = hf.state_dict()
    return max(
        (value - hf_state[name]).abs().max().item() for name, value in m.state_dict().items()
    )


def hf_step(hf: Any, opt: torch.optim.Optimizer, ids: torch.Tensor) -> float:
    opt.zero_grad()
    loss = hf(ids, labels=ids).loss
    loss.backward()
    opt.step()
    return loss.item()


def ss_step(gpt2: ModuleType, m: Any, opt: Any, ids: torch.Tensor) -> float:
    return gpt2.train_step(m, opt, ids[:, :-1], ids[:, 1:]).item()


def hf_adamw(hf: Any) -> torch.optim.Optimizer:
    return torch.optim.AdamW(
        hf.parameters(), lr=LR, betas=(BETA1, BETA2), weight_decay=WEIGHT_DECAY
    )


def ss_adamw(m: Any) -> Any:
    return rt.adamw(m, lr=LR, beta1=BETA1, beta2=BETA2, weight_decay=WEIGHT_DECAY)


def assert_same_state(a: Any, b: Any, where: str = "") -> None:
    """Exact equality of nested optimizer state dicts (tensors with torch.equal)."""
    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor) and torch.equal(a, b), where
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            assert_same_state(a[key], b[key], f"{where}/{key}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same_state(x, y, f"{where}/{index}")
    else:
        assert a == b, where


def test_loads_every_hf_weight_by_name(gpt2: ModuleType, hf_initial: Any) -> None:
    hf, m = loaded_pair(gpt2, hf_initial)
    hf_state = hf.state_dict()
    assert set(m.state_dict()) == set(hf_state) - {"lm_head.weight"}
    for name, value in m.state_dict().items():
        assert torch.equal(value, hf_state[name]), name


def test_weights_load_back_into_hf(gpt2: ModuleType, hf_initial: Any, hf_large: Any) -> None:
    _, m = loaded_pair(gpt2, hf_large)
    hf = copy.deepcopy(hf_initial)
    result = hf.load_state_dict(m.state_dict(), strict=False)
    assert result.missing_keys == ["lm_head.weight"] and result.unexpected_keys == []
    assert hf.lm_head.weight is hf.transformer.wte.weight
    for name, value in hf_large.state_dict().items():
        assert torch.equal(hf.state_dict()[name], value), name


@pytest.mark.parametrize("scale", ["default", "large"])
def test_logits_match_hf(gpt2: ModuleType, hf_initial: Any, hf_large: Any, scale: str) -> None:
    hf, m = loaded_pair(gpt2, hf_initial if scale == "default" else hf_large)
    hf.eval()
    for ids in [*token_batches(2), torch.randint(0, VOCAB, (3, 7))]:
        with torch.no_grad():
            expected = hf(ids).logits
            got = gpt2.forward(m, ids)
        torch.testing.assert_close(got, expected, atol=TOLERANCE, rtol=0)


def test_loss_is_hf_labels_loss(gpt2: ModuleType, hf_initial: Any) -> None:
    hf, m = loaded_pair(gpt2, hf_initial)
    hf.eval()
    (ids,) = token_batches(1)
    with torch.no_grad():
        expected = hf(ids, labels=ids).loss
        got = gpt2.loss(m, ids[:, :-1], ids[:, 1:])
    torch.testing.assert_close(got, expected, atol=TOLERANCE, rtol=0)


@pytest.mark.slow
def test_five_adamw_steps_match_torch_adamw_on_hf(gpt2: ModuleType, hf_initial: Any) -> None:
    # At HF's default scale. The key part of `c_attn.bias` has no true gradient (softmax
    # ignores a shift shared by all keys), so both sides see float noise there; once that
    # noise nears AdamW's eps (it does at 5x the scale), the first step turns it into
    # updates of up to lr that differ between any two implementations.
    hf, m = loaded_pair(gpt2, hf_initial)
    hf.train()
    hf_opt, opt = hf_adamw(hf), ss_adamw(m)
    for step, ids in enumerate(token_batches(5), start=1):
        hf_loss = hf_step(hf, hf_opt, ids)
        loss = ss_step(gpt2, m, opt, ids)
        assert loss == pytest.approx(hf_loss, abs=TOLERANCE), f"loss of step {step}"
        difference = max_param_difference(m, hf)
        print(f"step {step}: losses {loss:.7f} {hf_loss:.7f}, params within {difference:.2e}")
        assert difference <= TOLERANCE, f"params after step {step} differ by {difference}"
    moved = gpt2.Gpt2LMHead.init(seed=1)
    moved.load_state_dict(hf_initial.state_dict(), strict=False)
    assert max_param_difference(moved, hf) > 10 * TOLERANCE, "the steps moved nothing"


@pytest.mark.slow
def test_save_and_load_restore_params_and_optimizer_state(
    gpt2: ModuleType, hf_initial: Any, tmp_path: Path
) -> None:
    _, m = loaded_pair(gpt2, hf_initial)
    opt = ss_adamw(m)
    batches = token_batches(6)
    for ids in batches[:5]:
        ss_step(gpt2, m, opt, ids)
    saved_state = opt.state_dict()
    assert saved_state["steps"] == 5
    moments = saved_state["torch"]["state"]
    assert len(moments) == len(m.state_dict())
    assert all({"exp_avg", "exp_avg_sq"} <= moment.keys() for moment in moments.values())
    path = tmp_path / "gpt2.pt"
    shapescript.save(str(path), m, opt)
    loaded_m, loaded_opt = shapescript.load(
        str(path), gpt2.Gpt2LMHead, shapescript.AdamW[gpt2.Gpt2LMHead]
    )
    assert loaded_m is not m
    assert loaded_m.state_dict().keys() == m.state_dict().keys()
    for name, value in m.state_dict().items():
        assert torch.equal(loaded_m.state_dict()[name], value), name
    assert_same_state(loaded_opt.state_dict(), opt.state_dict())

    sixth = batches[5]
    loss_after_load = ss_step(gpt2, loaded_m, loaded_opt, sixth)
    loss_without = ss_step(gpt2, m, opt, sixth)
    assert loss_after_load == loss_without
    for name, value in m.state_dict().items():
        assert torch.equal(loaded_m.state_dict()[name], value), name
    assert_same_state(loaded_opt.state_dict(), opt.state_dict())
