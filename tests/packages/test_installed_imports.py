"""Imports of installed packages by dotted name, and E2901 for a package built by a newer
compiler: the lookup, the interpreter asked and its cached answer, and the command line."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from shapescript import installed_packages
from shapescript.check.declarations import module_paths
from shapescript.check.declarations.module_paths import SearchPath

LAYERS = "dim D = 4\n\nfn double(x: [D]) -> [D]:\n    return x + x\n"
MAIN = (
    "import shapes_extra.layers\n\n"
    "fn f(x: [layers.D]) -> [layers.D]:\n    return layers.double(x)\n"
)


def make_site(root: Path, compiler: str | None = None) -> Path:
    """A folder like site-packages holding `shapes_extra/layers.ss`."""
    site = root / "site-packages"
    package = site / "shapes_extra"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "layers.ss").write_text(LAYERS)
    if compiler is not None:
        (package / module_paths.BUILD_RECORD).write_text(f'compiler = "{compiler}"\n')
    return site


def fake_interpreter(root: Path, site: Path, calls: Path) -> Path:
    """A script that answers like an interpreter asked for sys.path, counting the calls."""
    script = root / "fake-python"
    script.write_text(
        f"#!/bin/sh\necho asked >> '{calls}'\necho '[\"{site}\", \"/no/such/folder\"]'\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_installed_folders_are_searched_last_and_only_when_needed(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    asked: list[int] = []

    def installed() -> list[str]:
        asked.append(1)
        return [str(site)]

    importer = str(tmp_path / "project" / "main.ss")
    found = module_paths.find(["shapes_extra", "layers"], importer, SearchPath([], installed))
    assert found == str(site / "shapes_extra" / "layers.ss")
    assert asked == [1]
    local = tmp_path / "project" / "shapes_extra"
    local.mkdir(parents=True)
    (local / "layers.ss").write_text(LAYERS)
    found = module_paths.find(["shapes_extra", "layers"], importer, SearchPath([], installed))
    assert found == str(local / "layers.ss")
    assert asked == [1]


def test_without_installed_folders_the_import_is_not_found(tmp_path: Path) -> None:
    make_site(tmp_path)
    importer = str(tmp_path / "main.ss")
    assert module_paths.find(["shapes_extra", "layers"], importer, SearchPath([])) is None


def test_interpreter_order() -> None:
    choose = installed_packages.chosen_interpreter
    env = {"VIRTUAL_ENV": "/venv", "SHAPESCRIPT_PYTHON": "/sp"}
    assert choose("/given", env) == "/given"
    assert choose(None, env) == os.path.join("/venv", "bin", "python")
    assert choose(None, {"SHAPESCRIPT_PYTHON": "/sp"}) == "/sp"
    assert choose(None, {"SHAPESCRIPT_PYTHON": "/sp"}, fallback="/own") == "/sp"
    assert choose(None, {}, fallback="/own") == "/own"
    assert choose(None, {}) == ("python" if sys.platform == "win32" else "python3")


def test_answer_is_cached_until_a_folder_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHAPESCRIPT_CACHE_DIR", str(tmp_path / "cache"))
    site = make_site(tmp_path)
    calls = tmp_path / "calls"
    python = fake_interpreter(tmp_path, site, calls)

    def folders() -> list[str]:
        installed_packages._asked.clear()
        return installed_packages.interpreter_folders(str(python))

    assert folders() == [str(site)]
    assert folders() == [str(site)]
    assert calls.read_text().count("asked") == 1
    cached = (tmp_path / "cache" / "interpreters.json").read_text()
    assert str(site) in cached
    later = site.stat().st_mtime_ns + 5_000_000_000
    os.utime(site, ns=(later, later))
    assert folders() == [str(site)]
    assert calls.read_text().count("asked") == 2


def run_check(project: Path, python: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    env["SHAPESCRIPT_CACHE_DIR"] = str(tmp_path / "cache")
    command = [sys.executable, "-m", "shapescript", "check", "--python", str(python)]
    return subprocess.run(
        [*command, str(project / "main.ss")], capture_output=True, text=True, env=env
    )


@pytest.mark.parametrize("compiler", [None, "0.1.5", "99.0.0"])
def test_check_finds_an_installed_package(tmp_path: Path, compiler: str | None) -> None:
    site = make_site(tmp_path, compiler)
    python = fake_interpreter(tmp_path, site, tmp_path / "calls")
    project = tmp_path / "project"
    project.mkdir()
    (project / "main.ss").write_text(MAIN)
    done = run_check(project, python, tmp_path)
    if compiler == "99.0.0":
        assert done.returncode == 1, done.stdout + done.stderr
        assert "E2901" in done.stdout
        assert "`shapes_extra.layers` was built by a newer compiler (99.0.0)" in done.stdout
    else:
        assert done.returncode == 0, done.stdout + done.stderr


def test_newer_build_compares_major_and_minor(tmp_path: Path) -> None:
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "m.ss").write_text("")
    path = str(folder / "m.ss")
    assert module_paths.newer_build(path, "0.4.1") is None
    (folder / module_paths.BUILD_RECORD).write_text('compiler = "0.4.9"\n')
    assert module_paths.newer_build(path, "0.4.1") is None
    (folder / module_paths.BUILD_RECORD).write_text('compiler = "0.5.0"\n')
    assert module_paths.newer_build(path, "0.4.1") == "0.5.0"
    assert module_paths.newer_build(path, "1.0.0") is None
