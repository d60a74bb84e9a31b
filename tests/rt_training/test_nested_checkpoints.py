"""Checkpoints of models that hold models: every nested param and its AdamW state round-trip
exactly, and `update` checks the nested params of a gradient."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from shapescript import ShapeError
from shapescript.rt.checkpoints import AdamW, load, save
from shapescript.rt.gradients import Grad, value_and_grad
from shapescript.rt.models import tensors_of
from shapescript.rt.optimizers import adamw, update
from tests.codegen.compiled import load as compile_source

SOURCE = (Path(__file__).parent / "nested_gpt.ss").read_text()
V, N = 32, 8


@pytest.fixture
def compiled():
    return compile_source(SOURCE, "nested_gpt.ss")


def _batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(step)
    ids = torch.randint(0, V, (2, N), generator=generator)
    return ids, torch.randint(0, V, (2, N), generator=generator)


def _steps(compiled, m, opt, first: int, last: int) -> None:
    for step in range(first, last):
        ids, y = _batch(step)
        _value, g = value_and_grad(compiled.loss, m, ids, y)
        update(m, opt, g)


def test_a_nested_model_and_its_adamw_state_round_trip(compiled, tmp_path: Path) -> None:
    straight = compiled.Gpt.init(seed=0)
    straight_opt = adamw(straight, lr=1e-2, weight_decay=0.1)
    _steps(compiled, straight, straight_opt, 0, 4)

    m = compiled.Gpt.init(seed=0)
    opt = adamw(m, lr=1e-2, weight_decay=0.1)
    _steps(compiled, m, opt, 0, 2)
    save(tmp_path / "nested.pt", m, opt)
    saved = tensors_of(m)
    m, opt = load(tmp_path / "nested.pt", compiled.Gpt, AdamW[compiled.Gpt])
    for name, tensor in saved.items():
        assert torch.equal(tensors_of(m)[name], tensor), name
    _steps(compiled, m, opt, 2, 4)

    assert list(tensors_of(m)) == list(tensors_of(straight))
    assert "h.1.attn.c_attn" in tensors_of(m)
    for name, tensor in tensors_of(straight).items():
        assert torch.equal(tensors_of(m)[name], tensor), name
    mine, theirs = opt.torch.state_dict()["state"], straight_opt.torch.state_dict()["state"]
    assert len(mine) == len(theirs) == len(compiled.Gpt._ss_params)
    for index, entry in theirs.items():
        for key, value in entry.items():
            assert torch.equal(mine[index][key], value), (index, key)


def test_optimizer_state_saved_alone_loads_for_a_nested_model(compiled, tmp_path: Path) -> None:
    m = compiled.Gpt.init(seed=1)
    opt = adamw(m, lr=1e-2)
    _steps(compiled, m, opt, 0, 1)
    save(tmp_path / "opt.pt", opt)
    loaded = load(tmp_path / "opt.pt", AdamW[compiled.Gpt])
    assert loaded.model_type is compiled.Gpt
    _steps(compiled, m, loaded, 1, 2)
    _steps(compiled, m, opt, 1, 2)


def test_the_file_names_nested_fields_by_their_full_paths(compiled, tmp_path: Path) -> None:
    m = compiled.Gpt.init(seed=2)
    save(tmp_path / "m.pt", m)
    data = torch.load(tmp_path / "m.pt", weights_only=True)
    names = [field["name"] for field in data["values"][0]["fields"]]
    assert "h.0.attn.c_attn" in names and "h.1.mlp.c_proj" in names


def test_update_checks_the_nested_params_of_a_gradient(compiled) -> None:
    m = compiled.Gpt.init(seed=3)
    opt = adamw(m, lr=1e-2)
    values = {name: torch.zeros_like(value) for name, value in m.named_parameters()}
    values["h.1.attn.c_proj"] = torch.zeros(2, 2)
    with pytest.raises(ShapeError, match=r"h\.1\.attn\.c_proj"):
        update(m, opt, Grad(compiled.Gpt, values))
