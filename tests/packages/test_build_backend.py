"""The build backend `shapescript.build`, called in-process as pip would: the wheel's added
files, a hand-written module kept (W2501), and a package with errors refused."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

import shapescript.build as backend
from shapescript.build.hook import PackageCheckFailed

PYPROJECT = """[build-system]
requires = ["shapescript>=0.1"]
build-backend = "shapescript.build"

[project]
name = "shapes_extra"
version = "0.1.0"
"""
LAYERS = "dim D = 4\n\nfn double(x: [D]) -> [D]:\n    return x + x\n"
BLOCKS = "import shapes_extra.nested.layers\n\nfn quad(x: [layers.D]) -> [layers.D]:\n"
BLOCKS += "    return layers.double(layers.double(x))\n"


def make_package(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    nested = root / "shapes_extra" / "nested"
    nested.mkdir(parents=True)
    (root / "shapes_extra" / "__init__.py").write_text("")
    (nested / "__init__.py").write_text("")
    (nested / "layers.ss").write_text(LAYERS)
    (root / "shapes_extra" / "blocks.ss").write_text(BLOCKS)
    return root


def build(root: Path, out: Path, monkeypatch: pytest.MonkeyPatch) -> zipfile.ZipFile:
    monkeypatch.chdir(root)
    name = backend.build_wheel(str(out))
    return zipfile.ZipFile(out / name)


def test_the_wheel_gets_modules_markers_and_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_package(tmp_path / "src")
    wheel = build(root, tmp_path / "dist", monkeypatch)
    names = set(wheel.namelist())
    assert {
        "shapes_extra/blocks.py",
        "shapes_extra/nested/layers.py",
        "shapes_extra/py.typed",
        "shapes_extra/shapescript-build.toml",
        "shapes_extra/nested/shapescript-build.toml",
    } <= names
    assert "shapes_extra/nested/py.typed" not in names
    assert "def quad" in wheel.read("shapes_extra/blocks.py").decode()
    assert not (root / "shapes_extra" / "blocks.py").exists()


def test_a_hand_written_module_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_package(tmp_path / "src")
    (root / "shapes_extra" / "blocks.py").write_text("HAND = 1\n")
    wheel = build(root, tmp_path / "dist", monkeypatch)
    assert wheel.namelist().count("shapes_extra/blocks.py") == 1
    assert wheel.read("shapes_extra/blocks.py").decode() == "HAND = 1\n"
    captured = capsys.readouterr()
    assert "W2501" in captured.out + captured.err


def test_errors_fail_the_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_package(tmp_path / "src")
    (root / "shapes_extra" / "bad.ss").write_text("fn f() -> int:\n    return nothing_here\n")
    with pytest.raises(PackageCheckFailed, match="E0301") as failure:
        build(root, tmp_path / "dist", monkeypatch)
    assert "bad.ss:2:" in str(failure.value)
    assert not list((tmp_path / "dist").glob("*.whl"))
