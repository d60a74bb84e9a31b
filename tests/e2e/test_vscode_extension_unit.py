"""The VS Code extension's own unit tests (`npm test`, with a stub `vscode` module)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

EXTENSION = Path(__file__).resolve().parents[2] / "vscode-extension"


@pytest.mark.slow
def test_extension_compiles_and_its_unit_tests_pass() -> None:
    if shutil.which("npm") is None:
        pytest.fail("npm isn't installed; the README's set-up installs it")
    if not (EXTENSION / "node_modules").is_dir():
        pytest.fail("run `npm ci` in vscode-extension (the README's set-up does)")
    # `npm test` compiles first (package.json's `pretest`), then runs the tests.
    completed = subprocess.run(
        ["npm", "test"], cwd=EXTENSION, capture_output=True, text=True, timeout=600
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
