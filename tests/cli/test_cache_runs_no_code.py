"""Nothing `shapescript check` finds in its cache folder can run code: a planted pickle
whose loading would leave a marker file never leaves it."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SMALL_FILE = REPO / "examples" / "attention.ss"


class _Planted:
    """Unpickling this runs `code`, as a hostile cache entry would."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return exec, (self.code,)


def _check(cache: Path) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ)
    environment["SHAPESCRIPT_CACHE_DIR"] = str(cache)
    environment["XDG_CACHE_HOME"] = str(cache / "xdg")
    return subprocess.run(
        [sys.executable, "-m", "shapescript", "check", str(SMALL_FILE)],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
        timeout=120,
    )


@pytest.mark.slow
def test_a_planted_pickle_in_the_cache_folder_is_never_run(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    marker = tmp_path / "ran"
    first = _check(cache)
    assert first.returncode == 0, first.stderr
    planted = pickle.dumps(_Planted(f"open({str(marker)!r}, 'w').close()"))
    entries = [path for path in cache.rglob("*") if path.is_file()] if cache.exists() else []
    for path in entries:
        path.write_bytes(planted)
    cache.mkdir(mode=0o700, exist_ok=True)
    for name in ("prelude.pickle", "prelude.json", "prelude"):
        (cache / name).write_bytes(planted)
    second = _check(cache)
    assert second.returncode == 0, second.stderr
    assert not marker.exists(), "a check ran code from a cache entry"
