"""The language server's library folder lives in the user cache folder, which is made
private (0700) and not used at all when another user could have put files in it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from shapescript import __version__
from shapescript.check.declarations.prelude import load_prelude
from shapescript_lsp.library import Library


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh user cache folder: `shapescript` is made (or not) inside it."""
    monkeypatch.delenv("SHAPESCRIPT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "shapescript"


def _prelude_symbol():
    return next(iter(load_prelude().symbols.values()))


def test_a_new_cache_folder_is_private(cache_home: Path) -> None:
    library = Library()
    library.write()
    for folder in (cache_home, cache_home / f"lsp-{__version__}"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert (cache_home / f"lsp-{__version__}" / "prelude.ss").is_file()
    assert library.location(_prelude_symbol()) is not None


def test_the_cache_variable_names_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = tmp_path / "chosen"
    monkeypatch.setenv("SHAPESCRIPT_CACHE_DIR", str(chosen))
    Library().write()
    assert stat.S_IMODE(chosen.stat().st_mode) == 0o700
    assert (chosen / f"lsp-{__version__}" / "nn.ss").is_file()


def _assert_not_used(cache_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for _ in range(2):
        library = Library()
        library.write()
        assert library.location(_prelude_symbol()) is None
    assert list(cache_home.iterdir()) == []
    warnings = [line for line in capsys.readouterr().err.splitlines() if str(cache_home) in line]
    assert len(warnings) == 1, warnings


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o777])
def test_a_folder_others_can_write_is_not_used(
    cache_home: Path, mode: int, capsys: pytest.CaptureFixture[str]
) -> None:
    cache_home.mkdir(parents=True)
    cache_home.chmod(mode)
    _assert_not_used(cache_home, capsys)
    assert stat.S_IMODE(cache_home.stat().st_mode) == mode


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a folder away needs root"
)
def test_a_folder_another_user_owns_is_not_used(
    cache_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache_home.mkdir(parents=True, mode=0o700)
    os.chown(cache_home, 65534, 65534)
    _assert_not_used(cache_home, capsys)
