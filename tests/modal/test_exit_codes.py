"""`shapescript run --modal`: what it refuses before Modal is called, and its exit statuses."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from shapescript import cli
from shapescript.modal_run import launch
from shapescript.modal_run.launch import NotReady, check_credentials, guarded, play

GOOD = 'devices cuda[0 1 2]\n\nfn main():\n    print("hi")\n'
BROKEN = "fn main():\n    print(missing_name)\n"
PLAIN = 'fn main():\n    print("hi")\n'


@pytest.fixture(autouse=True)
def in_a_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MODAL_TOKEN_ID", raising=False)
    monkeypatch.delenv("MODAL_TOKEN_SECRET", raising=False)
    monkeypatch.delenv("MODAL_CONFIG_PATH", raising=False)


def never_called(*args: object) -> None:
    raise AssertionError("modal was reached before the program was checked")


def test_an_error_in_the_program_exits_1_before_modal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "prog.ss").write_text(BROKEN)
    monkeypatch.setattr(launch, "import_modal", never_called)
    assert cli.main(["run", "--modal", "T4", "prog.ss"]) == 1
    assert "missing_name" in capsys.readouterr().err


def test_too_many_cuda_devices_suggests_more_gpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "prog.ss").write_text(GOOD)
    monkeypatch.setattr(launch, "import_modal", never_called)
    assert cli.main(["run", "--modal", "T4", "prog.ss"]) == 2
    assert "use --modal T4:3" in capsys.readouterr().err


def test_without_the_modal_package_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "prog.ss").write_text(PLAIN)
    monkeypatch.setitem(sys.modules, "modal", None)
    assert cli.main(["run", "--modal", "T4", "--shapescript", "shapescript", "prog.ss"]) == 2
    err = capsys.readouterr().err
    assert "needs the `modal` package" in err
    assert "pip install modal" in err
    assert len(err.strip().splitlines()) == 1


def test_without_credentials_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "prog.ss").write_text(PLAIN)
    assert cli.main(["run", "--modal", "T4", "--shapescript", "shapescript", "prog.ss"]) == 2
    err = capsys.readouterr().err
    assert "needs Modal credentials" in err and "modal setup" in err
    assert len(err.strip().splitlines()) == 1


def test_credentials_are_found_where_modal_looks(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with pytest.raises(NotReady):
        check_credentials({}, str(home))
    check_credentials({"MODAL_TOKEN_ID": "ak-1", "MODAL_TOKEN_SECRET": "as-1"}, str(home))
    with pytest.raises(NotReady):
        check_credentials({"MODAL_TOKEN_ID": "ak-1"}, str(home))
    (home / ".modal.toml").write_text('[default]\ntoken_id = "ak-1"\ntoken_secret = "as-1"\n')
    check_credentials({}, str(home))
    elsewhere = tmp_path / "other.toml"
    elsewhere.write_text('[default]\ntoken_id = "ak-2"\n')
    check_credentials({"MODAL_CONFIG_PATH": str(elsewhere)}, str(tmp_path / "nowhere"))


class NoModal:
    """No `exception` module: `guarded` catches only Ctrl-C and NotReady."""


class Sink:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> int:
        self.data += data
        return len(data)

    def flush(self) -> None:
        pass


def test_the_programs_exit_status_is_the_commands(tmp_path: Path) -> None:
    events = [("stdout", b"x\n"), ("exit", 7)]
    assert guarded(lambda: play(events, Sink(), Sink(), str(tmp_path)), NoModal) == 7


def test_ctrl_c_exits_130_and_brings_no_files_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted() -> Iterator[tuple]:
        yield ("stdout", b"step 1\n")
        yield ("file", "checkpoint.pt", b"weights")
        raise KeyboardInterrupt

    out = Sink()
    assert guarded(lambda: play(interrupted(), out, Sink(), str(tmp_path)), NoModal) == 130
    assert out.data == b"step 1\n"
    assert not (tmp_path / "checkpoint.pt").exists()
    assert "stopped" in capsys.readouterr().err


def test_a_run_without_an_exit_status_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = [("file", "half.txt", b"x")]
    assert guarded(lambda: play(events, Sink(), Sink(), str(tmp_path)), NoModal) == 2
    assert not (tmp_path / "half.txt").exists()


def test_the_network_error_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    import modal

    def unreachable() -> int:
        raise modal.exception.ConnectionError("Could not connect to the Modal server.")

    assert guarded(unreachable, modal) == 2
    assert "can't reach Modal" in capsys.readouterr().err


def test_a_request_modal_refuses_is_exit_2_and_a_failed_container_exit_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import modal

    def refused() -> int:
        raise modal.exception.InvalidError("unknown GPU type: T5")

    def failed() -> int:
        raise modal.exception.FunctionTimeoutError("the function timed out")

    assert guarded(refused, modal) == 2
    assert "Modal refused the request: unknown GPU type: T5" in capsys.readouterr().err
    assert guarded(failed, modal) == 1
    err = capsys.readouterr().err
    assert "the run on Modal failed: FunctionTimeoutError: the function timed out" in err
    assert len(err.strip().splitlines()) == 1
