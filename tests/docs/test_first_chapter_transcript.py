"""The terminal session in guide chapter 1 is what `shapescript check` prints: a newcomer
compares the first thing they run with the page, so the page's output must be the tool's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shapescript.cli import main
from tests.docs.doc_blocks import ROOT, fenced_blocks

PAGE = ROOT / "docs" / "guide" / "01-first-function.md"


def _block_after(phrase: str, language: str) -> str:
    """The text of the first `language` block that follows `phrase` on the page."""
    text = PAGE.read_text(encoding="utf-8")
    line = text[: text.index(phrase)].count("\n") + 1
    return next(
        block.text
        for block in fenced_blocks(PAGE)
        if block.line > line and block.language == language
    )


def _session(transcript: str) -> list[tuple[str, str]]:
    """Each `$ command` of a terminal block with the output shown under it."""
    parts = re.split(r"^\$ (.*)\n", transcript, flags=re.MULTILINE)
    return list(zip(parts[1::2], parts[2::2], strict=True))


def test_checking_the_first_program_prints_what_the_page_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "scale.ss").write_text(
        _block_after("# 1. A first function", "shapescript"), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    session = _session(_block_after("Save the program as `scale.ss`", ""))
    assert [command for command, _ in session] == ["shapescript check scale.ss", "echo $?"]
    status = main(["check", "scale.ss"])
    printed = capsys.readouterr().out
    assert printed == session[0][1]
    assert f"{status}\n" == session[1][1]
