from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

import shapescript
from shapescript.rt import devices


@pytest.fixture(autouse=True)
def on_cpu_in_process() -> Iterator[None]:
    """Each test runs on the declared CPU, in one thread, loading data in-process (the
    machine is shared; the loader's workers have tests of their own)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    devices._reset_for_tests()
    shapescript.devices("cpu")
    shapescript.loader_workers(0)
    yield
    devices._reset_for_tests()
    torch.set_num_threads(threads)
