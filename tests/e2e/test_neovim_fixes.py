"""Code actions and formatting through real Neovim (0.7+), driven by `nvim_lsp_probe.py`.

Neovim asks for the code actions at a misspelt name as `vim.lsp.buf.code_action()` does
(`textDocument/codeAction` with the line's diagnostics); the edit of the quick fix is then
made in Neovim's buffer, which sends it to the server, and the diagnostic goes away.
"""

from __future__ import annotations

import shutil

import pytest
from lsprotocol import types

from tests.e2e.test_neovim import NVIM, PROBE, Run, line_of, probe
from tests.lsp.test_code_actions_formatting import apply

pytestmark = [
    pytest.mark.skipif(shutil.which(NVIM) is None, reason=f"Neovim ({NVIM}) not found"),
    pytest.mark.skipif(not PROBE.is_file(), reason="no nvim_lsp_probe.py"),
]

TYPO = "dim D = 4\n\nfn f(x: [b D]) -> [b D] = relu(x) |> gelo\n"
MESSY = "dim D=4\nfn f(x: [n D])->[n D] = x*2\n"


def _actions_step(text: str, needle: str) -> dict:
    line = line_of(text, needle)
    column = text.splitlines()[line].index(needle)
    at = {"line": line, "character": column}
    return {
        "op": "request",
        "name": "code actions",
        "method": "textDocument/codeAction",
        "params": {"range": {"start": at, "end": at}, "context": {"diagnostics": []}},
    }


@pytest.fixture(scope="module")
def actions(tmp_path_factory) -> Run:
    steps = [{"op": "diagnostics", "name": "open"}, _actions_step(TYPO, "gelo")]
    return probe(tmp_path_factory.mktemp("nvim-fixes"), "typo.ss", TYPO, steps)


def test_neovim_gets_the_quick_fix_and_applying_it_clears_the_diagnostic(
    actions: Run, tmp_path_factory
):
    assert [d["code"] for d in actions.step("open")["result"]] == ["E0301"]
    (action,) = actions.step("code actions")["result"]
    assert action["kind"] == "quickfix"
    assert action["title"] == "Change `gelo` to `gelu`"
    ((uri, edits),) = action["edit"]["changes"].items()
    assert uri.endswith("typo.ss")
    (edit,) = edits
    steps = [
        {"op": "diagnostics", "name": "open"},
        {"op": "edit", "name": "apply the fix", "range": edit["range"], "text": edit["newText"]},
    ]
    applied = probe(tmp_path_factory.mktemp("nvim-fixed"), "typo.ss", TYPO, steps)
    step = applied.step("apply the fix")
    assert step["diagnostics_count"] == 0, step["diagnostics"]
    assert applied.report["server_exit"]["code"] == 0


def test_neovim_formats_a_document(tmp_path_factory):
    steps = [
        {"op": "diagnostics", "name": "open"},
        {
            "op": "request",
            "name": "format",
            "method": "textDocument/formatting",
            "params": {"options": {"tabSize": 4, "insertSpaces": True}},
        },
    ]
    run = probe(tmp_path_factory.mktemp("nvim-format"), "messy.ss", MESSY, steps)
    edits = [types.TextEdit(**converted(edit)) for edit in run.step("format")["result"]]
    assert apply(MESSY, edits) == "dim D = 4\n\nfn f(x: [n D]) -> [n D] = x * 2\n"


def converted(edit: dict) -> dict:
    """A TextEdit's JSON as lsprotocol's constructor takes it."""
    start, end = edit["range"]["start"], edit["range"]["end"]
    return {
        "range": types.Range(start=types.Position(**start), end=types.Position(**end)),
        "new_text": edit["newText"],
    }
