"""Models in the editor: hover on a model and on `m.w1`, completion after `m.`, and go to
definition and references of a field, with VS Code's and Neovim 0.7's capabilities."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import markdown, open_document, position

MODELS = """\
dim D = 8
dim C = 4

## A linear classifier.
model Net:
    ## The weights, one column per class.
    param w1: [D C] = normal(std=0.02)
    param b1: [C] = zeros
    ## Subtracted from every input.
    buffer mean: [D] = zeros

fn forward(m: Net, x: [b D], mode: Mode) -> [b C] = dropout((x - m.mean) @ m.w1 + m.b1, 0.1, mode)

fn loss(m: Net, x: [b D], mode: Mode) -> [] = mean(forward(m, x, mode))

fn step(mut m: Net, mut opt: AdamW[Net], x: [b D], mode: Mode):
    l, g = value_and_grad(loss, m, x, mode)
    update(mut m, mut opt, g)

fn make(seed: int) -> Net = Net.init(seed=seed)

fn probe(m: Net, x: [b D]) -> [b C]:
    y = x @ m.w1
    return y
"""


async def _hover(client: LanguageClient, uri: str, needle: str, offset: int = 0) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(MODELS, needle, offset),
        )
    )
    assert hover is not None
    return markdown(hover)


@pytest.mark.asyncio
async def test_hover_on_a_model_shows_its_fields(client: LanguageClient):
    uri = await open_document(client, MODELS, "models.ss")
    assert list(client.diagnostics[uri]) == []
    for needle, offset in (("Net:", 0), ("m: Net, x: [b D], mode", 3), ("Net.init", 0)):
        text = await _hover(client, uri, needle, offset)
        assert "model Net:" in text
        assert "param w1: [D C] = normal(std=0.02)" in text
        assert "buffer mean: [D] = zeros" in text
        assert "A linear classifier." in text
        assert "The weights, one column per class." in text


@pytest.mark.asyncio
async def test_hover_on_a_field_shows_its_type_and_doc(client: LanguageClient):
    uri = await open_document(client, MODELS, "models.ss")
    text = await _hover(client, uri, "m.w1\n", 2)
    assert "param w1: [D C]" in text
    assert "The weights, one column per class." in text
    assert "Param of `Net`" in text


@pytest.mark.asyncio
async def test_hover_shows_training_types_as_the_reference_prints_them(client: LanguageClient):
    uri = await open_document(client, MODELS, "models.ss")
    assert "g: Grad[Net]" in await _hover(client, uri, "g = value_and_grad")
    assert "opt: AdamW[Net]" in await _hover(client, uri, "opt: AdamW")
    assert "mode: Mode" in await _hover(client, uri, "mode: Mode) -> [b C]")


@pytest.mark.asyncio
async def test_completion_after_m_dot_offers_fields_and_functions(client: LanguageClient):
    text = MODELS.replace("y = x @ m.w1", "y = x @ m.")
    uri = await open_document(client, text, "complete.ss")
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, "m.\n", 2),
        )
    )
    items = {item.label: item for item in result.items}
    assert {"w1", "b1", "mean", "forward", "loss", "step"} <= set(items)
    assert items["w1"].detail == "param w1: [D C]"
    snippets = client.client_name.startswith("visual")
    step = items["step"].text_edit
    assert step is not None
    if snippets:
        assert step.new_text == "step(mut m, mut ${1:opt}, ${2:x}, ${3:mode})"
    else:
        assert step.new_text == "step(mut m, mut opt, x, mode)"
    assert step.range.start == position(text, "m.\n")
    assert items["forward"].text_edit.new_text.startswith("forward(m, ")
    fields = sorted(
        (item for item in result.items if item.label in ("w1", "b1", "mean")),
        key=lambda item: item.sort_text,
    )
    assert [item.label for item in fields] == ["w1", "b1", "mean"]


@pytest.mark.asyncio
async def test_definition_and_references_of_a_field(client: LanguageClient):
    uri = await open_document(client, MODELS, "models.ss")
    location = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(MODELS, "m.w1 +", 2),
        )
    )
    assert location.uri == uri and location.range.start == position(MODELS, "w1: [D C]")
    locations = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(MODELS, "w1: [D C]"),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert sorted(loc.range.start.line for loc in locations) == [6, 11, 22]


@pytest.mark.asyncio
async def test_completion_after_a_gradient_offers_its_params(client: LanguageClient):
    text = MODELS.replace("update(mut m, mut opt, g)", "update(mut m, mut opt, g)\n    h = g.")
    uri = await open_document(client, text, "gradient.ss")
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, "g.\n", 2),
        )
    )
    assert sorted(item.label for item in result.items) == ["b1", "w1"]
