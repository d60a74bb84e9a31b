"""Fixtures shared by the tests of several devices."""

from __future__ import annotations

import pytest
import torch.distributed as dist


@pytest.fixture(scope="module")
def group_of_one(tmp_path_factory):
    """A Gloo process group of this process alone, for what runs on a worker."""
    init = tmp_path_factory.mktemp("group") / "init"
    dist.init_process_group("gloo", init_method=f"file://{init}", rank=0, world_size=1)
    yield
    dist.destroy_process_group()
