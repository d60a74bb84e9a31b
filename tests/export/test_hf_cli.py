"""`shapescript export --hf`'s checks, before any folder is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shapescript import cli
from shapescript.analysis import check
from shapescript.export.hf import serving_form
from shapescript.syntax.source import SourceFile
from tests.export.programs import ENCODER, MODEL_SECOND

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_a_function_without_the_model_first_is_e3306(capsys: pytest.CaptureFixture[str]) -> None:
    Path("asr.ss").write_text(MODEL_SECOND)
    assert cli.main(["export", "asr.ss", "--fn", "transcribe", "--hf", "asr_hf"]) == 1
    err = capsys.readouterr().err
    assert "error[E3306]" in err and "asr.ss:6:15" in err
    assert not Path("asr_hf").exists()


def test_another_parameter_without_a_shape_is_e1705(capsys: pytest.CaptureFixture[str]) -> None:
    Path("k.ss").write_text(ENCODER.replace("x: [b t D])", "x: [b t D], k: int)"))
    assert cli.main(["export", "k.ss", "--hf", "k_hf"]) == 1
    assert "error[E1705]" in capsys.readouterr().err


def test_someone_elses_folder_is_never_replaced(capsys: pytest.CaptureFixture[str]) -> None:
    Path("enc.ss").write_text(ENCODER)
    Path("theirs").mkdir()
    (Path("theirs") / "config.json").write_text(json.dumps({"model_type": "bert"}))
    assert cli.main(["export", "enc.ss", "--hf", "theirs", "--no-verify"]) == 1
    assert "didn't write it" in capsys.readouterr().err
    assert json.loads((Path("theirs") / "config.json").read_text()) == {"model_type": "bert"}


def test_a_forward_that_isnt_a_language_models_is_a_note_or_with_vllm_an_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    Path("enc.ss").write_text(ENCODER)
    assert cli.main(["export", "enc.ss", "--hf", "enc_hf", "--vllm"]) == 1
    assert "error: `forward` can't be served: E3301" in capsys.readouterr().err


def test_the_gpt2_example_has_the_serving_form() -> None:
    text = (ROOT / "examples" / "gpt2.ss").read_text()
    checked = check(SourceFile.from_text("gpt2.ss", text))
    assert serving_form(checked, "forward") == (True, None, "V")
