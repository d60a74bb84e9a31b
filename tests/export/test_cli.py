"""`shapescript export`'s errors and exit codes, before anything is traced."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from shapescript import cli
from tests.export.programs import ATTENTION, ENCODER, MARKED_MODEL, TWO_EXPORTS, UNMARKED_HOST


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_a_missing_function_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    Path("a.ss").write_text(ATTENTION)
    assert cli.main(["export", "a.ss", "--fn", "nope"]) == 2
    assert "no function `nope`" in capsys.readouterr().err


def test_no_fn_with_two_export_fns_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    Path("two.ss").write_text(TWO_EXPORTS)
    assert cli.main(["export", "two.ss"]) == 2
    assert "--fn" in capsys.readouterr().err


def test_an_unmarked_function_is_checked_as_an_exported_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("host.ss").write_text(UNMARKED_HOST)
    assert cli.main(["check", "host.ss"]) == 0
    capsys.readouterr()
    assert cli.main(["export", "host.ss", "--fn", "shout"]) == 1
    err = capsys.readouterr().err
    assert "E1704" in err and "exported function `shout`" in err
    assert not Path("host.pt2").exists()


def test_a_file_with_errors_is_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    Path("bad.ss").write_text("export fn f(x: [n], k: int) -> [n]:\n    return x * k\n")
    assert cli.main(["export", "bad.ss"]) == 1
    assert "E1705" in capsys.readouterr().err


def test_the_emitted_module_needs_torch_and_einops_only() -> None:
    Path("a.ss").write_text(ATTENTION)
    assert cli.main(["export", "a.ss", "--emit-python", "a_export.py"]) == 0
    tree = ast.parse(Path("a_export.py").read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported - sys.stdlib_module_names <= {"torch", "einops"}
    assert "shapescript" not in imported


def test_an_unmarked_function_taking_a_model_first_bakes_the_model_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import subprocess

    Path("enc.ss").write_text(ENCODER)
    commands: list[list[str]] = []
    monkeypatch.setattr(subprocess, "call", lambda command: commands.append(command) or 0)
    argv = ["export", "enc.ss", "--fn", "forward", "-o", "enc.pt2", "--weights", "w.pt"]
    assert cli.main([*argv, "--seed", "4"]) == 0
    ((_python, _script, *passed),) = commands
    assert passed == ["-o", "enc.pt2", "--seed", "4", "--weights", "w.pt"]
    assert cli.main(["export", "enc.ss", "--fn", "forward", "--aoti"]) == 0
    assert commands[-1][2:] == ["-o", "enc.pt2", "--aoti", "--seed", "0"]
    assert cli.main(["export", "enc.ss", "--fn", "forward", "--emit-python", "e.py"]) == 0
    text = Path("e.py").read_text()
    assert "'model': 'Encoder'" in text and "'model_param': 'm'" in text


def test_an_export_fn_taking_a_model_is_still_e1705(capsys: pytest.CaptureFixture[str]) -> None:
    Path("marked.ss").write_text(MARKED_MODEL)
    assert cli.main(["export", "marked.ss"]) == 1
    err = capsys.readouterr().err
    assert "E1705" in err and "is a model (`Encoder`), which isn't a tensor" in err
    # The help says how a model's forward is exported: unmarked, by name.
    assert "leave `export` off" in err and "shapescript export marked.ss --fn forward" in err
    assert cli.main(["export", "marked.ss", "--fn", "forward", "-o", "m.pt2"]) == 1


def test_weights_that_are_not_the_models_are_a_plain_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import importlib.util

    import torch

    Path("enc.ss").write_text(ENCODER)
    assert cli.main(["export", "enc.ss", "--fn", "forward", "--emit-python", "e.py"]) == 0
    spec = importlib.util.spec_from_file_location("enc_export", "e.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.save({"x": torch.zeros(3)}, "other.pt")
    run = [module.forward, module._SS_EXPORT_SPEC, torch.device("cpu"), "enc.ss", {}]
    assert module._ss_main(*run, argv=["-o", "enc.pt2", "--weights", "other.pt"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == "enc.ss: error: `other.pt` holds no Encoder model that save wrote"
    assert not Path("enc.pt2").exists()
