"""Models that hold models in the editor: hover, completion, rename and go to definition
through `m.h[0].attn.w`, over the protocol with VS Code's and Neovim 0.7's capabilities."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import markdown, open_document, position

NESTED = """\
dim D = 8
dim L = 2

model Attention:
    ## The query weights.
    param w: [D D] = normal(std=0.02)

model Block:
    param ln: [D] = ones
    ## The block's attention.
    attn: Attention

model Gpt:
    ## The blocks.
    h: [L] Block
    first: Attention

fn attend(a: Attention, x: [b D]) -> [b D] = x @ a.w

fn forward(m: Gpt, x: [b D]) -> [b D]:
    for l in 0..L:
        x = x @ m.h[l].attn.w
    y = attend(m.h[0].attn, x)
    return y @ m.first.w

fn probe(m: Gpt) -> [D D]:
    z = m.h[1].attn.w
    return z

fn loss(m: Gpt, x: [b D]) -> [] = mean(forward(m, x))

fn grads(m: Gpt, x: [b D]) -> [D D]:
    l, g = value_and_grad(loss, m, x)
    return g.h[0].attn.w
"""


def _document(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def _hover(client: LanguageClient, uri: str, text: str, needle: str, offset: int) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=_document(uri), position=position(text, needle, offset))
    )
    assert hover is not None, needle
    return markdown(hover)


async def _labels(client: LanguageClient, text: str, needle: str, name: str) -> set[str]:
    uri = await open_document(client, text, name)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=_document(uri), position=position(text, needle, len(needle))
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else result or []
    return {item.label for item in items}


@pytest.mark.asyncio
async def test_hover_through_nested_models_shows_types(client: LanguageClient) -> None:
    uri = await open_document(client, NESTED, "nested.ss")
    assert list(client.diagnostics[uri]) == []
    field = await _hover(client, uri, NESTED, "m.h[1].attn.w", len("m.h[1].attn."))
    assert "param w: [D D]" in field
    assert "The query weights." in field
    assert "Attention" in field
    held = await _hover(client, uri, NESTED, "m.h[0].attn, x", len("m.h[0]."))
    assert "```shapescript\nattn: Attention\n```" in held
    assert "Holds an `Attention` in `Block`" in held
    assert "not trained" not in held
    assert "The block's attention." in held
    stack = await _hover(client, uri, NESTED, "m.h[0].attn, x", len("m."))
    assert "```shapescript\nh: [L] Block\n```" in stack
    assert "Holds 2 `Block` models in `Gpt`" in stack
    model = await _hover(client, uri, NESTED, "m: Gpt, x", len("m: "))
    assert "    h: [L] Block\n" in model and "model h" not in model
    # Each block: ln (8) and its attention's w (64); then `first`'s w (64).
    assert "208 trained values" in model


@pytest.mark.asyncio
async def test_completion_offers_nested_fields_and_held_models(client: LanguageClient) -> None:
    text = NESTED.replace("z = m.h[1].attn.w", "z = m.h[1].attn.")
    assert await _labels(client, text, "z = m.h[1].attn.", "nested_dot.ss") >= {"w"}
    text = NESTED.replace("z = m.h[1].attn.w", "z = m.")
    labels = await _labels(client, text, "z = m.", "model_dot.ss")
    assert {"h", "first"} <= labels
    text = NESTED.replace("z = m.h[1].attn.w", "z = m.h[1].")
    assert {"ln", "attn"} <= await _labels(client, text, "z = m.h[1].", "block_dot.ss")
    text = NESTED.replace("z = m.h[1].attn.w", "z = m.h[1].attn.w\n    k = m.h.")
    assert "attn" not in await _labels(client, text, "k = m.h.", "stack_dot.ss")
    text = NESTED.replace("return g.h[0].attn.w", "return g.h[0].attn.")
    assert await _labels(client, text, "return g.h[0].attn.", "grad_dot.ss") == {"w"}
    text = NESTED.replace("return g.h[0].attn.w", "return g.")
    assert await _labels(client, text, "return g.", "grad_root.ss") == {"h", "first"}


@pytest.mark.asyncio
async def test_rename_of_a_nested_models_field_renames_its_uses(client: LanguageClient) -> None:
    uri = await open_document(client, NESTED, "rename.ss")
    edit = await client.text_document_rename_async(
        types.RenameParams(
            text_document=_document(uri),
            position=position(NESTED, "w: [D D]"),
            new_name="q",
        )
    )
    assert edit is not None
    changes = edit.changes or {
        change.text_document.uri: change.edits for change in edit.document_changes or []
    }
    lines = NESTED.splitlines()
    renamed = sorted(
        (e.range.start.line, lines[e.range.start.line][e.range.start.character :][:1])
        for e in changes[uri]
    )
    expected = [
        (position(NESTED, needle, offset).line, "w")
        for needle, offset in (
            ("w: [D D]", 0),
            ("a.w", 2),
            ("m.h[l].attn.w", len("m.h[l].attn.")),
            ("m.first.w", len("m.first.")),
            ("m.h[1].attn.w", len("m.h[1].attn.")),
            ("g.h[0].attn.w", len("g.h[0].attn.")),
        )
    ]
    assert renamed == sorted(expected)
    assert all(e.new_text == "q" for e in changes[uri])


@pytest.mark.asyncio
async def test_definition_of_a_held_model_goes_to_its_field(client: LanguageClient) -> None:
    uri = await open_document(client, NESTED, "definition.ss")
    for needle, offset, target in (
        ("m.h[0].attn, x", len("m.h[0]."), "attn: Attention"),
        ("m.h[0].attn, x", len("m."), "h: [L] Block"),
        ("m.h[1].attn.w", len("m.h[1].attn."), "w: [D D]"),
    ):
        found = await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=_document(uri), position=position(NESTED, needle, offset)
            )
        )
        location = found[0] if isinstance(found, list) else found
        assert location is not None, needle
        assert location.uri == uri
        assert location.range.start == position(NESTED, target), (needle, offset)


MUT = (
    NESTED
    + """
fn reset(mut a: Attention):
    a.w = a.w * 0.0

fn reset_second(mut m: Gpt):
    reset(mut m.h[1].attn)
"""
)


@pytest.mark.asyncio
async def test_a_held_model_passed_as_mut_hovers_and_completes(client: LanguageClient) -> None:
    uri = await open_document(client, MUT, "held_mut.ss")
    assert list(client.diagnostics[uri]) == []
    held = await _hover(client, uri, MUT, "mut m.h[1].attn)", len("mut m.h[1]."))
    assert "```shapescript\nattn: Attention\n```" in held
    text = MUT.replace("reset(mut m.h[1].attn)", "reset(mut m.h[1].)")
    assert {"ln", "attn"} <= await _labels(client, text, "reset(mut m.h[1].", "mut_dot.ss")
