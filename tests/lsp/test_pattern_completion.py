"""Completion inside a pattern over the protocol: the operand's axes and the names the
pattern has written, never domains, functions or keywords (issue 31, item 5)."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_editor_details import complete

HEAD = "dim D = 8\ndim H = 2\nfn f(x: [b n D], q: [b n D], k: [b m D]) -> [b n D]:\n"
TAIL = "\n    return x\n"

#: The line typed (with the cursor at ‸) and the labels offered, in order.
CASES = [
    ("    y = rearrange(x, b n D -> ‸", ["b", "n", "D", "H"]),
    ("    y = rearrange(x, b n D -> b ‸", ["n", "D", "H"]),
    ("    y = rearrange(x, ‸", ["b", "n", "D", "H"]),
    ("    y = x |> rearrange(b n (H h) -> ‸", ["b", "n", "H", "h", "D"]),
    ("    y = x |> reduce(b n D -> ‸", ["b", "n", "D", "H"]),
    ("    y = einsum(q, k: ‸", ["b", "n", "D", "H"]),
    ("    y = einsum(q, k: b n D, ‸", ["b", "m", "D", "n", "H"]),
    ("    y = einsum(q, k: b n D, b m D -> ‸", ["b", "n", "D", "m", "H"]),
    ("    y = einsum(q, k: b n D, b m D -> b n ‸", ["D", "m", "H"]),
    ("    a, c = x |> split(b n (2 h) -> ‸", ["b", "n", "h", "D", "H"]),
    ("    y = softmax(x, over=‸", ["D", "n", "b"]),
    ("    y = x |> softmax(over=‸", ["D", "n", "b"]),
]


@pytest.mark.asyncio
async def test_a_pattern_offers_axis_names_only(client: LanguageClient):
    for line, expected in CASES:
        items = await complete(client, HEAD + line + TAIL)
        labels = [item.label for item in items]
        assert labels == expected, line
        assert {item.kind for item in items} == {types.CompletionItemKind.TypeParameter}, line


@pytest.mark.asyncio
async def test_a_partly_typed_name_in_a_pattern_is_completed(vscode_client: LanguageClient):
    items = await complete(
        vscode_client, HEAD + "    y = einsum(q, k: b n D, b m D -> b n m‸" + TAIL
    )
    assert [item.label for item in items] == ["m"]
    items = await complete(vscode_client, HEAD + "    y = rearrange(x, b n D -> b n A‸" + TAIL)
    assert "Additive" not in [item.label for item in items]
