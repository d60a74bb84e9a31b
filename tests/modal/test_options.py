"""The run `shapescript run --modal` asks for: the folders, the flags' checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.commands.support import UsageError
from shapescript.modal_run.gpu import parse_gpu
from shapescript.modal_run.launch import ModalRun, modal_run_from


def make(program: str, project: str | None = None, **options: object) -> ModalRun:
    values: dict[str, object] = {
        "project": project,
        "pip": ["scipy"],
        "shapescript": None,
        "exclude": ["*.bin"],
        "max_upload_mb": 500.0,
    }
    values.update(options)
    return modal_run_from("a10g:2", [program, "--steps", "3"], **values)  # type: ignore[arg-type]


def test_the_programs_folder_is_uploaded_and_its_output_unbuffered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    run = make("sub/train.py")
    assert run.gpu == parse_gpu("A10G:2")
    assert run.argv == ("sub/train.py", "--steps", "3")
    assert (run.project, run.cwd) == (str(tmp_path / "sub"), str(tmp_path))
    assert run.pip == ("scipy",) and run.exclude == ("*.bin",)
    assert run.environment == {"PYTHONUNBUFFERED": "1"}


def test_files_come_back_to_the_working_directory_when_it_holds_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path)
    assert make("project/train.py").sync_root == str(tmp_path)
    monkeypatch.chdir(tmp_path / "elsewhere")
    run = make("../project/train.py")
    assert run.sync_root == str(tmp_path / "project")
    assert make("x.py", project=str(tmp_path / "project")).project == str(tmp_path / "project")


def test_flags_that_cant_work_are_usage_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="--project"):
        make("x.py", project=str(tmp_path / "missing"))
    with pytest.raises(UsageError, match="--max-upload"):
        make("x.py", max_upload_mb=0.0)
    with pytest.raises(UsageError, match="--modal"):
        modal_run_from("T4", ["-m", "pkg"], project=None, pip=[], shapescript=None,
                       exclude=[], max_upload_mb=500.0)  # fmt: skip


@pytest.mark.parametrize(
    "flags",
    [["--pip", "scipy"], ["--exclude", "*.bin"], ["--project", "."], ["--max-upload", "10"]],
)
def test_a_modal_flag_without_modal_is_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
) -> None:
    from shapescript import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.py").write_text("raise SystemExit('ran')\n")
    assert cli.main(["run", *flags, "prog.py"]) == 2
    err = capsys.readouterr().err
    assert f"{flags[0]} goes with --modal" in err
