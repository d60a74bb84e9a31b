"""VS Code end to end: a Jupyter notebook with `%%shapescript` cells, opened in the
notebook editor of a real VS Code with the packaged extension, shows the error of a cell
in the Problems panel (the language server checks each cell after the cells above it).

Runs the shared probe as tests/e2e/test_vscode.py does, with the notebook as the file and
no editor steps; skipped where the probe's install is missing."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.e2e.test_vscode import (
    OUTPUT_CHANNEL,
    PROBE_DIR,
    PROBE_HOME,
    QUICK_OPEN_RACE,
    QUICK_OPEN_WAIT,
    RUNNER,
    _missing_prerequisites,
    _step,
    package_extension,
)

pytestmark = pytest.mark.slow

CELLS = [
    "import torch",
    "%%shapescript\ndevices cpu\ndim D = 4\nx = torch.ones(2, 4) as [2 D]",
    "%%shapescript\ny = x + nope",
]


def notebook() -> str:
    cells = [
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": text.splitlines(keepends=True),
        }
        for text in CELLS
    ]
    return json.dumps(
        {
            "cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


def test_a_shapescript_cell_s_error_is_in_the_problems_panel() -> None:
    missing = _missing_prerequisites()
    if missing:
        pytest.skip(missing)
    with tempfile.TemporaryDirectory(prefix="shapescript-nb-e2e-") as tmp:
        work = Path(tmp)
        vsix = package_extension(work)
        ws = work / "notebook-e2e"
        (ws / ".vscode").mkdir(parents=True)
        (ws / "analysis.ipynb").write_text(notebook())
        (ws / ".vscode" / "settings.json").write_text(
            json.dumps({"shapescript.python": sys.executable})
        )
        runner = work / "run_probe.py"
        runner.write_text(RUNNER)
        cmd = [
            sys.executable, str(runner), str(PROBE_DIR), str(vsix), OUTPUT_CHANNEL,
            QUICK_OPEN_RACE, QUICK_OPEN_WAIT,
            "--workspace", str(ws), "--file", "analysis.ipynb",
            "--server-cmd", f"{sys.executable} -m shapescript_lsp",
            "--home", str(PROBE_HOME), "--out", str(work / "shots"),
            "--hover", "", "--completion", "", "--definition", "", "--edit", "",
        ]  # fmt: skip
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL
        )
        report = json.loads(proc.stdout)
    rows = _step(report, "diagnostics").get("problems") or []
    assert any("E0301" in row and "nope" in row for row in rows), (rows, report.get("error"))
    assert report.get("server_crashes") == 0
