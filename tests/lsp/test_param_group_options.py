"""The optimizers' param group options over the protocol: completion offers `no_decay=` and
`lr_scale=`, signature help and hover show them."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import open_document, position

PROGRAM = """\
dim D = 8

model Net:
    param w: [D D] = normal(std=0.02)
    param b: [D] = zeros

fn make(m: Net) -> AdamW[Net]:
    opt = adamw(m, lr=0.1, no_decay="vectors")
    other = adamw(m, lr=0.1, )
    return opt
"""


@pytest.mark.asyncio
async def test_completion_offers_the_param_group_options(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "lr=0.1, )", 8),
        )
    )
    labels = {item.label for item in result.items}
    assert {"no_decay=", "lr_scale="} <= labels


@pytest.mark.asyncio
async def test_signature_help_and_hover_show_the_param_group_options(client: LanguageClient):
    uri = await open_document(client, PROGRAM)
    document = types.TextDocumentIdentifier(uri=uri)
    help_ = await client.text_document_signature_help_async(
        types.SignatureHelpParams(
            text_document=document, position=position(PROGRAM, 'no_decay="vectors"', 10)
        )
    )
    signature = help_.signatures[0]
    assert 'no_decay: str = ""' in signature.label and 'lr_scale: str = ""' in signature.label
    active = signature.parameters[help_.active_parameter].label
    assert (
        signature.label[active[0] : active[1]].startswith("no_decay")
        if isinstance(active, tuple | list)
        else active.startswith("no_decay")
    )
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=document, position=position(PROGRAM, "adamw(m, lr=0.1, n", 1)
        )
    )
    assert "no_decay" in hover.contents.value and "lr_scale" in hover.contents.value
