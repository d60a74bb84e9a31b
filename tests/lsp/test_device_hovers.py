"""Hovers on several devices: placement of values and functions, and what each line sends."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import markdown, open_document, position
from tests.parallel.programs import readme_on

THREE = readme_on("cuda[0 1 2]")


async def _hover(client: LanguageClient, uri: str, text: str, needle: str, offset: int = 0) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, needle, offset),
        )
    )
    assert hover is not None
    return markdown(hover)


@pytest.mark.asyncio
async def test_the_value_and_grad_line_lists_its_collectives_with_their_bytes(
    client: LanguageClient,
):
    uri = await open_document(client, THREE, "three.ss")
    # Hovered anywhere on the line: on `l`, and on value_and_grad itself.
    for offset in (0, 8):
        text = await _hover(client, uri, THREE, "l, g = value_and_grad(loss", offset)
        assert (
            "Sent between the 3 devices on this line, per call:\n\n"
            "- all-reduce of the gradients of `Mlp`'s params `w1`, `b1` and `w2`, which adds "
            "up every device's part of the batch: 203,520 × f32 = 814,080 bytes (795 KiB)\n"
            "- inside `loss`: 16 bytes per call\n\n"
            "In all: 814,096 bytes (795 KiB)."
        ) in text


@pytest.mark.asyncio
async def test_functions_say_where_they_run_and_what_they_send(client: LanguageClient):
    uri = await open_document(client, THREE, "three_fns.ss")
    step = await _hover(client, uri, THREE, "fn train_step", 3)
    assert "Runs on the workers" in step
    assert "sends 814,096 bytes (795 KiB) per call, its calls included" in step
    run = await _hover(client, uri, THREE, "fn run", 3)
    assert "Runs in the controller" in run
    loss_line = await _hover(client, uri, THREE, "return cross_entropy", 8)
    assert (
        "all-reduce of `cross_entropy` across the batch, a sum and a count: 2 × f32 = 8 bytes"
        in (loss_line)
    )


@pytest.mark.asyncio
async def test_values_say_how_they_are_laid_out(client: LanguageClient):
    uri = await open_document(client, THREE, "three_values.ss")
    x = await _hover(client, uri, THREE, "fn forward(m: Mlp, x", 19)
    assert "Split across the 3 devices along `b`" in x
    assert "22/21/21 for a batch of 64" in x
    m = await _hover(client, uri, THREE, "fn forward(m", 11)
    assert "A copy on every device: 817,216 bytes (798 KiB) of params and buffers each." in m


@pytest.mark.asyncio
async def test_one_device_says_nothing_about_devices(client: LanguageClient):
    one = readme_on("cpu")
    uri = await open_document(client, one, "one.ss")
    text = await _hover(client, uri, one, "l, g = value_and_grad(loss", 0)
    assert "Sent between" not in text


@pytest.mark.asyncio
async def test_with_shard_params_a_model_is_each_device_s_piece(client: LanguageClient):
    sharded = readme_on("cuda[0 1 2]\n    shard params")
    uri = await open_document(client, sharded, "sharded.ss")
    m = await _hover(client, uri, sharded, "fn forward(m", 11)
    assert (
        "Sharded: each device holds a third of every param of `Mlp`, 271,368 bytes (265 KiB) "
        "of its params." in m
    )
    line = await _hover(client, uri, sharded, "return (x - m.mean) @ m.w1", 0)
    assert "all-gather of `m.w1`, padded to a multiple of 3: 200,706 × f32" in line
