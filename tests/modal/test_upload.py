"""What of the program's folder goes to the container, and the size limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.commands.support import UsageError
from shapescript.modal_run.upload import check_size, select


def make(root: Path, relative: str, size: int = 1) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)


def test_tools_folders_and_caches_stay_here(tmp_path: Path) -> None:
    for relative in [
        "train.ss",
        "data/a.csv",
        "pkg/mod.py",
        ".git/HEAD",
        ".venv/bin/python",
        "venv/lib/x.py",
        "pkg/__pycache__/mod.cpython-311.pyc",
        "stray.pyc",
        "target/debug/out",
        "site/node_modules/left-pad/index.js",
        ".mypy_cache/x.json",
        ".pytest_cache/v",
        ".ruff_cache/y",
    ]:
        make(tmp_path, relative)
    upload = select(str(tmp_path))
    assert upload.files == ("data/a.csv", "pkg/mod.py", "train.ss")
    assert upload.size == 3


def test_exclude_globs_by_name_or_by_path(tmp_path: Path) -> None:
    for relative in ["run.py", "out/a.bin", "data/big/b.bin", "data/small.txt", "logs/x.log"]:
        make(tmp_path, relative)
    upload = select(str(tmp_path), ["*.bin", "logs"])
    assert upload.files == ("data/small.txt", "run.py")
    upload = select(str(tmp_path), ["data/big"])
    assert upload.files == ("data/small.txt", "logs/x.log", "out/a.bin", "run.py")
    upload = select(str(tmp_path), ["big/b.bin"])
    assert "data/big/b.bin" in upload.files


def test_over_the_limit_names_the_largest_entries(tmp_path: Path) -> None:
    make(tmp_path, "run.py", 10)
    make(tmp_path, "checkpoints/a.pt", 700_000)
    make(tmp_path, "checkpoints/b.pt", 700_000)
    make(tmp_path, "data.bin", 400_000)
    upload = select(str(tmp_path))
    check_size(upload, 2)
    with pytest.raises(UsageError) as raised:
        check_size(upload, 1)
    message = str(raised.value)
    assert "--max-upload 1 MB" in message
    assert message.index("checkpoints/ (1.3 MB)") < message.index("data.bin (0.4 MB)")
    assert "--exclude" in message
