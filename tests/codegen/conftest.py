"""Every codegen test runs with the CPU declared as the program's device, and forgets it
afterwards, so tests don't see each other's declarations; random inputs are seeded."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

from shapescript.rt import devices


@pytest.fixture(autouse=True)
def cpu() -> Iterator[None]:
    devices._reset_for_tests()
    devices.declare_devices("cpu", "the codegen tests")
    torch.manual_seed(0)
    yield
    devices._reset_for_tests()
