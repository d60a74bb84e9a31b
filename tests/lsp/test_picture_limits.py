"""The worker behind function pictures, as the editor sees it: a function that allocates
10 GB or never ends gets no picture and the next hover still answers, and a function
the reference doesn't allow running is never run, pictures allowed or not."""

from __future__ import annotations

import sys

import pytest
import torch
from lsprotocol import types
from pytest_lsp import LanguageClient

from shapescript.analysis import check
from shapescript.codegen import BuildOptions, generate
from shapescript.syntax.source import SourceFile
from tests.lsp.test_features import markdown, open_document, position

LIMITS = """\
fn huge(x: [n], r: int = 3000000000) = repeat(x, n -> n r, r=r)

fn spin(x: [n], k: int = 1000000000) -> [n]:
    y = x
    for i in 0..k:
        y = y + 1.0
    return y

fn double(x: [n]) -> [n] = x * 2.0
"""


async def _hover(client: LanguageClient, uri: str, text: str, needle: str) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, needle, len(needle) - 1),
        )
    )
    assert hover is not None
    return markdown(hover)


async def _settled(client: LanguageClient, uri: str, text: str, needle: str) -> str:
    """The hover once the worker has answered (a hover waits 4 s at most)."""
    for _ in range(20):
        shown = await _hover(client, uri, text, needle)
        if "still being computed" not in shown:
            return shown
    raise AssertionError("the worker never answered")


async def _allow(client: LanguageClient) -> None:
    client.protocol.notify("shapescript/setPython", {"python": sys.executable})
    client.protocol.notify("shapescript/setPictures", {"enabled": True})


@pytest.mark.slow
async def test_10_gb_and_an_endless_loop_get_no_picture_and_the_next_hover_answers(
    vscode_client: LanguageClient,
):
    # The worker's limits don't depend on the editor: one client is enough.
    client = vscode_client
    uri = await open_document(client, LIMITS, "limits.ss")
    await _allow(client)
    huge = await _settled(client, uri, LIMITS, "fn huge")
    assert "fn huge" in huge and "*No picture: out of memory*" in huge
    first = await _settled(client, uri, LIMITS, "fn double")
    assert "double(…): [n]" in first
    spin = await _settled(client, uri, LIMITS, "fn spin")
    assert "fn spin" in spin and "*No picture: it ran longer than" in spin
    again = await _settled(client, uri, LIMITS, "fn double")
    assert again == first, "the restarted worker draws the same picture"


TOUCH = """\
import python os

fn touch(x: [n]) -> [n]:
    os.mkdir("{path}")
    return x
"""


def test_the_touching_function_would_create_the_directory_if_it_ran(tmp_path):
    """The control for the test below: compiled and run, it does create it."""
    made = tmp_path / "made"
    text = TOUCH.format(path=made)
    generated = generate(
        check(SourceFile.from_text("touch.ss", text)), BuildOptions(standalone=True, devices="cpu")
    )
    namespace: dict = {}
    exec(compile(generated.source, "touch.py", "exec"), namespace)
    namespace["touch"](torch.zeros(3))
    assert made.is_dir()


@pytest.mark.slow
async def test_a_function_that_uses_python_is_never_run(client: LanguageClient, tmp_path):
    made = tmp_path / "made"
    text = TOUCH.format(path=made)
    uri = await open_document(client, text, "touch.ss")
    client.protocol.notify("shapescript/setPython", {"python": sys.executable})
    client.protocol.notify("shapescript/setPictures", {"enabled": False})
    assert "fn touch" in await _hover(client, uri, text, "fn touch")
    await _allow(client)
    shown = await _settled(client, uri, text, "fn touch")
    assert "fn touch" in shown and "touch(…)" not in shown and "No picture" not in shown
    assert not made.exists()
