"""Grouped axes are printed as the user wrote them, in every place a type is shown."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from shapescript.check.algebra.types import format_type
from shapescript.check.checker import check_text
from tests.lsp.test_features import markdown, open_document, position

PROGRAM = """\
dim D = 8
dim H = 2
dim Dh = D / H

fn heads(x: [b n (H Dh)], img: [b 16gh 16gw]) -> [b n (H Dh)]:
    y = x * 2.0
    z = img
    return y
"""


def test_format_type_keeps_the_written_group() -> None:
    checked = check_text(PROGRAM)
    y = checked.type_at(PROGRAM.index("y = "))
    z = checked.type_at(PROGRAM.index("z = "))
    assert format_type(y) == "[b n (H Dh)]"
    assert format_type(z) == "[b 16gh 16gw]"


def test_a_group_and_its_product_are_the_same_type() -> None:
    checked = check_text(PROGRAM + "fn flat(x: [b n D]) -> [b n (H Dh)] = x\n")
    assert not checked.diagnostics


def test_a_diagnostic_prints_the_group_as_written() -> None:
    checked = check_text("dim H = 2\ndim Dh = 4\nfn f(x: [n (H Dh)]) -> [n 3] = x\n")
    assert any("[n (H Dh)]" in item.message for item in checked.diagnostics)


@pytest.mark.asyncio
async def test_hover_and_inlay_hints_print_groups_as_written(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "groups.ss")
    for needle, expected in (("y = ", "y: [b n (H Dh)]"), ("z = ", "z: [b 16gh 16gw]")):
        hover = await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=position(PROGRAM, needle),
            )
        )
        assert expected in markdown(hover)
        assert "Dh*H" not in markdown(hover) and "16*gh" not in markdown(hover)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=0, character=0),
                end=types.Position(line=PROGRAM.count("\n"), character=0),
            ),
        )
    )
    labels = {hint.position.line: hint.label for hint in hints}
    assert labels[5] == ": [b n (H Dh)]"
    assert labels[6] == ": [b 16gh 16gw]"


@pytest.mark.asyncio
async def test_completion_details_print_groups_as_written(client: LanguageClient):
    text = PROGRAM.replace("    return y\n", "    return y + \n")
    uri = await open_document(client, text, "complete_groups.ss")
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, "y + ", 4),
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else result
    details = {item.label: item.detail for item in items}
    assert details["y"] == "[b n (H Dh)]"
    assert details["z"] == "[b 16gh 16gw]"


def test_a_call_keeps_the_group_of_its_result_and_drops_a_solved_one() -> None:
    program = PROGRAM + (
        "fn strips(x: [b 16gh]) -> [b 16gh] = x\n"
        "fn use(x: [b n D], img: [b 32 32], s: [b 32]):\n"
        "    h = heads(x, img)\n"
        "    t = strips(s)\n"
        "    return h\n"
    )
    checked = check_text(program)
    assert not checked.diagnostics
    assert format_type(checked.type_at(program.index("    h = ") + 4)) == "[b n (H Dh)]"
    assert format_type(checked.type_at(program.index("    t = ") + 4)) == "[b 32]"


PATTERNS = """\
dim D = 8
dim H = 2
dim Dh = D / H

fn merge(x: [b H n Dh], img: [b c 16gh 16gw]) -> [b n D]:
    y = rearrange(x, b H n Dh -> b n (H Dh))
    p = rearrange(img, b c (gh 16) (gw 16) -> b (gh gw) (c 16 16))
    s = rearrange(img, b c 16gh 16gw -> b c gw 16gh)
    r = repeat(y, b n D -> b n (D 2))
    return y
"""


def test_a_pattern_result_keeps_its_groups_as_written() -> None:
    checked = check_text(PATTERNS)
    assert not checked.diagnostics
    printed = {
        name: format_type(checked.type_at(PATTERNS.index(f"    {name} = ") + 4)) for name in "ypsr"
    }
    assert printed == {
        "y": "[b n (H Dh)]",
        "p": "[b (gh gw) (c 16 16)]",
        "s": "[b c gw 16gh]",
        "r": "[b n (D 2)]",
    }


def test_a_pattern_group_is_the_same_size_as_its_product() -> None:
    program = PATTERNS.replace(
        "    return y\n", "    w = y + rearrange(x, b H n Dh -> b n (Dh H))\n    return w\n"
    )
    checked = check_text(program)
    assert not checked.diagnostics
    assert format_type(checked.type_at(program.index("    w = ") + 4)) in {
        "[b n (H Dh)]",
        "[b n (Dh H)]",
    }


def test_a_diagnostic_prints_a_pattern_group_as_written() -> None:
    program = PATTERNS.replace("-> [b n D]:", "-> [b n 3]:")
    messages = [item.message for item in check_text(program).diagnostics]
    assert any("[b n (H Dh)]" in message for message in messages), messages
    assert not any("Dh*H" in message for message in messages)


@pytest.mark.asyncio
async def test_hover_and_inlay_hint_of_a_pattern_result_print_its_group(client: LanguageClient):
    uri = await open_document(client, PATTERNS, "pattern_groups.ss")
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PATTERNS, "y = "),
        )
    )
    assert "y: [b n (H Dh)]" in markdown(hover)
    assert "Dh*H" not in markdown(hover)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=0, character=0),
                end=types.Position(line=PATTERNS.count("\n"), character=0),
            ),
        )
    )
    labels = {hint.position.line: hint.label for hint in hints}
    assert labels[5] == ": [b n (H Dh)]"
    assert labels[6] == ": [b (gh gw) (c 16 16)]"
