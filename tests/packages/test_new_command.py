"""`shapescript new NAME`: the package it makes, and what it refuses."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from shapescript.commands.entry import main
from shapescript.commands.new import requirement


def test_new_makes_a_package(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "shapes-extra"
    assert main(["new", "shapes-extra", "--path", str(folder)]) == 0
    project = tomllib.loads((folder / "pyproject.toml").read_text())
    assert project["build-system"]["build-backend"] == "shapescript.build"
    assert project["build-system"]["requires"] == ["shapescript>=0.1"]
    assert project["project"]["name"] == "shapes-extra"
    assert project["project"]["dependencies"] == ["shapescript>=0.1"]
    assert (folder / "shapes_extra" / "__init__.py").is_file()
    assert "fn double" in (folder / "shapes_extra" / "layers.ss").read_text()
    assert "from shapes_extra import layers" in (folder / "tests" / "test_layers.py").read_text()
    assert "shapes_extra/layers.ss" in capsys.readouterr().out


def test_new_refuses_a_folder_in_use_and_a_bad_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "file").write_text("mine")
    assert main(["new", "taken", "--path", str(tmp_path / "taken")]) == 2
    assert "already exists" in capsys.readouterr().err
    assert (tmp_path / "taken" / "file").read_text() == "mine"
    assert main(["new", "2fast", "--path", str(tmp_path / "x")]) == 2
    assert "can't name a package" in capsys.readouterr().err


def test_requirement_names_major_minor_or_the_whole_pre_release() -> None:
    assert requirement("0.4.1") == "shapescript>=0.4"
    assert requirement("0.1.2b1") == "shapescript>=0.1.2b1"
    assert requirement("1.0.0rc2") == "shapescript>=1.0.0rc2"
