"""The optimizers' and schedules' options over the protocol: completion inside `adamw(`
offers each keyword with what it means, and signature help documents the active one."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import open_document, position

PROGRAM = """\
dim D = 4

model Mlp:
    param w: [D D] = normal(std=0.02)

fn make(m: Mlp) -> AdamW[Mlp]:
    return adamw(m, lr=3e-4, )
"""

ADAMW_OPTIONS = ("beta1", "beta2", "eps", "weight_decay", "amsgrad", "maximize", "fused")


def _documentation(value) -> str:
    if isinstance(value, types.MarkupContent):
        return value.value
    return value or ""


@pytest.mark.asyncio
async def test_completion_offers_adamw_options_with_their_meaning(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "optimizer_options.ss")
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "lr=3e-4, ", 9),
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else result
    by_label = {item.label: item for item in items}
    for option in ADAMW_OPTIONS:
        assert f"{option}=" in by_label, sorted(by_label)
    assert "lr=" not in by_label
    assert "0.9" in by_label["beta1="].detail
    assert "betas" in _documentation(by_label["beta1="].documentation)
    assert "decoupled" in _documentation(by_label["weight_decay="].documentation)


@pytest.mark.asyncio
async def test_signature_help_documents_the_active_option(client: LanguageClient):
    text = PROGRAM.replace("lr=3e-4, )", "lr=3e-4, beta2=)")
    uri = await open_document(client, text, "optimizer_signature.ss")
    help_ = await client.text_document_signature_help_async(
        types.SignatureHelpParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, "beta2=", 6),
        )
    )
    signature = help_.signatures[0]
    assert signature.label.startswith("fn adamw(")
    active = signature.parameters[help_.active_parameter]
    assert active.label.startswith("beta2")
    assert "second moment" in _documentation(active.documentation)


@pytest.mark.asyncio
async def test_schedule_options_are_documented_too(client: LanguageClient):
    text = PROGRAM.replace("lr=3e-4, )", "lr=cosine(3e-4, )")
    uri = await open_document(client, text, "schedule_signature.ss")
    help_ = await client.text_document_signature_help_async(
        types.SignatureHelpParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, "cosine(3e-4, ", 13),
        )
    )
    signature = help_.signatures[0]
    assert signature.label.startswith("fn cosine(")
    active = signature.parameters[help_.active_parameter]
    assert active.label.startswith("steps")
    assert "reaches end" in _documentation(active.documentation)
