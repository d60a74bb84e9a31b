"""Hovers on fixed shapes and recorded steps, in both capability presets."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.test_features import markdown, open_document, position

PROGRAM = """\
dim D = 4
dim C = 3

data Ex:
    x: [D]
    y: [] Index[C]

model Lin:
    param w: [D C] = normal(std=0.02)

fn loss(m: Lin, batch: [b] Ex) -> [] = cross_entropy(batch.x @ m.w, batch.y, over=C)

fn ranked(batch: [b] Ex) -> [b D]:
    return sort(batch.x, over=b)

fn step(mut m: Lin, mut opt: SGD[Lin], batch: [b] Ex) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l

fn noisy(mut m: Lin, mut opt: SGD[Lin], batch: [b] Ex):
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    print(l)

fn padded_epoch(mut m: Lin, mut opt: SGD[Lin], train: Dataset[Ex]):
    for batch in train |> batches(8):
        step(mut m, mut opt, batch)

fn sorted_epoch(train: Dataset[Ex]):
    for batch in train |> batches(16):
        print(mean(ranked(batch)))
"""


async def _hover(client: LanguageClient, uri: str, needle: str, offset: int = 0) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, needle, offset),
        )
    )
    assert hover is not None
    return markdown(hover)


@pytest.mark.asyncio
async def test_a_loops_batches_says_whether_the_last_batch_is_padded(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "padding.ss")
    padded = await _hover(client, uri, "batches(8)", 1)
    assert "the last batch is padded" in padded
    blocked = await _hover(client, uri, "batches(16)", 1)
    assert "the last batch isn't padded: `sort` over `b` has no masked version" in blocked
    assert "in `ranked`" in blocked


@pytest.mark.asyncio
async def test_the_operation_that_prevents_padding_says_what_it_keeps(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "padding.ss")
    text = await _hover(client, uri, "sort(batch.x", 1)
    assert "keeps the last batch of the loop on line 31 from being padded" in text


@pytest.mark.asyncio
async def test_a_steps_name_says_whether_it_is_recorded(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "padding.ss")
    assert "**Recorded step:**" in await _hover(client, uri, "fn step", 4)
    noisy = await _hover(client, uri, "fn noisy", 4)
    assert "**Not recorded:** `print` prints on the host" in noisy
    cause = await _hover(client, uri, "print(l)", 1)
    assert "keeps step `noisy` from being recorded" in cause


@pytest.mark.asyncio
async def test_a_functions_name_says_which_axes_padded_can_pad(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "padding.ss")
    assert "`shapescript.padded` can pad `b`" in await _hover(client, uri, "fn loss", 4)
    ranked = await _hover(client, uri, "fn ranked", 4)
    assert "`b` can't be padded: `sort` over `b` has no masked version" in ranked


def test_hovering_a_selection_says_whether_it_is_kept_padded() -> None:
    from shapescript.check.checker import check_text
    from shapescript.syntax.source import Span
    from shapescript_lsp.features.padding_hover import padding_notes

    text = (
        "dim D = 3\n"
        "fn running(v: [k D]) -> [k D] = cumsum(v, over=k)\n"
        "fn kept(x: [n D]) -> [] = sum(x[sum(x, over=D) > 0.0])\n"
    )
    text += "fn compact(x: [n D]) -> [] = sum(running(x[sum(x, over=D) > 0.0]))\n"
    checked = check_text(text)
    assert not checked.errors, [d.message for d in checked.errors]

    def note(line: str) -> str:
        start = text.index("x[", text.index(line))
        return padding_notes(checked, "x", Span(start, start + 1), None)

    assert "is kept at its target's size" in note("fn kept")
    compact = note("fn compact")
    assert "is compacted" in compact and "`cumsum` over `k`" in compact
