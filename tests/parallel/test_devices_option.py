"""`--devices` and `compile(devices=...)` on a file without a devices line: the program is
checked and compiled for those devices as if the line were written."""

from __future__ import annotations

from pathlib import Path

from shapescript.analysis import check
from shapescript.cli import main
from shapescript.syntax.source import SourceFile
from tests.parallel.programs import README


def test_several_devices_given_for_a_file_without_a_line_place_its_functions() -> None:
    text = README.read_text(encoding="utf-8")
    checked = check(SourceFile.from_text("train.ss", text), devices="cpu[0 1 2]")
    assert checked.errors == []
    assert checked.placement.device_count == 3
    assert checked.placement.places["train_step"] == "workers"
    assert checked.placement.places["run"] == "controller"
    # Without the option the file is for one device, and places nothing.
    assert not check(SourceFile.from_text("train.ss", text)).placement.several


def test_build_with_several_devices_binds_the_workers_functions(tmp_path: Path, capsys) -> None:
    source = tmp_path / "train.ss"
    source.write_text(README.read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["build", "--devices", "cpu[0 1 2]", str(source)]) == 0
    out = capsys.readouterr().out
    assert "_ss_parallel.Program(__file__, 'cpu[0 1 2]', globals())" in out
    assert "train_step = _ss_program.remote(train_step, 'train_step'" in out
    # The all-reduce names the cross_entropy of the file's own line 44: no line was added.
    assert f"'{source}:44:12')" in out


def test_standalone_build_with_several_devices_given_is_e1805(tmp_path: Path, capsys) -> None:
    source = tmp_path / "model.ss"
    source.write_text("fn double(x: [n]) -> [n] = x * 2\n")
    out = str(tmp_path / "model.py")
    status = main(["build", "--standalone", "--devices", "cuda[0 1 2]", str(source), "-o", out])
    assert status == 1
    assert "error[E1805]" in capsys.readouterr().err


def test_devices_given_that_differ_from_the_line_are_still_e1006(tmp_path: Path, capsys) -> None:
    source = tmp_path / "model.ss"
    source.write_text("devices cpu\n\nfn double(x: [n]) -> [n] = x * 2\n")
    assert main(["build", "--devices", "cpu[0 1 2]", str(source)]) == 1
    assert "error[E1006]" in capsys.readouterr().err
