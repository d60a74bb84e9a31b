"""The export module writes its `.pt2` by the rules of `shapescript.atomic_write` without
importing shapescript: a new file beside the output, renamed over it."""

from __future__ import annotations

import os

import pytest

from shapescript import atomic_write
from shapescript.export.helpers import HELPERS


@pytest.fixture
def replacing():
    space: dict = {}
    exec(HELPERS, space)
    return space["_ss_replacing"]


def test_the_output_is_replaced_whole_and_a_named_link_written_through(tmp_path, replacing):
    real = tmp_path / "real.pt2"
    real.write_bytes(b"old")
    link = tmp_path / "out.pt2"
    link.symlink_to(real)
    with replacing(str(link)) as stream:
        stream.write(b"new")
        stream.seek(0)  # AOTInductor seeks in the stream it is given
        stream.write(b"N")
    assert link.is_symlink()
    assert real.read_bytes() == b"New"
    assert sorted(os.listdir(tmp_path)) == ["out.pt2", "real.pt2"]


def test_a_failed_export_leaves_the_old_file_and_no_temporary(tmp_path, replacing):
    output = tmp_path / "model.pt2"
    output.write_bytes(b"old")
    with pytest.raises(RuntimeError), replacing(str(output)) as stream:
        stream.write(b"half")
        raise RuntimeError("torch.export failed")
    assert output.read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["model.pt2"]


def test_its_temporary_names_are_the_helpers_so_stale_ones_are_removed(tmp_path, replacing):
    made = replacing(str(tmp_path / "model.pt2"))
    name = os.path.basename(made.prefix)
    assert name == os.path.basename(atomic_write._prefix("model.pt2"))
