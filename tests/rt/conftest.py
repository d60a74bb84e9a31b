from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.rt.isolation import isolated_runtime


@pytest.fixture(autouse=True)
def clean_runtime(tmp_path: Path) -> Iterator[None]:
    with isolated_runtime(tmp_path):
        yield
