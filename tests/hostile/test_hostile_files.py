"""Files the command line must survive: random bytes and text, other encodings, files
and folders it can't read. It exits 0, 1 or 2 with a clear message, never 3."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shapescript import cli
from shapescript.commands.check import DEFAULT_MAX_DIAGNOSTICS
from tests.hostile import programs

TIME_LIMIT = 30.0
ROOT = Path(__file__).resolve().parents[2]


def run_check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    started = time.monotonic()
    status = cli.main(["check", *argv])
    assert time.monotonic() - started < TIME_LIMIT
    out, err = capsys.readouterr()
    return status, out, err


def test_random_bytes_are_one_e0107(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "noise.ss"
    path.write_bytes(programs.random_bytes(200_000))
    status, out, _ = run_check(capsys, str(path))
    assert status == 1
    assert out.count("error[E0107]") == 1
    assert out.endswith("found 1 error in 1 file\n")
    assert len(out) < 5_000


def random_text(size: int, seed: int = 9) -> str:
    rng = random.Random(seed)
    alphabet = [chr(code) for code in range(32, 127)] + ["\n"] * 6 + ["    "] * 4
    return "".join(rng.choice(alphabet) for _ in range(size))


def test_random_text_is_about_one_error_per_line_and_capped_in_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "noise.ss"
    text = random_text(100_000)
    path.write_text(text, encoding="utf-8")
    status, out, _ = run_check(capsys, str(path))
    assert status == 1
    assert out.count("\nerror[") + out.startswith("error[") <= DEFAULT_MAX_DIAGNOSTICS
    assert "more diagnostics not shown" in out
    assert len(out) < 100_000
    status, out, _ = run_check(capsys, str(path), "--format", "json")
    assert status == 1
    found = json.loads(out)["diagnostics"]
    assert len(found) <= 1.25 * text.count("\n")


@pytest.mark.parametrize(
    ("encoding", "name"),
    [
        ("utf-16", "UTF-16 (little-endian)"),
        ("utf-16-be", None),
        ("utf-32", "UTF-32 (little-endian)"),
    ],
)
def test_other_encodings_are_one_e0107_naming_them(
    encoding: str, name: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "wide.ss"
    data = programs.binary_chain(programs.DEPTH).encode(encoding)
    if name is None:
        data = "\ufeff".encode(encoding) + data
        name = "UTF-16 (big-endian)"
    path.write_bytes(data)
    status, out, _ = run_check(capsys, str(path))
    assert status == 1
    assert out.count("error[") == 1
    assert f"error[E0107]: this file is {name}, not UTF-8" in out


def test_utf16_without_a_byte_order_mark_is_one_e0107(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "wide.ss"
    path.write_bytes(programs.dims_in_reverse(100).encode("utf-16-le"))
    status, out, _ = run_check(capsys, str(path))
    assert status == 1
    assert out.count("error[") == 1
    assert "looks like UTF-16 or UTF-32 without a byte order mark" in out


# Unreadable files and folders. The tests run as root, whom permissions don't stop, so
# the refusal is simulated by making the read raise PermissionError for one path.


def test_an_unreadable_file_is_exit_2_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "secret.ss"
    secret.write_text("dim D = 4\n", encoding="utf-8")
    (tmp_path / "open.ss").write_text("dim E = 4\n", encoding="utf-8")
    open_file = os.open

    def refuse(path, flags, *args, **kwargs):
        if os.path.basename(os.fspath(path)) == "secret.ss":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return open_file(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    status, out, err = run_check(capsys, str(tmp_path))
    assert status == 2
    assert out == ""
    assert err == f"shapescript: error: can't read `{secret}`: Permission denied\n"


def test_an_unreadable_folder_is_exit_2_not_zero_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "a.ss").write_text("dim D = 4\n", encoding="utf-8")
    scandir = os.scandir

    def refuse(path: object = ".") -> object:
        if Path(os.fsdecode(path)) == locked:
            raise PermissionError(13, "Permission denied", os.fsdecode(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refuse)
    for target in (tmp_path, locked):
        status, out, err = run_check(capsys, str(target))
        assert status == 2
        assert "no problems found" not in out
        assert err == f"shapescript: error: can't read the folder `{locked}`: Permission denied\n"


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads every file anyway"
)
def test_a_folder_without_permissions_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        status, _, err = run_check(capsys, str(tmp_path))
    finally:
        locked.chmod(0o755)
    assert status == 2
    assert "can't read the folder" in err


def test_the_real_command_on_a_deep_file_exits_1_not_3(tmp_path: Path) -> None:
    path = tmp_path / "deep.ss"
    path.write_text(programs.nested_calls(programs.DEPTH), encoding="utf-8")
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "compiler")]))
    result = subprocess.run(
        [sys.executable, "-m", "shapescript", "check", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )
    assert result.returncode == 1, result.stderr
    assert "error[E0209]" in result.stdout
    assert result.stderr == ""


def test_ten_thousand_unclosed_brackets_are_one_short_e0106(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "open.ss"
    text = programs.unclosed_calls(programs.DEPTH)
    path.write_text(text, encoding="utf-8")
    status, out, _ = run_check(capsys, str(path))
    assert status == 1
    assert out.count("error[") == 1 and "error[E0106]" in out
    assert "and 9996 more unclosed brackets" in out
    assert len(out) < 10 * len(text)
