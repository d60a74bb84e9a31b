"""The Python module generated beside a `.ss` file: its text (snapshots), that it loads
and runs without `shapescript.install()`, `pymodules --check`, the import hook's rewrite
of a stale one, and that a hand-written `.py` is never replaced (W2501)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shapescript.cli import main
from shapescript.pymodules.files import GENERATED_PREFIX, generate_text, write_module
from tests.snapshot import assert_matches_snapshot

EXAMPLES = Path(__file__).resolve().parent.parent / "data" / "pymodules"
NAMES = sorted(path.stem for path in EXAMPLES.glob("*.ss"))
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", NAMES)
def test_generated_module_snapshot(name: str, tmp_path: Path):
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder)
    _, text = generate_text(str(folder / f"{name}.ss"), search_path=[])
    assert text is not None
    assert text.startswith(
        f"{GENERATED_PREFIX}{name}.ss. Edit {name}.ss; this file is rewritten when it changes.\n"
    )
    assert text.endswith(
        '__import__("shapescript.pymodules").pymodules.load(globals(), __file__)\n'
    )
    assert_matches_snapshot(text, EXAMPLES / f"{name}.expected")


def _python(folder: Path, code: str) -> subprocess.CompletedProcess:
    """Run code in a fresh interpreter in `folder`, which is on its path (no install())."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "compiler"), environment.get("PYTHONPATH", "")]
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


RUN_ALL = """
import sys
import torch
import mlp

assert "ShapeScriptFinder" not in str(sys.meta_path)  # mlp loaded without the import hook
import generic, overloads, records, uses_mlp
m = mlp.Mlp.init(seed=0)
print(tuple(mlp.forward(m, torch.zeros(2, mlp.D)).shape))
print(mlp.scale(torch.ones(3), 3.0, True).tolist())
print(tuple(overloads.forward(overloads.Wide.init(seed=1), torch.ones(2, 4)).shape))
print(type(generic.use_cell(generic.Cell.init(seed=0))).__name__)
print(tuple(uses_mlp.scores(m, torch.ones(2, 4)).shape))
print(records.report(torch.ones(3)).steps)
print(records.total({"img": torch.ones(2, 4), "label": torch.zeros(2, dtype=torch.long)}).tolist())
print(sorted(name for name in vars(mlp) if not name.startswith("_")))
print(uses_mlp.mlp is mlp)  # the imported file is the module already loaded, not a copy
"""


def test_each_generated_module_loads_and_runs(tmp_path: Path):
    pytest.importorskip("torch")
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder)
    assert main(["pymodules", str(folder)]) == 0
    result = _python(folder, RUN_ALL)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:9] == [
        "(2, 3)",
        "[9.0, 9.0, 9.0]",
        "(2, 8)",
        "Cell",
        "(2, 3)",
        "1",
        "[4.0, 4.0]",
        "['C', 'D', 'Mlp', 'forward', 'scale']",
        "True",
    ]


def test_held_models_are_typed_as_their_classes(tmp_path: Path):
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder)
    _, text = generate_text(str(folder / "nested.ss"), search_path=[])
    assert text is not None
    assert '\n    attn: Attention\n    """attn: Attention\n' in text
    assert '\n    h: _ss_rt.models.Stack[Block]\n    """h: [L] Block\n\n    The blocks."""' in text


NESTED_RUN = """
import torch
import nested
g = nested.Gpt.init(seed=0)
print(len(g.h), type(g.h[1]).__name__, type(g.h[0].attn).__name__, tuple(g.h[0].attn.c_attn.shape))
print([type(blk).__name__ for blk in g.h])
print(tuple(nested.forward(g, torch.ones(3, nested.D)).shape))
"""


@pytest.mark.slow
def test_a_generated_module_of_nested_models_runs(tmp_path: Path):
    pytest.importorskip("torch")
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder)
    assert main(["pymodules", str(folder / "nested.ss")]) == 0
    result = _python(folder, NESTED_RUN)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:3] == [
        "2 Block Attention (4, 4)",
        "['Block', 'Block']",
        "(3, 4)",
    ]


