"""A file with lone carriage returns: `shapescript check` gives each diagnostic the
line and column the language server gives it. Lines are numbered as editors and LSP
number them (a line ends at `\\n`, `\\r\\n` or a lone `\\r`); what the text means is the
reference's (a carriage return between tokens is ignored), the same for both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shapescript import cli
from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.diagnostics import publishable

TEXT = (
    "dim D = 4\rfn f(x: [n]) -> [n]:\r    return x + y\n"
    "# a comment\rfn g(x: [n]) -> [n] = x + z\r\n"
    "fn h(x: [n]) -> [n] = x + w\r"
)


def cli_positions(path: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[str, int, int]]:
    cli.main(["check", str(path), "--format", "json"])
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    return [(d["code"], d["range"]["start"]["line"], d["range"]["start"]["column"]) for d in found]


def server_positions(path: Path) -> list[tuple[str, int, int]]:
    text = path.read_bytes().decode("utf-8")
    checked = check_source(SourceFile.from_text(str(path), text), padding_later=True)
    return [
        (str(d.code), d.range.start.line + 1, d.range.start.character + 1)
        for d in publishable(checked, path.as_uri())
    ]


def test_lone_carriage_returns_give_the_same_positions_in_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "lone_cr.ss"
    path.write_bytes(TEXT.encode("utf-8"))
    from_cli = cli_positions(path, capsys)
    assert from_cli, "the file has mistakes to report"
    assert sorted(from_cli) == sorted(server_positions(path))
    # `fn` after `dim D = 4` and a lone `\r` is on the editor's second line.
    assert ("E0201", 2, 1) in from_cli


def test_a_statement_run_on_past_a_lone_carriage_return_says_why() -> None:
    checked = check_source(SourceFile.from_text("lone_cr.ss", "dim D = 4\rdim E = 5\n"))
    [diagnostic] = checked.diagnostics
    assert diagnostic.code == "E0201"
    assert diagnostic.help is not None and "carriage return" in diagnostic.help
    crlf = check_source(SourceFile.from_text("crlf.ss", "dim D = 4 5\r\n"))
    assert [d.help for d in crlf.diagnostics] == [None]
