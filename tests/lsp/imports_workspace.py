"""A workspace of several `.ss` files that import each other, and a client opened on it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

ATTENTION = """\
## Features per token.
dim D = 4

## A small layer.
model Mlp:
    ## The weights.
    param w: [D D] = zeros
    param bias: [D] = zeros

## Applies the layer.
fn forward(m: Mlp, x: [b D]) -> [b D] = x @ m.w + m.bias

fn loss(m: Mlp, x: [b D]) -> [] = sum(forward(m, x))

## What a step reports.
logs StepLogs:
    loss: [] mean
    lr: float last

data Digit:
    img: [D]
    label: [] Index[D]
"""

MAIN = """\
import attention

fn run(m: attention.Mlp, x: [b attention.D]) -> [b attention.D]:
    y = attention.forward(m, x)
    return y
"""

TRAIN = """\
import attention

fn step(mut m: attention.Mlp, x: [b attention.D], lr: float = 0.1) -> []:
    return attention.loss(m, x)

fn scale(m: attention.Mlp, k: float, x: [b attention.D]) -> [b attention.D] = x * k
"""

GENERIC = """\
fn describe(m: M, note: int) -> int = note
"""

#: Imports main.ss: offering its functions in main.ss would make a cycle.
USES_MAIN = """\
import main
import attention

fn after(m: attention.Mlp) -> int = 0
"""

LIB = """\
dim K = 3

fn twice(x: [n K]) -> [n K] = x * 2.0
"""

USER = """\
import lib

fn go(x: [n lib.K]) -> [n lib.K] = lib.twice(x)
"""

FILES = {
    "attention.ss": ATTENTION,
    "main.ss": MAIN,
    "train.ss": TRAIN,
    "generic.ss": GENERIC,
    "uses_main.ss": USES_MAIN,
    "lib.ss": LIB,
    "user.ss": USER,
}


#: Data and logs records, for completion after `batch.` and `r.`.
RECORDS = """\
import attention

dim D = 4

data Pair:
    x: [D]
    label: [] Index[D]

fn f(batch: [b] Pair, r: attention.StepLogs, one: Pair) -> []:
    u = batch.
    v = r.
    z = one.
    return sum(batch.x)

fn g(train: Dataset[Pair]):
    for batch in train |> shuffle(seed=0) |> batches(8):
        y = batch.
"""


def write_workspace(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (root / name).write_text(text)


def file_uri(root: Path, name: str) -> str:
    return (root / name).as_uri()


async def open_file(client: LanguageClient, root: Path, name: str, text: str | None = None):
    """Open a workspace file (with its text on disk unless `text` is given); its URI."""
    uri = file_uri(root, name)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="shapescript",
                version=1,
                text=(root / name).read_text() if text is None else text,
            )
        )
    )
    await until(lambda: client.diagnostics.get(uri) is not None, f"no diagnostics for {uri}")
    return uri


async def until(condition: Callable[[], bool], failure: str) -> None:
    """Wait until `condition` holds, failing after a long while (never a timing check)."""
    for _ in range(1500):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(failure)


def codes(client: LanguageClient, uri: str) -> list[str]:
    return [diagnostic.code for diagnostic in client.diagnostics.get(uri) or []]


def at(text: str, needle: str, offset: int = 0) -> types.Position:
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    return types.Position(line=line, character=index - (text.rfind("\n", 0, index) + 1))


def span(text: str, needle: str, offset: int = 0, length: int | None = None) -> types.Range:
    """The range of `needle` (from `offset` into it, `length` characters) in `text`."""
    start = at(text, needle, offset)
    size = len(needle) - offset if length is None else length
    return types.Range(
        start=start, end=types.Position(line=start.line, character=start.character + size)
    )
