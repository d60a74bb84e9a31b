"""The import hook and installed packages: E2901 for a package built by a newer compiler,
and compiled code of a folder that can't be written kept in the user cache folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from shapescript.check.declarations import module_paths
from shapescript.rt import cache, hook, modes

LAYERS = "dim D = 4\n\nfn double(x: [D]) -> [D]:\n    return x + x\n"
IMPORT_IT = """
import shapescript
shapescript.install()
try:
    import shapes_extra.layers
except shapescript.ShapeScriptError as error:
    print("CODES", [diagnostic.code for diagnostic in error.diagnostics])
    print(error)
else:
    print("IMPORTED", shapes_extra.layers.D)
"""


def make_package(site: Path, compiler: str) -> None:
    package = site / "shapes_extra"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "layers.ss").write_text(LAYERS)
    (package / module_paths.BUILD_RECORD).write_text(f'compiler = "{compiler}"\n')


@pytest.mark.parametrize("compiler", ["0.1.0", "99.0.0"])
def test_hook_reports_a_newer_build(tmp_path: Path, compiler: str) -> None:
    site = tmp_path / "site"
    make_package(site, compiler)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    env["SHAPESCRIPT_CACHE_DIR"] = str(tmp_path / "cache")
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_IT], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    if compiler == "99.0.0":
        assert "CODES ['E2901']" in done.stdout
        assert "built by a newer compiler (99.0.0)" in done.stdout
    else:
        assert "IMPORTED 4" in done.stdout


def test_unwritable_folder_caches_in_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    user_cache = tmp_path / "cache"
    monkeypatch.setenv("SHAPESCRIPT_CACHE_DIR", str(user_cache))
    site = tmp_path / "site"
    make_package(site, "0.1.0")
    path = str(site / "shapes_extra" / "layers.ss")
    beside = site / "shapes_extra" / "__pycache__"
    assert Path(cache.cache_path(path, modes.installed())).parent == beside
    # Tests run as root, who may write anywhere: say the folder is read-only.
    monkeypatch.setattr(cache, "writable", lambda folder: folder != str(beside))
    entry = Path(cache.cache_path(path, modes.installed()))
    assert entry.parent.parent == user_cache / "modules"
    hook.load_code(path, modes.installed())
    assert entry.is_file()
    assert not beside.exists()
