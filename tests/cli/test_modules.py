"""`shapescript check` and `build` on files that import other `.ss` files."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.cli import main

MULTI_FILE = Path(__file__).resolve().parents[1] / "data" / "multi_file"

LAYERS = "dim D = 4\n\nfn double(x: [n D]) -> [n D] = x * 2\n"
MAIN = "import layers\n\nfn f(x: [n layers.D]) -> [n layers.D] = layers.double(x)\n"


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _lines(out: str) -> list[str]:
    return [line.rstrip() for line in out.splitlines()]


@pytest.mark.parametrize(
    ("case", "file", "expected"),
    [
        (
            "E2302",
            "a.ss",
            [
                "error[E2302]: `b.ss` imports this file back",
                "  = note: the files import each other: a.ss -> b.ss -> a.ss",
            ],
        ),
        (
            "E2303",
            "main.ss",
            [
                "error[E2303]: `broken.ss` has an error",
                "  = note: broken.ss:1:23: error[E0301]: unknown name `y`",
            ],
        ),
    ],
)
def test_the_references_transcripts(
    case: str, file: str, expected: list[str], capsys, monkeypatch
) -> None:
    monkeypatch.chdir(MULTI_FILE / case)
    assert main(["check", file]) == 1
    lines = _lines(capsys.readouterr().out)
    assert lines[0] == expected[0]
    assert expected[1] in lines
    assert sum(line.startswith("error[") for line in lines) == 1


def test_check_finds_imports_on_pythonpath(tmp_path: Path, capsys, monkeypatch) -> None:
    library = tmp_path / "library"
    _write(library, "layers.ss", LAYERS)
    main_file = _write(tmp_path / "program", "main.ss", MAIN)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert main(["check", str(main_file)]) == 1
    assert "error[E2301]: no file `layers.ss`" in capsys.readouterr().out
    monkeypatch.setenv("PYTHONPATH", str(library))
    assert main(["check", str(main_file)]) == 0
    assert capsys.readouterr().out == "no problems found in 1 file\n"


def test_check_a_folder_of_files_that_import_each_other(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    _write(tmp_path, "layers.ss", LAYERS)
    _write(tmp_path, "main.ss", MAIN)
    _write(tmp_path, "broken.ss", "fn g(x: [n]) -> [n] = y\n")
    _write(tmp_path, "uses_broken.ss", "import broken\nimport layers\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "."]) == 1
    out = capsys.readouterr().out
    headers = [line for line in _lines(out) if line.startswith("error[")]
    assert headers == [
        "error[E0301]: unknown name `y`",
        "error[E2303]: `broken.ss` has an error",
    ]
    assert " --> uses_broken.ss:1:8" in out
    assert out.rstrip().endswith("found 2 errors in 4 files")


def test_standalone_build_of_a_file_with_imports(tmp_path: Path, capsys) -> None:
    _write(tmp_path, "layers.ss", LAYERS)
    main_file = _write(tmp_path, "main.ss", MAIN)
    status = main(["build", "--standalone", "--devices", "cpu", str(main_file)])
    assert status == 1
    err = capsys.readouterr().err
    assert "error[E2305]: a standalone build can't import other `.ss` files" in err
    assert f" --> {main_file}:1:1" in err


def test_build_imports_the_other_file_through_the_runtime(tmp_path: Path, capsys) -> None:
    _write(tmp_path, "layers.ss", LAYERS)
    main_file = _write(tmp_path, "main.ss", MAIN)
    assert main(["build", str(main_file)]) == 0
    out = capsys.readouterr().out
    assert '_ss_mod_layers = _ss_rt.import_ss(__name__, __file__, "layers")' in out
    assert "layers = _ss_mod_layers" in out
    assert "return _ss_mod_layers.double(x)" in out
