"""documentHighlight, foldingRange and selectionRange over the protocol, with VS Code's and
Neovim 0.7's capabilities: on a small program, on examples/gpt.ss, and on hostile input
(a 5,000-link chain, brackets nested past the limit, a 1 MB file), which must answer, not
fail."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from benchmarks.check_big import program_of_size
from tests.lsp.raw_client import RawServer
from tests.lsp.test_features import open_document, open_file, position

REPO = Path(__file__).resolve().parents[2]
GPT = (REPO / "examples" / "gpt.ss").read_text()

PROGRAM = """\
# Two plain comment lines
# that fold together.
dim D = 8

## A model.
## Its doc comment folds too.
model Mlp:
    param w: [D D] = normal(std=0.02)
    param b: [D] = zeros

fn scale(x: [b n D], m: Mlp) -> [b n D]:
    y = x @ m.w
    for i in 0..3:
        y = y + m.b
    z = layer_norm(
        y,
        over=D,
    )
    return softmax(z, over=D) |> rearrange(b n D -> b n D)
"""


def lines_of(found: list[types.DocumentHighlight]) -> list[tuple[int, int, int]]:
    return sorted((h.range.start.line, h.range.start.character, h.kind) for h in found)


async def highlights(client: LanguageClient, uri: str, text: str, needle: str, offset: int = 0):
    found = await client.text_document_document_highlight_async(
        types.DocumentHighlightParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, needle, offset),
        )
    )
    return list(found or [])


async def folds(client: LanguageClient, uri: str) -> list[types.FoldingRange]:
    found = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return list(found or [])


async def selections(
    client: LanguageClient, uri: str, positions: list[types.Position]
) -> list[list[types.Range]]:
    found = await client.text_document_selection_range_async(
        types.SelectionRangeParams(
            text_document=types.TextDocumentIdentifier(uri=uri), positions=positions
        )
    )
    chains = []
    for selection in found or []:
        chain = []
        while selection is not None:
            chain.append(selection.range)
            selection = selection.parent
        chains.append(chain)
    return chains


def offset_in(text: str, at: types.Position) -> int:
    starts = [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]
    return starts[at.line] + at.character


def written(text: str, span: types.Range) -> str:
    return text[offset_in(text, span.start) : offset_in(text, span.end)]


def holds(outer: types.Range, inner: types.Range) -> bool:
    start = (outer.start.line, outer.start.character) <= (inner.start.line, inner.start.character)
    return start and (inner.end.line, inner.end.character) <= (outer.end.line, outer.end.character)


def test_the_server_advertises_the_three_requests(tmp_path):
    server = RawServer()
    try:
        capabilities = server.initialize(tmp_path)["result"]["capabilities"]
    finally:
        server.close()
    assert capabilities["documentHighlightProvider"]
    assert capabilities["foldingRangeProvider"]
    assert capabilities["selectionRangeProvider"]


READ, WRITE, TEXT = (
    types.DocumentHighlightKind.Read,
    types.DocumentHighlightKind.Write,
    types.DocumentHighlightKind.Text,
)


@pytest.mark.asyncio
async def test_highlights_of_a_value_a_param_a_field_and_a_dim(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "highlights.ss")
    line_y = PROGRAM[: PROGRAM.index("    y = x @")].count("\n")
    line_z = PROGRAM[: PROGRAM.index("    z = layer_norm")].count("\n")
    # `z` is assigned, then read.
    found = lines_of(await highlights(client, uri, PROGRAM, "z = layer_norm"))
    assert found == [(line_z, 4, WRITE), (line_z + 4, 19, READ)]
    # The param `x`: its declaration and its read.
    found = lines_of(await highlights(client, uri, PROGRAM, "x @ m.w"))
    assert found == [(line_y - 1, 9, WRITE), (line_y, 8, READ)]
    # The field `b` of the model, not the axis `b` of the signature.
    found = await highlights(client, uri, PROGRAM, "m.b", 2)
    assert [written(PROGRAM, h.range) for h in found] == ["b", "b"]
    assert [h.range.start.line for h in found] == [8, line_y + 2]
    # The dim `D` everywhere: its declaration, types, `over=D` and the pattern.
    found = await highlights(client, uri, PROGRAM, "dim D", 4)
    assert len(found) == 10
    assert found[0].kind == WRITE
    assert all(written(PROGRAM, h.range) == "D" for h in found)


@pytest.mark.asyncio
async def test_an_axis_is_lit_in_its_signature_pattern_and_over(client: LanguageClient):
    uri = await open_document(client, GPT, "gpt_highlights.ss")
    # In `attention`, the axis `m` of the einsum, not the model parameter `m`.
    found = await highlights(client, uri, GPT, "b H m Dh -> b H n m)", 4)
    texts = [written(GPT, h.range) for h in found]
    assert texts == ["m"] * 6
    lines = [GPT.split("\n")[h.range.start.line].strip() for h in found]
    assert any("masked_fill(!causal[n m]" in line for line in lines)
    assert any("softmax(over=m)" in line for line in lines)
    assert not any("m.w_qkv" in line for line in lines)
    # The model parameter `m` of `attention`: its declaration and its three field reads.
    found = await highlights(client, uri, GPT, "attention(m: Gpt", 10)
    assert [h.kind for h in found] == [WRITE, READ, READ]
    # Nothing is lit on a keyword.
    assert await highlights(client, uri, GPT, "return x + mlp") == []


@pytest.mark.asyncio
async def test_folding_ranges_of_blocks_comments_and_brackets(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "folding.ss")
    found = {(f.start_line, f.end_line): f.kind for f in await folds(client, uri)}
    lines = PROGRAM.split("\n")

    def line(needle: str) -> int:
        return next(number for number, text in enumerate(lines) if needle in text)

    last = len(lines) - 2
    assert found[(0, 1)] == types.FoldingRangeKind.Comment
    assert found[(4, 5)] == types.FoldingRangeKind.Comment
    assert (line("model Mlp"), line("param b")) in found
    assert (line("fn scale"), last) in found
    assert (line("for i"), line("y = y + m.b")) in found
    # The call's arguments fold, leaving the closing bracket in sight.
    assert (line("layer_norm("), line("over=D,")) in found


@pytest.mark.asyncio
async def test_folding_ranges_of_gpt(client: LanguageClient):
    uri = await open_document(client, GPT, "gpt_folding.ss")
    lines = GPT.split("\n")
    found = {(f.start_line, f.end_line) for f in await folds(client, uri)}
    starts = {start for start, _ in found}
    for number, text in enumerate(lines):
        if text.startswith(("fn ", "model ")):
            assert number in starts, text
    forward = next(n for n, text in enumerate(lines) if text.startswith("fn forward"))
    loop = next(n for n, text in enumerate(lines) if "for l in 0..L" in text)
    assert (forward, forward + 5) in found
    assert (loop, loop + 1) in found


@pytest.mark.asyncio
async def test_selection_grows_from_a_name_to_the_file(client: LanguageClient):
    uri = await open_document(client, PROGRAM, "selection.ss")
    at = position(PROGRAM, "m.b", 2)
    other = position(PROGRAM, "rearrange(b n", 11)
    chain, second = await selections(client, uri, [at, other])
    texts = [written(PROGRAM, span) for span in chain]
    assert texts[0] == "b"
    assert "m.b" in texts
    assert "y + m.b" in texts
    assert "y = y + m.b" in texts
    assert any(text.startswith("for i in 0..3:") for text in texts)
    assert any(text.startswith("fn scale") for text in texts)
    assert texts[-1] == PROGRAM
    assert all(holds(outer, inner) for inner, outer in itertools.pairwise(chain))
    assert all(outer != inner for inner, outer in itertools.pairwise(chain))
    second_texts = [written(PROGRAM, span) for span in second]
    assert second_texts[:3] == ["b", "b n D", "b n D -> b n D"]


@pytest.mark.asyncio
async def test_selection_in_gpt(client: LanguageClient):
    uri = await open_document(client, GPT, "gpt_selection.ss")
    (chain,) = await selections(client, uri, [position(GPT, "causal[n m]", 7)])
    texts = [written(GPT, span) for span in chain]
    assert texts[:3] == ["n", "n m", "causal[n m]"]
    assert "masked_fill(!causal[n m], -inf)" in texts
    assert any(text.startswith("att = einsum(") for text in texts)
    assert any(text.startswith("fn attention(") for text in texts)
    assert texts[-1] == GPT


CHAIN = "fn f(x: [n]) -> [n]:\n    return " + " + ".join(["x"] * 5000) + "\n"
NESTED = "fn g(x: [n]) -> [n]:\n    return " + "(" * 5000 + "x" + ")" * 5000 + "\n"


@pytest.mark.parametrize("text", [CHAIN, NESTED], ids=["chain", "nested"])
@pytest.mark.asyncio
async def test_hostile_depth_is_answered(vscode_client: LanguageClient, text: str):
    client = vscode_client
    uri = await open_document(client, text, "deep.ss")
    deep = position(text, "x", text.index("return") + len("return") + 2500 - text.index("x"))
    lit = await highlights(client, uri, text, "x", text.index("return") + 20 - text.index("x"))
    assert isinstance(lit, list)
    assert isinstance(await folds(client, uri), list)
    (chain,) = await selections(client, uri, [deep])
    assert 2 <= len(chain) <= 64
    assert written(text, chain[-1]) == text
    assert all(holds(outer, inner) for inner, outer in itertools.pairwise(chain))


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_big_file_is_answered(vscode_client: LanguageClient):
    client = vscode_client
    text = program_of_size(1.0, 7)
    # The requests wait for the analysis, which takes seconds here.
    uri = open_file(client, Path("/tmp/lsp-tests/big.ss"), text)
    dim = re.search(r"^dim (\w+)", text, re.MULTILINE)
    lit = await highlights(client, uri, text, dim.group(0), 4)
    assert lit and lit[0].kind == WRITE
    assert len(await folds(client, uri)) > 1000
    middle = position(text, "\n", len(text) // 2 - text.index("\n"))
    (chain,) = await selections(client, uri, [middle])
    assert written(text, chain[-1]) == text
