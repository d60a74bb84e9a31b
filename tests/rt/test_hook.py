"""The import hook: `import model` finds model.ss, and its compiled code is cached."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript import analysis
from shapescript.rt import cache, hook, modes

DOUBLE = "devices cpu\n\nfn double(x: [n]) -> [n] = x * 2\n"
TRIPLE = "devices cpu\n\nfn double(x: [n]) -> [n] = x * 3\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder on sys.path with the hook installed."""
    sys.path.insert(0, str(tmp_path))
    shapescript.install()
    return tmp_path


def _import_fresh(name: str):
    sys.modules.pop(name, None)
    importlib.invalidate_caches()
    return importlib.import_module(name)


def _entry(folder: Path, stem: str = "model") -> Path:
    return Path(cache.cache_path(str(folder / f"{stem}.ss"), modes.installed()))


def _fail_check(source):
    raise AssertionError("the checker ran for a file whose compiled code is cached")


def test_install_is_idempotent_and_first() -> None:
    shapescript.install()
    shapescript.install(checks="debug")
    finders = [f for f in sys.meta_path if isinstance(f, hook.ShapeScriptFinder)]
    assert len(finders) == 1
    assert sys.meta_path[0] is finders[0]
    assert modes.installed().checks == "debug"


def test_import_finds_an_ss_file_on_sys_path(folder: Path) -> None:
    (folder / "model.ss").write_text(DOUBLE)
    model = _import_fresh("model")
    assert model.__file__ == str(folder / "model.ss")
    assert model.double(torch.tensor([1.0])).tolist() == [2.0]
    assert _entry(folder).is_file()
    assert _entry(folder).parent.name == "__pycache__"
    assert _entry(folder).name.startswith("model.") and _entry(folder).suffix == ".ssc"


def test_import_finds_an_ss_file_in_a_package(folder: Path) -> None:
    package = folder / "pkg_with_ss"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.ss").write_text(DOUBLE)
    module = _import_fresh("pkg_with_ss.model")
    assert module.__name__ == "pkg_with_ss.model"
    assert module.double(torch.ones(1)).tolist() == [2.0]


def test_unchanged_file_is_never_checked_again(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / "model.ss").write_text(DOUBLE)
    _import_fresh("model")
    monkeypatch.setattr(analysis, "check", _fail_check)
    model = _import_fresh("model")
    assert model.double(torch.ones(1)).tolist() == [2.0]


def test_changed_file_is_compiled_again(folder: Path) -> None:
    (folder / "model.ss").write_text(DOUBLE)
    _import_fresh("model")
    (folder / "model.ss").write_text(TRIPLE)
    assert _import_fresh("model").double(torch.ones(1)).tolist() == [3.0]


@pytest.mark.parametrize(
    "damage",
    [
        lambda blob: blob[:10],
        lambda blob: b"",
        lambda blob: b"\x00garbage\xff" * 50,
        lambda blob: blob[:-20],
        lambda blob: blob[: len(blob) // 2] + b"\xff" * (len(blob) - len(blob) // 2),
    ],
    ids=["truncated-header", "empty", "garbage", "truncated-code", "garbled-code"],
)
def test_corrupt_entry_is_recompiled_not_trusted(folder: Path, damage) -> None:
    (folder / "model.ss").write_text(DOUBLE)
    _import_fresh("model")
    entry = _entry(folder)
    good = entry.read_bytes()
    entry.write_bytes(damage(good))
    assert _import_fresh("model").double(torch.ones(1)).tolist() == [2.0]
    assert cache.load(str(entry), cache.header(DOUBLE.encode(), modes.installed())) is not None


def test_entry_for_other_text_is_not_used(folder: Path) -> None:
    """An entry whose header names another text (a copied __pycache__) is stale."""
    (folder / "model.ss").write_text(TRIPLE)
    _import_fresh("model")
    entry = _entry(folder)
    stale = entry.read_bytes()
    (folder / "model.ss").write_text(DOUBLE)
    _import_fresh("model")
    entry.write_bytes(stale)
    assert _import_fresh("model").double(torch.ones(1)).tolist() == [2.0]


def test_each_check_mode_has_its_own_entry(folder: Path) -> None:
    (folder / "model.ss").write_text("devices cpu\n\nfn f(x: [n 2]) -> [n 2] = x\n")
    with pytest.raises(shapescript.ShapeError):
        _import_fresh("model").f(torch.ones(3))
    shapescript.install(checks="never")
    assert _import_fresh("model").f(torch.ones(3)).shape == (3,)
    shapescript.install()
    with pytest.raises(shapescript.ShapeError):
        _import_fresh("model").f(torch.ones(3))
    assert len(list((folder / "__pycache__").glob("model.*.ssc"))) == 2


def test_file_with_errors_raises_from_its_line(folder: Path) -> None:
    (folder / "broken.ss").write_text("devices cpu\n\nfn f(x: [n]) -> [n]:\n    return x + y\n")
    with pytest.raises(shapescript.ShapeScriptError) as caught:
        _import_fresh("broken")
    error = caught.value
    assert "error[E0301]" in str(error)
    last = traceback.extract_tb(error.__traceback__)[-1]
    assert last.filename == str(folder / "broken.ss")
    assert last.lineno == 4
    assert last.line == "return x + y"
    assert "broken" not in sys.modules
    assert not list(folder.glob("__pycache__/broken.*"))


def test_nothing_is_written_when_bytecode_is_off(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    (folder / "model.ss").write_text(DOUBLE)
    _import_fresh("model")
    assert not _entry(folder).exists()


def test_a_python_module_of_another_name_is_untouched(folder: Path) -> None:
    (folder / "plain_helper.py").write_text("VALUE = 7\n")
    assert _import_fresh("plain_helper").VALUE == 7


@pytest.mark.slow
def test_debug_checks_vanish_under_python_dash_o(tmp_path: Path) -> None:
    """`debug` checks run unless Python runs with -O; each -O level has its own cache entry."""
    (tmp_path / "model.ss").write_text("devices cpu\n\nfn f(x: [n 2]) -> [n 2] = x\n")
    script = (
        "import shapescript, torch\n"
        "shapescript.install(checks='debug')\n"
        "import model\n"
        "try:\n"
        "    model.f(torch.ones(3))\n"
        "    print('unchecked')\n"
        "except shapescript.ShapeError:\n"
        "    print('checked')\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    seen = []
    for flags in (["-O"], []):
        done = subprocess.run(
            [sys.executable, *flags, "-c", script],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        seen.append(done.stdout.strip())
    assert seen == ["unchecked", "checked"]
    assert len(list((tmp_path / "__pycache__").glob("model.*.ssc"))) == 2


def test_an_ss_file_never_hides_pythons_own_modules(folder: Path) -> None:
    (folder / "colorsys.ss").write_text(DOUBLE)
    assert hook.ShapeScriptFinder().find_spec("colorsys") is None
    assert hook.ShapeScriptFinder().find_spec("colorsys", [str(folder)]) is not None
