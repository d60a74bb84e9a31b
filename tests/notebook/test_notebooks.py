"""Real notebooks run by nbclient on an ipykernel, with `%load_ext shapescript`; the
outputs are pinned."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def run(*cells: str) -> list:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(cell) for cell in cells]
    path = os.pathsep.join(
        [str(ROOT / "compiler"), str(ROOT / "server"), os.environ.get("PYTHONPATH", "")]
    )
    os.environ["PYTHONPATH"] = path
    client = nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3")
    client.execute()
    return notebook.cells


def plain(output) -> str:
    if output["output_type"] == "stream":
        return ANSI.sub("", output["text"])
    return output["data"]["text/plain"]


@pytest.mark.slow
def test_cells_declare_use_redeclare_fail_and_draw() -> None:
    cells = run(
        "%load_ext shapescript\nimport torch",
        "%%shapescript\ndim D = 4\nfn double(a: [n D]) -> [n D] = a * 2",
        "%%shapescript\nx = torch.ones(2, 4) as [2 D]\nx",
        "%%shapescript\ny = x + nothing",
        "%%shapescript\ndevices cpu\nz = double(x)",
        "%%shapescript\ndim D = 8",
        "%%shapescript\ny = x * 2\nw = double(torch.ones(1, 8) as [1 D])",
        "print('y' in globals(), x.shape, z.tolist())",
    )
    # Nothing asked for a device before the devices line: x is a Python tensor, checked.
    assert [cell.outputs for cell in cells[:2]] == [[], []]
    drawing = cells[2].outputs
    assert len(drawing) == 1 and drawing[0]["output_type"] == "display_data"
    assert plain(drawing[0]) == "[2 D]\nD = 4\n┌────────┐\n│        │ 2\n│        │\n└────────┘"
    assert drawing[0]["data"]["image/svg+xml"].startswith("<svg")
    error = cells[3].outputs
    assert "\x1b[" in error[0]["text"]
    assert plain(error[0]) == (
        "error[E0301]: unknown name `nothing`\n"
        " --> In [4]:2:9\n"
        "  |\n"
        "2 | y = x + nothing\n"
        "  |         ^^^^^^^ not found\n"
        "\n"
        "found 1 error in this cell; nothing ran\n"
    )
    assert [cell.outputs for cell in cells[4:6]] == [[], []]
    stale = plain(cells[6].outputs[0])
    assert stale.startswith("error[E0701]: `x` is out of date; run [3] again to use this\n")
    assert "error[E0701]: `double` is out of date; run [2] again to use this\n" in stale
    assert "= note: `double` is out of date: `D` has changed since [2] ran\n" in stale
    assert stale.endswith("found 2 errors in this cell; nothing ran\n")
    assert plain(cells[7].outputs[0]) == "False torch.Size([2, 4]) " + str([[2.0] * 4] * 2) + "\n"
