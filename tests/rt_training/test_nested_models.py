"""Models that hold models: a small GPT with nanoGPT's field names, built from the `.ss` file
beside this one, against the same network written by hand as a torch.nn.Module."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from shapescript import ShapeError
from shapescript.rt.models import Field, Held, Model, check_model
from tests.codegen.compiled import load

SOURCE = (Path(__file__).parent / "nested_gpt.ss").read_text()
V, D, H, DH, DFF, L, N = 32, 16, 2, 8, 64, 2, 8


class Attention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c_attn = nn.Parameter(torch.randn(D, 3 * D) * 0.02)
        self.c_proj = nn.Parameter(torch.randn(D, D) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        q, k, v = (x @ self.c_attn).view(b, n, 3, H, DH).permute(2, 0, 3, 1, 4)
        att = q @ k.transpose(-1, -2) / math.sqrt(DH)
        mask = torch.ones(n, n, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        return (att @ v).transpose(1, 2).reshape(b, n, D) @ self.c_proj


class Mlp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c_fc = nn.Parameter(torch.randn(D, DFF) * 0.02)
        self.c_proj = nn.Parameter(torch.randn(DFF, D) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x @ self.c_fc) @ self.c_proj


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln_1 = nn.Parameter(torch.ones(D))
        self.attn = Attention()
        self.ln_2 = nn.Parameter(torch.ones(D))
        self.mlp = Mlp()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(F.layer_norm(x, (D,), self.ln_1, None, 1e-5))
        return x + self.mlp(F.layer_norm(x, (D,), self.ln_2, None, 1e-5))


class Gpt(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.wte = nn.Parameter(torch.randn(V, D) * 0.02)
        self.wpe = nn.Parameter(torch.randn(N, D) * 0.02)
        self.h = nn.ModuleList(Block() for _ in range(L))
        self.ln_f = nn.Parameter(torch.ones(D))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.wte[ids] + self.wpe[: ids.shape[1]]
        for block in self.h:
            x = block(x)
        return F.layer_norm(x, (D,), self.ln_f, None, 1e-5) @ self.wte.T


@pytest.fixture
def compiled():
    return load(SOURCE, "nested_gpt.ss")


def _batch() -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, V, (3, N), generator=generator)
    return ids, torch.randint(0, V, (3, N), generator=generator)


def _shapes(module: nn.Module) -> dict[str, tuple[int, ...]]:
    return {name: tuple(value.shape) for name, value in module.state_dict().items()}


def test_state_dict_names_are_pytorchs_and_load_both_ways(compiled) -> None:
    m, ref = compiled.Gpt.init(seed=1), Gpt()
    assert _shapes(m) == _shapes(ref)
    assert "h.1.attn.c_attn" in m.state_dict()
    m.load_state_dict(ref.state_dict())
    ids, _ = _batch()
    assert torch.allclose(compiled.forward(m, ids), ref(ids), atol=1e-6)
    other = Gpt()
    other.load_state_dict(compiled.Gpt.init(seed=2).state_dict())
    assert torch.allclose(other(ids), compiled.forward(compiled.Gpt.init(seed=2), ids), atol=1e-6)


def test_three_adamw_steps_match_torch_optim(compiled) -> None:
    m, ref = compiled.Gpt.init(seed=3), Gpt()
    ref.load_state_dict(m.state_dict())
    ids, y = _batch()
    compiled.train(m, ids, y, 3)
    opt = torch.optim.AdamW(ref.parameters(), lr=1e-2)
    for _ in range(3):
        opt.zero_grad()
        F.cross_entropy(ref(ids).reshape(-1, V), y.reshape(-1)).backward()
        opt.step()
    for name, value in ref.state_dict().items():
        assert torch.allclose(m.state_dict()[name], value, atol=1e-6), (
            name,
            (m.state_dict()[name] - value).abs().max(),
        )


def test_gradients_and_assignment_follow_the_nesting(compiled) -> None:
    m, ref = compiled.Gpt.init(seed=4), Gpt()
    ref.load_state_dict(m.state_dict())
    ids, y = _batch()
    F.cross_entropy(ref(ids).reshape(-1, V), y.reshape(-1)).backward()
    found = compiled.first_block_grad(m, ids, y)
    assert torch.allclose(found, ref.h[0].attn.c_attn.grad, atol=1e-6)
    before = m.h[1].attn.c_proj.detach().clone()
    param = m.h[1].attn.c_proj
    compiled.scale_last(m, 2.0)
    assert m.h[1].attn.c_proj is param
    assert torch.allclose(m.h[1].attn.c_proj, before * 2)


def test_each_nested_param_is_seeded_from_its_path(compiled) -> None:
    first, again = compiled.Gpt.init(seed=5), compiled.Gpt.init(seed=5)
    for name, value in first.state_dict().items():
        assert torch.equal(value, again.state_dict()[name])
    assert not torch.equal(first.h[0].attn.c_attn, first.h[1].attn.c_attn)


def test_flat_models_keep_their_seeded_values() -> None:
    import hashlib

    field = Field("w", "param", (3,), "f32", ("normal", {"mean": 0.0, "std": 1.0}))
    flat = type("Flat", (Model,), {"_ss_fields": (field,)}).init(seed=7)
    digest = hashlib.sha256(b"7/w").digest()
    generator = torch.Generator().manual_seed(int.from_bytes(digest[:8], "big"))
    assert torch.equal(flat.w.detach(), torch.empty(3).normal_(0.0, 1.0, generator=generator))


def test_a_model_argument_checks_the_models_it_holds(compiled) -> None:
    where = {"path": "nested_gpt.ss", "line": 1, "column": 1, "function": "f", "parameter": "m"}
    m = compiled.Gpt.init(seed=0)
    check_model(m, compiled.Gpt, where)
    with torch.no_grad():
        m.h[1].attn._parameters["c_proj"] = nn.Parameter(torch.zeros(2, 2))
    with pytest.raises(ShapeError, match=r"h\.1\.attn"):
        check_model(m, compiled.Gpt, where)
    with pytest.raises(ShapeError, match="a torch.nn.Module `Gpt` from .*, not a ShapeScript"):
        check_model(Gpt(), compiled.Gpt, where)


def test_held_fields_build_module_lists() -> None:
    inner = type(
        "Inner", (Model,), {"_ss_fields": (Field("w", "param", (2,), "f32", ("zeros", {})),)}
    )
    outer = type("Outer", (Model,), {"_ss_held": (Held("h", inner, 3), Held("one", inner))})
    made = outer.init(seed=0)
    assert isinstance(made.h, nn.ModuleList) and len(made.h) == 3
    assert outer._ss_params == ("h.0.w", "h.1.w", "h.2.w", "one.w")
    assert [name for name, _ in made.named_parameters()] == list(outer._ss_params)


def test_params_of_walks_held_models_in_named_parameters_order(compiled) -> None:
    from shapescript.rt.models import params_of

    m = compiled.Gpt.init(seed=6)
    found = params_of(m)
    assert len(found) == len(compiled.Gpt._ss_params)
    assert all(mine is theirs for mine, theirs in zip(found, m.parameters(), strict=True))


def test_a_stack_of_another_length_names_the_model_that_holds_it(compiled) -> None:
    where = {"path": "nested_gpt.ss", "line": 1, "column": 1, "function": "f", "parameter": "m"}
    m = compiled.Gpt.init(seed=0)
    del m.h[1]
    with pytest.raises(ShapeError, match=r"a Gpt whose h isn't 2 Block models"):
        check_model(m, compiled.Gpt, where)
