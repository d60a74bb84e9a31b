"""Code actions in process: a fix's re-check is remembered for the same text and edit."""

from __future__ import annotations

from shapescript.analysis import check
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.code_actions import code_actions

TYPO = "dim D = 4\n\nfn f(x: [b D]) -> [b D] = relu(x) |> gelo\n"


def test_a_fix_is_rechecked_once_per_text() -> None:
    checked = check(SourceFile.from_text("/nonexistent/verdicts.ss", TYPO))
    calls: list[str] = []

    def recheck(text: str):
        calls.append(text)
        return check(SourceFile.from_text("/nonexistent/verdicts.ss", text)).diagnostics

    at = TYPO.index("gelo")
    first = code_actions(checked, "file:///verdicts.ss", at, at, recheck)
    assert [action.title for action in first] == ["Change `gelo` to `gelu`"]
    assert calls == [TYPO.replace("gelo", "gelu")]
    again = code_actions(checked, "file:///verdicts.ss", at, at, recheck)
    assert [action.title for action in again] == ["Change `gelo` to `gelu`"]
    assert len(calls) == 1
