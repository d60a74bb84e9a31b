"""Math in doc comments in hovers, signature help and completion, in both capability presets."""

from __future__ import annotations

import base64

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import markdown, open_document, position

PROGRAM = """\
## Scales by $\\frac{1}{\\sqrt{D_h}}$ and adds $\\epsilon$; uses $\\sofmax(x)$ too.
fn scale(x: [n], eps: float = 0.1) -> [n] = x * 0.5 + eps

fn use(y: [k]) -> [k] = scale(y, 0.2)
"""


def _images(text: str, alt: str) -> list[bytes]:
    """The PNGs of the hover's images of math whose alternative text is `alt`: HTML images
    aligned by their middle, the math's baseline."""
    found = []
    for part in text.split('<img src="data:image/png;base64,')[1:]:
        png, attributes = part.split('"', 1)
        if f'align="middle" alt="{alt}">' in attributes.split(">", 1)[0] + ">":
            found.append(base64.b64decode(png))
    return found


@pytest.mark.asyncio
async def test_hover_renders_math_in_a_doc_comment(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "math.ss")
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "scale(y"),
        )
    )
    text = markdown(hover)
    assert "$\\epsilon$" not in text and "\\frac" not in text.replace("`$\\sofmax(x)$`", "")
    assert "`$\\sofmax(x)$`" in text  # outside the subset: as written
    if client.client_name.startswith("visual"):
        images = _images(text, "1/√Dₕ") + _images(text, "ε")
        assert len(images) == 2 and all(png.startswith(b"\x89PNG") for png in images)
    else:
        assert "data:image" not in text
        assert "Scales by 1/√Dₕ and adds ε;" in text


@pytest.mark.asyncio
async def test_signature_help_and_completion_render_math(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "math_sig.ss")
    help_ = await client.text_document_signature_help_async(
        types.SignatureHelpParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "y, 0.2"),
        )
    )
    (signature,) = help_.signatures
    documentation = signature.documentation.value
    assert "\\sqrt" not in documentation and "ε" in documentation
    item = types.CompletionItem(label="scale", data={"name": "scale", "kind": "fn"})
    resolved = await client.completion_item_resolve_async(item)
    assert "$\\epsilon$" not in resolved.documentation.value
    assert "ε" in resolved.documentation.value
