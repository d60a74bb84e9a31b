from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

import shapescript
from shapescript.rt import devices, modes, worker_pool


@pytest.fixture(autouse=True)
def on_cpu() -> Iterator[None]:
    """Each test runs on the declared CPU, in one thread, loading in this process unless it
    asks for workers, with the default check modes."""
    threads = torch.get_num_threads()
    saved_modes = modes.installed()
    torch.set_num_threads(1)
    devices._reset_for_tests()
    shapescript.devices("cpu")
    shapescript.loader_workers(0)
    yield
    worker_pool._setting = None
    modes.install(saved_modes.checks, saved_modes.value_checks)
    devices._reset_for_tests()
    torch.set_num_threads(threads)
