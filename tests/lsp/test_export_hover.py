"""`export fn` in the editor: hover shows the input spec torch.export will use, and the
export check's errors come with their codes' pages."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from shapescript.diagnostics.pages import page_location
from tests.lsp.test_features import markdown, open_document, position

EXPORTED = """\
dim D = 8

export fn project(x: [b 2n D], w: [D D], scale: float = 2.0) -> [b 2n D]:
    return x @ w * scale
"""

PYTHON = """\
import python torch

export fn f(x: [n]) -> [n]:
    return torch.tanh(x) as [n]
"""


async def _hover(client: LanguageClient, uri: str, needle: str, offset: int = 0) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(EXPORTED, needle, offset),
        )
    )
    assert hover is not None
    return markdown(hover)


@pytest.mark.asyncio
async def test_hover_on_export_shows_which_axes_are_dynamic(client: LanguageClient):
    uri = await open_document(client, EXPORTED, "exported.ss")
    for needle, offset in (("export fn", 2), ("project(", 1)):
        text = await _hover(client, uri, needle, offset)
        assert "fn project(" in text
        assert "torch.export inputs" in text
        assert "`x`: b Dim, 2n derived from n, D static (f32)" in text
        assert "`w`: D static, D static (f32)" in text
        assert "`scale`: fixed at its default" in text


@pytest.mark.asyncio
async def test_export_errors_link_to_their_pages(client: LanguageClient):
    uri = await open_document(client, PYTHON, "python.ss")
    (diagnostic,) = client.diagnostics[uri]
    assert diagnostic.code == "E1701"
    assert diagnostic.code_description.href == page_location("E1701").as_uri()
