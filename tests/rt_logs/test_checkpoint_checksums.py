"""Checkpoints carry checksums: damaged tensor data or metadata fails to load, naming what
changed; files written before checksums load with a warning, once per file."""

from __future__ import annotations

import struct
import warnings
from pathlib import Path

import pytest
import torch

from shapescript.rt import checkpoints
from shapescript.rt.checkpoints import AdamW, load, save
from shapescript.rt.errors import ShapeError
from shapescript.rt.gradients import value_and_grad
from shapescript.rt.optimizers import adamw, update
from tests.rt_training.nets import Mlp, Tiny, tiny_loss


def _mlp_with_known_w1() -> Mlp:
    """An Mlp whose `w1` holds a pattern that can be found in the file's bytes."""
    m = Mlp.init(seed=0)
    with torch.no_grad():
        m.w1.copy_(torch.arange(m.w1.numel(), dtype=torch.float32).reshape(m.w1.shape))
    return m


def _flip(path: Path, start: int, count: int) -> None:
    data = bytearray(path.read_bytes())
    for position in range(start, start + count):
        data[position] ^= 0x5A
    path.write_bytes(bytes(data))


def test_flipped_bytes_inside_a_tensor_name_the_field(tmp_path: Path) -> None:
    m = _mlp_with_known_w1()
    path = tmp_path / "ckpt.pt"
    save(path, m, 3)
    data = path.read_bytes()
    w1 = m.w1.detach().numpy().tobytes()
    start = data.find(w1)
    assert start >= 0, "the field's bytes aren't stored as they are"
    _flip(path, start + len(w1) // 2, 4096)
    with pytest.raises(ShapeError) as raised:
        load(path, Mlp, int)
    message = str(raised.value)
    assert "field `w1` of value 1 (`Mlp`)" in message
    assert "checksum" in message
    assert "b1" not in message


def test_damaged_optimizer_state_names_the_param_and_its_moment(tmp_path: Path) -> None:
    m = Tiny.init(seed=0)
    opt = adamw(m, lr=0.1)
    _value, g = value_and_grad(tiny_loss, m, torch.full((5, 3), 0.1))
    update(m, opt, g)
    path = tmp_path / "ckpt.pt"
    save(path, m, opt)
    moment = opt.torch.state[opt._params[0]]["exp_avg_sq"].numpy().tobytes()
    data = path.read_bytes()
    start = data.find(moment)
    assert start >= 0
    _flip(path, start, 4)
    with pytest.raises(
        ShapeError, match=r"`exp_avg_sq` of param `w` in value 2 \(`AdamW\[Tiny\]`\)"
    ):
        load(path, Tiny, AdamW[Tiny])


def test_a_changed_number_in_the_metadata_is_found(tmp_path: Path) -> None:
    path = tmp_path / "ckpt.pt"
    save(path, Tiny.init(seed=0), 0.125)
    data = path.read_bytes()
    # The pickle holds a float as BINFLOAT: "G" and the big-endian double.
    old, new = b"G" + struct.pack(">d", 0.125), b"G" + struct.pack(">d", 0.5)
    assert data.count(old) == 1
    path.write_bytes(data.replace(old, new))
    with pytest.raises(ShapeError, match="metadata doesn't match its checksum"):
        load(path, Tiny, float)


def _old_save(path: Path, *values: object) -> None:
    """What `save` wrote before checksums: version 1, the same entries, no checksums."""
    entries = [checkpoints._entry(value, i, values, {}) for i, value in enumerate(values)]
    torch.save({"format": checkpoints.FORMAT, "version": 1, "values": entries}, path)


def test_a_file_without_checksums_loads_with_a_warning_once(tmp_path: Path) -> None:
    m = Tiny.init(seed=0)
    path = tmp_path / "old.pt"
    _old_save(path, m, 4)
    with pytest.warns(UserWarning, match=r"`.*old\.pt` has no checksums") as caught:
        m2, steps = load(path, Tiny, int)
    assert len(caught) == 1
    assert steps == 4
    assert torch.equal(m2.w, m.w)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load(path, Tiny, int)


def test_the_file_has_its_checksums(tmp_path: Path) -> None:
    path = tmp_path / "c.pt"
    save(path, Tiny.init(seed=0), 1)
    data = torch.load(path, weights_only=True)
    assert data["version"] == 2
    assert data["checksums"].keys() == {"metadata", "tensors"}
    assert len(data["checksums"]["tensors"]) == 4
