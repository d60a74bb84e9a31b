"""VS Code end to end: a Jupyter notebook with `%%shapescript` cells, opened in the
notebook editor of a real VS Code with the packaged extension, shows the error of a cell
in the Problems panel (the language server checks each cell after the cells above it).

The notebook is opened, and the Problems panel read, in the VS Code this test shares with
the end-to-end, quick fix and names tests (editing_session.py), after their steps; skipped where the
probe's install is missing."""

from __future__ import annotations

import json

import pytest

from tests.e2e.test_vscode import _step

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


def test_a_shapescript_cell_s_error_is_in_the_problems_panel(editing_session: dict) -> None:
    report = editing_session
    rows = _step(report, "notebook").get("problems") or []
    assert any("E0301" in row and "nope" in row for row in rows), (rows, report.get("error"))
    assert report.get("server_crashes") == 0
