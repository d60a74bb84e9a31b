"""Every test, and every process a test starts, uses a cache folder of its own; under
`pytest -n 2` each test file runs in one test process, and the real-VS Code files share one."""

from __future__ import annotations

import os
import tempfile

import pytest

from shapescript.cache_folder import CACHE_VARIABLE

os.environ[CACHE_VARIABLE] = tempfile.mkdtemp(prefix="shapescript-test-cache-")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Groups for `--dist loadgroup` (pyproject's addopts): a test file's tests stay together,
    so its module-scoped fixtures (worker processes, servers, a headless page) are made once;
    the real-VS Code files form one group and run one after another, since two code-server
    and Chromium pairs on two cores slow each other's UI past the drive scripts' waits.

    It runs first: xdist's worker reads the groups in its own hook of the same name, which
    otherwise ran before this one, saw no groups, and spread every test on its own."""
    groups: dict[str, str] = {}
    for item in items:
        module = item.module.__name__ if item.module is not None else item.nodeid
        group = "vscode" if module.rsplit(".", 1)[-1].startswith("test_vscode") else module
        item.add_marker(pytest.mark.xdist_group(group))
        groups[item.nodeid] = group
    # The real-VS Code group is the longest (about ten minutes, one test after another):
    # first in the queue, it starts at once and the other process takes the rest.
    items.sort(key=lambda item: groups[item.nodeid] != "vscode")
