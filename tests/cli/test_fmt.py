"""`shapescript fmt`: rewrites files in the canonical layout, or with --check lists them."""

from __future__ import annotations

from pathlib import Path

from shapescript import cli
from shapescript.commands.support import EXIT_ERRORS, EXIT_OK

MESSY = "dim D=4\nfn f(x: [n D])->[n D] = x*2\n"
TIDY = "dim D = 4\n\nfn f(x: [n D]) -> [n D] = x * 2\n"


def test_fmt_rewrites_a_file(tmp_path: Path, capsys) -> None:
    path = tmp_path / "a.ss"
    path.write_text(MESSY, encoding="utf-8")
    assert cli.main(["fmt", str(path)]) == EXIT_OK
    assert path.read_text(encoding="utf-8") == TIDY
    assert capsys.readouterr().out == f"reformatted {path}\n"
    assert cli.main(["fmt", str(path)]) == EXIT_OK
    assert capsys.readouterr().out == ""


def test_fmt_check_changes_nothing_and_fails_when_a_file_would_change(
    tmp_path: Path, capsys
) -> None:
    (tmp_path / "sub").mkdir()
    messy = tmp_path / "sub" / "a.ss"
    tidy = tmp_path / "b.ss"
    messy.write_text(MESSY, encoding="utf-8")
    tidy.write_text(TIDY, encoding="utf-8")
    assert cli.main(["fmt", "--check", str(tmp_path)]) == EXIT_ERRORS
    assert messy.read_text(encoding="utf-8") == MESSY
    assert capsys.readouterr().out == f"would reformat {messy}\n"
    assert cli.main(["fmt", "--check", str(tidy)]) == EXIT_OK


def test_fmt_leaves_a_file_with_syntax_errors_alone(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.ss"
    path.write_text("fn f(x: [n]) = (x\n", encoding="utf-8")
    assert cli.main(["fmt", str(path)]) == EXIT_ERRORS
    assert path.read_text(encoding="utf-8") == "fn f(x: [n]) = (x\n"
    assert "syntax errors" in capsys.readouterr().err


def test_fmt_keeps_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.ss"
    path.write_bytes(("\ufeff" + MESSY).encode("utf-8"))
    assert cli.main(["fmt", str(path)]) == EXIT_OK
    assert path.read_bytes() == ("\ufeff" + TIDY).encode("utf-8")