def test_check_fails_when_a_module_is_missing_or_out_of_date(tmp_path: Path, capsys):
    ss = tmp_path / "model.ss"
    ss.write_text("fn double(x: [n]) -> [n] = x * 2\n")
    assert main(["pymodules", "--check", str(ss)]) == 1
    assert not (tmp_path / "model.py").exists()
    assert main(["pymodules", str(ss)]) == 0
    assert main(["pymodules", "--check", str(ss)]) == 0
    ss.write_text("fn double(x: [n]) -> [n] = x * 2\nfn triple(x: [n]) -> [n] = x * 3\n")
    assert main(["pymodules", "--check", str(ss)]) == 1
    assert "out of date" in capsys.readouterr().err
    assert "def triple" not in (tmp_path / "model.py").read_text()


HAND_WRITTEN = "def double(x):\n    return x * 2\n"


def test_a_hand_written_module_is_never_replaced(tmp_path: Path, capsys):
    ss = tmp_path / "model.ss"
    ss.write_text("devices cpu\nfn double(x: [n]) -> [n] = x * 2\n")
    py = tmp_path / "model.py"
    py.write_text(HAND_WRITTEN)
    os.utime(py, (1, 1))  # older than model.ss
    assert main(["pymodules", str(ss)]) == 0
    err = capsys.readouterr().err
    assert "warning[W2501]" in err and "model.ss:1:1" in err
    assert write_module(str(ss)).state == "hand_written"
    # The import hook imports model.ss itself and leaves model.py alone.
    code = "import shapescript, torch\nshapescript.install()\nimport model\nprint(model.__file__)"
    result = _python(tmp_path, code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("model.ss")
    assert py.read_text() == HAND_WRITTEN


def test_a_build_output_under_the_modules_name_is_kept_and_named_as_such(tmp_path: Path, capsys):
    ss = tmp_path / "main.ss"
    ss.write_text("fn double(x: [n]) -> [n] = x * 2\n")
    assert main(["build", str(ss), "-o", str(tmp_path / "main.py")]) == 0
    built = (tmp_path / "main.py").read_text()
    capsys.readouterr()
    assert main(["pymodules", str(ss)]) == 0
    err = capsys.readouterr().err
    assert "warning[W2501]: `main.py` is the output of `shapescript build`" in err
    assert "wasn't generated by ShapeScript" not in err
    assert "-o main_built.py" in err
    assert (tmp_path / "main.py").read_text() == built


def test_the_import_hook_rewrites_a_stale_module(tmp_path: Path):
    ss = tmp_path / "model.ss"
    ss.write_text("devices cpu\nfn double(x: [n]) -> [n] = x * 2\n")
    assert main(["pymodules", str(ss)]) == 0
    py = tmp_path / "model.py"
    os.utime(py, (1, 1))
    ss.write_text(
        "devices cpu\nfn double(x: [n]) -> [n] = x * 2\nfn triple(x: [n]) -> [n] = x * 3\n"
    )
    code = (
        "import shapescript, torch\nshapescript.install()\nimport model\n"
        "print(model.triple(torch.ones(2)).tolist())"
    )
    result = _python(tmp_path, code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[3.0, 3.0]"
    assert "def triple(x: _ss_torch.Tensor) -> _ss_torch.Tensor:" in py.read_text()


def test_the_generated_module_rewrites_itself_when_stale(tmp_path: Path):
    ss = tmp_path / "model.ss"
    ss.write_text("devices cpu\nfn double(x: [n]) -> [n] = x * 2\n")
    assert main(["pymodules", str(ss)]) == 0
    py = tmp_path / "model.py"
    os.utime(py, (1, 1))
    ss.write_text("devices cpu\nfn double(x: [n]) -> [n] = x * 4\nfn half(x: [n]) -> [n] = x / 2\n")
    result = _python(tmp_path, "import torch, model\nprint(model.double(torch.ones(1)).tolist())")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[4.0]"
    assert "def half(" in py.read_text()


def test_a_file_with_errors_raises_from_its_line(tmp_path: Path):
    ss = tmp_path / "model.ss"
    ss.write_text("devices cpu\nfn double(x: [n]) -> [n] = x * 2\n")
    assert main(["pymodules", str(ss)]) == 0
    py = tmp_path / "model.py"
    os.utime(py, (1, 1))
    ss.write_text("devices cpu\nfn double(x: [n]) -> [n] = x * missing\n")
    result = _python(tmp_path, "import model")
    assert result.returncode == 1
    assert f'File "{ss}", line 2' in result.stderr
    assert "ShapeScriptError" in result.stderr and "E0301" in result.stderr
    # The module keeps its declarations until the file checks again.
    assert "def double(" in py.read_text()
