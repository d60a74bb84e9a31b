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


#: Seconds the longest groups took in a full run on the 2-core machine (`pytest -n 2
#: --junitxml`, summed per group, 2 Dec 2026); other groups count 0.15 s a test. "vscode"
#: was 623 s then; 470 s was an estimate for it once its tests shared VS Code launches (10
#: to 7) and compiled the extension twice instead of five times. 360 s is the estimate since
#: the end-to-end and hover-pictures tests run in the editing session's VS Code and the two
#: Python-navigation runs in one (7 launches to 4): test_vscode.py and the editing files
#: took 303 s before and 190 to 219 s after, the Python file 156 s before and 145 to 187 s
#: after, one session each on a machine loaded by other work (load 8 to 14), and the
#: launches saved take about 30 s each in the suite's runs. test_type_checkers' mypy reads
#: 770 modules instead of 1880: 58 to 100 s before, 32 s after, on the same loaded machine.
_MEASURED_SECONDS = {
    "vscode": 360,
    "tests.parallel.test_hosts": 149,
    "tests.export.test_roundtrip": 139,
    "tests.lsp.test_function_pictures": 130,
    "tests.parallel.test_failures": 67,
    "tests.packages.test_wheel_end_to_end": 62,
    "tests.export.test_hf_roundtrip": 57,
    "tests.parallel.test_nested_models": 42,
    "tests.parallel.test_returned_state": 39,
    "tests.debugging.test_debugpy": 38,
    "tests.docs.test_site": 37,
    "tests.parallel.test_stuck_workers": 36,
    "tests.pictures.test_worker": 35,
    "tests.docs.test_doc_examples": 34,
    "tests.parallel.test_shard_params": 33,
    "tests.hostile.test_deep_programs": 30,
    "tests.building.test_build_snapshots": 30,
    "tests.hostile.test_padding_depth": 30,
    "tests.parallel.test_split_heads_nested": 29,
    "tests.lsp.test_features": 28,
    "tests.parallel.test_split_heads": 27,
    "tests.lsp.test_verify_lens": 26,
    "tests.lsp.test_picture_limits": 24,
    "tests.pymodules.test_type_checkers": 12,
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest groups first (the real-VS Code one, about ten minutes, leads), so that
    neither process is left with a long group at the end while the other waits.

    pyproject's addopts turn off xdist's own reordering of groups by their number of tests,
    which put groups of a few long tests (two hosts, exports) last."""
    counts: dict[str, int] = {}
    for item in items:
        counts[_group(item)] = counts.get(_group(item), 0) + 1

    def cost(item: pytest.Item) -> float:
        group = _group(item)
        return _MEASURED_SECONDS.get(group, 0.15 * counts[group])

    items.sort(key=cost, reverse=True)


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
