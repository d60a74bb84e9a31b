"""pyright and mypy agree on a small package that imports generated modules: no
unresolved import, a function's result is a torch.Tensor, and a call with one argument
too many is found. Slow (mypy reads torch); skipped where a checker isn't installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shapescript.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "data" / "pymodules"
REPO = Path(__file__).resolve().parents[2]

CLIENT = """\
import torch

from shapes import generic, nested, overloads, records, uses_mlp
from shapes.mlp import D, Mlp, forward, scale

m = Mlp.init(seed=0)
scores = forward(m, torch.zeros(2, D))
reveal_type(scores)
wide = overloads.forward(overloads.Wide.init(seed=1), torch.ones(2, 4))
reveal_type(wide)
same = generic.use_cell(generic.Cell.init(seed=0))
logs = records.report(torch.ones(3))
steps: int = logs.steps
through = uses_mlp.scores(m, torch.ones(2, 4))
total = records.total({"img": torch.ones(2, 4), "label": torch.zeros(2, dtype=torch.long)})
scale(torch.ones(3), 2.0, True, 4)
g = nested.Gpt.init(seed=0)
reveal_type(g.h[0].attn.c_attn)
for blk in g.h:
    reveal_type(blk)
layers: int = len(g.h)
through_block = nested.forward(g, g.h[-1].ln_1)
"""
#: The client's line with the deliberate mistake.
MISTAKE_LINE = CLIENT.splitlines().index("scale(torch.ones(3), 2.0, True, 4)") + 1


def _pyright() -> list[str] | None:
    for candidate in (shutil.which("pyright"), REPO / ".tools/node_modules/.bin/pyright"):
        if candidate and Path(candidate).is_file():
            return [str(candidate)]
    return None


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    pytest.importorskip("torch")
    root = tmp_path_factory.mktemp("typed_project")
    package = root / "shapes"
    shutil.copytree(EXAMPLES, package, ignore=shutil.ignore_patterns("*.expected"))
    (package / "__init__.py").write_text("")
    assert main(["pymodules", str(package)]) == 0
    (root / "client.py").write_text(CLIENT)
    return root


def _environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "compiler"), environment.get("PYTHONPATH", "")]
    )
    return environment


@pytest.mark.slow
def test_pyright(project: Path):
    pyright = _pyright()
    if pyright is None:
        pytest.skip("pyright isn't installed (scripts/install-editors.sh installs it)")
    result = subprocess.run(
        [*pyright, "--pythonpath", sys.executable, "client.py", "shapes"],
        cwd=project,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = result.stdout
    assert "reportMissingImports" not in output and "is not a known" not in output, output
    assert output.count('Type of "scores" is "Tensor"') == 1, output
    assert output.count('Type of "wide" is "Tensor"') == 1, output
    assert output.count('Type of "g.h[0].attn.c_attn" is "Tensor"') == 1, output
    assert output.count('Type of "blk" is "Block"') == 1, output
    errors = [line for line in output.splitlines() if " - error: " in line]
    assert len(errors) == 1, output
    assert f"client.py:{MISTAKE_LINE}:" in errors[0] and "Expected 3 positional" in errors[0]


@pytest.mark.slow
def test_mypy(project: Path):
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "client.py"],
        cwd=project,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = result.stdout
    assert "import-not-found" not in output and "import-untyped" not in output, output
    assert 'client.py:8: note: Revealed type is "torch._tensor.Tensor"' in output, output
    assert 'client.py:10: note: Revealed type is "torch._tensor.Tensor"' in output, output
    held = f'client.py:{MISTAKE_LINE + 2}: note: Revealed type is "torch._tensor.Tensor"'
    assert held in output, output
    block = f'client.py:{MISTAKE_LINE + 4}: note: Revealed type is "shapes.nested.Block"'
    assert block in output, output
    errors = [line for line in output.splitlines() if ": error: " in line]
    mistake = f'client.py:{MISTAKE_LINE}: error: Too many arguments for "scale"  [call-arg]'
    assert errors == [mistake], output
