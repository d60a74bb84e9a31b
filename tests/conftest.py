"""Every test, and every process a test starts, uses a cache folder of its own; under
`pytest -n 2` each test file runs in one test process, and the real-VS Code files share one."""

from __future__ import annotations

import os
import sys
import tempfile

import pytest

from shapescript.cache_folder import CACHE_VARIABLE

os.environ[CACHE_VARIABLE] = tempfile.mkdtemp(prefix="shapescript-test-cache-")


def _group(item: pytest.Item) -> str:
    module = item.module.__name__ if item.module is not None else item.nodeid
    return "vscode" if module.rsplit(".", 1)[-1].startswith("test_vscode") else module


def pytest_itemcollected(item: pytest.Item) -> None:
    """Groups for `--dist loadgroup` (pyproject's addopts): a test file's tests stay together,
    so its module-scoped fixtures (worker processes, servers, a headless page) are made once;
    the real-VS Code files form one group and run one after another, since two code-server
    and Chromium pairs on two cores slow each other's UI past the drive scripts' waits.

    The mark is added as each test is collected: xdist's worker reads the groups in its
    `pytest_collection_modifyitems`, which may run before any conftest's (it did with
    pytest 9.2 and pluggy 1.7), and then spread every test on its own."""
    item.add_marker(pytest.mark.xdist_group(_group(item)))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The real-VS Code group is the longest (about ten minutes, one test after another):
    first in the queue, it starts at once and the other process takes the rest."""
    items.sort(key=lambda item: _group(item) != "vscode")


@pytest.fixture(autouse=True, scope="module")
def _devices_declared_per_file():
    """Each test file starts and ends with no devices declared: a program's `devices` line
    declares them for the whole process, and a file run after another in the same process
    (as `--dist loadgroup` runs them) must not inherit its declaration."""
    _forget_devices()
    yield
    _forget_devices()


def _forget_devices() -> None:
    # Only where the runtime is loaded: importing it here would load torch in every test
    # process, and some tests check what a bare import loads.
    module = sys.modules.get("shapescript.rt.devices")
    if module is not None:
        module._reset_for_tests()
