"""pyright and mypy agree on a small package that imports generated modules: no
unresolved import, a function's result is a torch.Tensor, and a call with one argument
too many is found. Slow (mypy reads torch); skipped where a checker isn't installed.

mypy reads torch's typed API as the generated modules use it (torch, Tensor, nn, dtypes and
what they import), but not torch's subsystems that neither the generated modules nor the
client import (compilers, distributed training, export, quantization, ...): their modules,
about 1100 of the 1900 mypy read, are taken as Any. They took most of the test's time, and
the check of the generated code against torch's types is the same without them."""

from __future__ import annotations

import ast
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


#: torch's packages that mypy takes as Any instead of reading (see the module's docstring);
#: test_mypy_skips_nothing_the_checked_code_imports keeps them out of the checked code.
UNREAD_TORCH = (
    "torch._dynamo",
    "torch._inductor",
    "torch.distributed",
    "torch.fx",
    "torch.export",
    "torch._export",
    "torch._functorch",
    "torch._higher_order_ops",
    "torch.ao",
    "torch.onnx",
    "torch._subclasses",
    "torch._library",
    "torch._numpy",
    "torch._decomp",
    "torch._refs",
    "torch._prims",
    "torch.package",
    "torch.testing",
    "torch.profiler",
    "torch.distributions",
    "torch.masked",
    "torch.utils.data",
)
#: The project's mypy.ini: no cache written (the test runs mypy once), the packages above
#: not followed (`NAME.*` also matches NAME itself).
MYPY_INI = f"""\
[mypy]
cache_dir = {os.devnull}

[mypy-{",".join(f"{package}.*" for package in UNREAD_TORCH)}]
follow_imports = skip
"""


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
def test_mypy(project: Path, tmp_path: Path):
    pytest.importorskip("mypy")
    config = tmp_path / "mypy.ini"
    config.write_text(MYPY_INI)
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--config-file", str(config)]
        + ["client.py"],
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


def _imported(path: Path) -> set[str]:
    """The modules a Python file imports, at its top level or anywhere else."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_mypy_skips_nothing_the_checked_code_imports(project: Path):
    """The torch packages test_mypy doesn't read are none that the client or a generated
    module imports: what the generated code is checked against stays read."""
    files = [project / "client.py", *sorted((project / "shapes").glob("*.py"))]
    imported = {name: path.name for path in files for name in _imported(path)}
    unread = {
        name: file
        for name, file in imported.items()
        if any(name == package or name.startswith(f"{package}.") for package in UNREAD_TORCH)
    }
    assert not unread, f"test_mypy would take these as Any: {unread}"
    assert "torch" in imported  # what is read: the generated modules import torch
