"""Outline and rename through real Neovim (0.7+), driven by `nvim_lsp_probe.py`: Neovim's
own LSP client sends the requests `:lua vim.lsp.buf.document_symbol()` and
`vim.lsp.buf.rename()` send, and the tests read what the server answered."""

from __future__ import annotations

import pytest

from tests.e2e.test_neovim import REPO, Run, line_of, probe, pytestmark  # noqa: F401

STEPS = [
    {"op": "diagnostics", "name": "open"},
    {
        "op": "request",
        "name": "outline",
        "method": "textDocument/documentSymbol",
    },
    {
        "op": "request",
        "name": "prepare rename of an axis",
        "method": "textDocument/prepareRename",
        "find": "softmax(over=m)",
        "offset": len("softmax(over="),
    },
    {
        "op": "request",
        "name": "rename an axis",
        "method": "textDocument/rename",
        "find": "softmax(over=m)",
        "offset": len("softmax(over="),
        "params": {"newName": "key"},
    },
    {
        "op": "request",
        "name": "rename a dim",
        "method": "textDocument/rename",
        "find": "dim Dh",
        "offset": len("dim "),
        "params": {"newName": "HeadWidth"},
    },
]


@pytest.fixture(scope="module")
def attention(tmp_path_factory) -> Run:
    text = (REPO / "examples" / "attention.ss").read_text(encoding="utf-8")
    return probe(tmp_path_factory.mktemp("nvim-names"), "attention.ss", text, STEPS)


def _edits(run: Run, name: str) -> list[tuple[int, int, int, str]]:
    result = run.step(name)["result"]
    (edits,) = result["changes"].values()
    return sorted(
        (
            edit["range"]["start"]["line"],
            edit["range"]["start"]["character"],
            edit["range"]["end"]["character"],
            edit["newText"],
        )
        for edit in edits
    )


def test_the_outline_lists_the_declarations_in_order(attention: Run):
    assert attention.report["ok"], attention.context()
    result = attention.step("outline")["result"]
    assert [symbol["name"] for symbol in result] == [
        "D",
        "H",
        "Dh",
        "causal_attention",
        "Attention",
        "forward",
    ]
    model = result[4]
    assert [field["name"] for field in model["children"]] == ["w_qkv", "w_o"]
    assert result[2]["detail"] == "D / H = 64"


def test_rename_of_an_axis_changes_its_pattern_uses_in_its_function(attention: Run):
    text = attention.file.read_text(encoding="utf-8")
    prepared = attention.step("prepare rename of an axis")["result"]
    assert prepared["placeholder"] == "m"
    lines = text.split("\n")
    edits = _edits(attention, "rename an axis")
    assert {new for *_, new in edits} == {"key"}
    assert all(lines[line][start:end] == "m" for line, start, end, _ in edits)
    first = line_of(text, "fn causal_attention")
    last = line_of(text, "|> matmul(w_o)")
    assert all(first <= line <= last for line, *_ in edits)
    # einsum's pattern, the causal mask, softmax's over= and the second einsum's pattern
    assert len(edits) == 6


def test_rename_of_a_dim_changes_its_declaration_and_every_use(attention: Run):
    text = attention.file.read_text(encoding="utf-8")
    lines = text.split("\n")
    edits = _edits(attention, "rename a dim")
    assert all(lines[line][start:end] == "Dh" for line, start, end, _ in edits)
    assert (line_of(text, "dim Dh"), 4, 6, "HeadWidth") in edits
    # the declaration, split's and the einsums' and rearrange's patterns, and sqrt(Dh)
    assert len(edits) == 10
