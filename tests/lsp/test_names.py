"""Outline, workspace symbols, rename and semantic tokens over stdio, with VS Code's and
Neovim 0.7's capabilities."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, _initialize_params, accept_registrations
from tests.lsp.test_features import open_document, position, wait_for_diagnostics

PROGRAM = """\
## Features.
dim D = 8
dim H = 2
dim Dh = D / H
dim Img = [b 3 D]
domain Temp = [0.05, 10]

## Weights.
model Mlp:
    param w: [D D] = zeros
    buffer mean: [D] = zeros

data Pair:
    x: [D]
    label: [] Index[D]

logs Step:
    loss: [] mean

extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"

fn heads(x: [b n D] f32) -> [b n D]:
    z = x |> rearrange(b n (H Dh) -> b H n Dh)
    w = z |> softmax(over=n)
    return w |> rearrange(b H n Dh -> b n (H Dh))

fn apply(m: Mlp, x: [b D], t: [] Temp) -> [b D] = x @ m.w * t

fn other(y: [n D]) -> [n D]:
    k = y * 2.0
    return k
"""


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER),
    params=["visual-studio-code", "neovim@v0.7.0"],
)
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    """The server as each editor starts it, with what the server said it can do."""
    accept_registrations(lsp_client)
    params = _initialize_params(request.param, tmp_path_factory.mktemp("lsp"))
    result = await lsp_client.initialize_session(params)
    lsp_client.client_name = request.param
    lsp_client.server_capabilities = result.capabilities
    yield
    await lsp_client.shutdown_session()


def _tree(symbols) -> list:
    return [
        (symbol.name, symbol.kind, symbol.detail, _tree(symbol.children or []))
        for symbol in symbols
    ]


async def _open(client: LanguageClient, text: str = PROGRAM, name: str = "names.ss") -> str:
    uri = await open_document(client, text, name)
    assert list(client.diagnostics[uri]) == []
    return uri


# ---------------------------------------------------------------------- outline


@pytest.mark.asyncio
async def test_outline_nests_declarations_with_values_and_signatures(client: LanguageClient):
    uri = await _open(client)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    Kind = types.SymbolKind
    assert _tree(symbols) == [
        ("D", Kind.Constant, "8", []),
        ("H", Kind.Constant, "2", []),
        ("Dh", Kind.Constant, "D / H = 4", []),
        ("Img", Kind.TypeParameter, "[b 3 D]", []),
        ("Temp", Kind.Enum, "[0.05, 10]", []),
        (
            "Mlp",
            Kind.Class,
            "model",
            [("w", Kind.Field, "param [D D]", []), ("mean", Kind.Property, "buffer [D]", [])],
        ),
        (
            "Pair",
            Kind.Struct,
            "data",
            [("x", Kind.Field, "[D]", []), ("label", Kind.Field, "[] Index[D]", [])],
        ),
        ("Step", Kind.Struct, "logs", [("loss", Kind.Field, "[] mean", [])]),
        ("erfc", Kind.Function, "extern (x: Real) -> NonNeg", []),
        ("heads", Kind.Function, "(x: [b n D] f32) -> [b n D]", []),
        ("apply", Kind.Function, "(m: Mlp, x: [b D], t: [] Temp) -> [b D]", []),
        ("other", Kind.Function, "(y: [n D]) -> [n D]", []),
    ]
    heads = symbols[9]
    assert heads.selection_range.start == position(PROGRAM, "heads(")
    assert heads.range.start.line == heads.selection_range.start.line
    assert heads.range.end.line == heads.range.start.line + 3


@pytest.mark.asyncio
async def test_workspace_symbols_match_fuzzily_across_files(client: LanguageClient):
    await _open(client)
    other = await _open(client, "dim Depth = 3\nfn deep(x: [Depth]) -> [Depth] = x\n", "more.ss")
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="dp"))
    names = [(symbol.name, symbol.location.uri) for symbol in found]
    assert ("Depth", other) in names
    assert ("deep", other) in names
    assert all("d" in name.lower() and "p" in name.lower() for name, _ in names)
    fields = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="label"))
    (label,) = fields
    assert label.container_name == "Pair"


# ---------------------------------------------------------------------- rename


async def _rename(client: LanguageClient, uri: str, text: str, needle: str, new: str, at=0):
    return await client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, needle, at),
            new_name=new,
        )
    )


def _applied(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(where: types.Position) -> int:
        return starts[where.line] + where.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


@pytest.mark.asyncio
async def test_prepare_rename_gives_the_name_and_its_range(client: LanguageClient):
    uri = await _open(client)
    answer = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "b H n Dh)\n    w", 4),
        )
    )
    assert answer.placeholder == "n"
    assert answer.range.start == position(PROGRAM, "b H n Dh)\n    w", 4)


@pytest.mark.asyncio
async def test_renaming_an_axis_from_a_pattern_renames_it_in_the_function_only(
    client: LanguageClient,
):
    uri = await _open(client)
    edit = await _rename(client, uri, PROGRAM, "b H n Dh)\n    w", "seq", 4)
    renamed = _applied(PROGRAM, edit.changes[uri])
    assert "fn heads(x: [b seq D] f32) -> [b seq D]:" in renamed
    assert "rearrange(b seq (H Dh) -> b H seq Dh)" in renamed
    assert "softmax(over=seq)" in renamed
    assert "rearrange(b H seq Dh -> b seq (H Dh))" in renamed
    assert "fn other(y: [n D]) -> [n D]:" in renamed
    assert renamed.count("seq") == 7


@pytest.mark.asyncio
async def test_renaming_an_axis_from_over_or_the_signature_gives_the_same_edits(
    client: LanguageClient,
):
    uri = await _open(client)
    from_over = await _rename(client, uri, PROGRAM, "over=n", "seq", 5)
    from_signature = await _rename(client, uri, PROGRAM, "[b n D] f32", "seq", 3)

    def ranges(edit):
        return sorted((e.range.start.line, e.range.start.character) for e in edit.changes[uri])

    assert ranges(from_over) == ranges(from_signature)
    assert len(ranges(from_over)) == 7


@pytest.mark.asyncio
async def test_renaming_a_dim_renames_dim_values_types_and_patterns(client: LanguageClient):
    uri = await _open(client)
    edit = await _rename(client, uri, PROGRAM, "dim H", "Heads", 4)
    renamed = _applied(PROGRAM, edit.changes[uri])
    assert "dim Heads = 2\ndim Dh = D / Heads\n" in renamed
    assert "rearrange(b n (Heads Dh) -> b Heads n Dh)" in renamed
    assert " H " not in renamed and "(H " not in renamed


@pytest.mark.asyncio
async def test_renaming_a_value_a_parameter_and_a_field(client: LanguageClient):
    uri = await _open(client)
    value = _applied(PROGRAM, (await _rename(client, uri, PROGRAM, "k = y", "twice")).changes[uri])
    assert "    twice = y * 2.0\n    return twice\n" in value
    param = _applied(PROGRAM, (await _rename(client, uri, PROGRAM, "t: []", "temp")).changes[uri])
    assert "temp: [] Temp) -> [b D] = x @ m.w * temp" in param
    edit = await _rename(client, uri, PROGRAM, "m.w", "weight", 2)
    field = _applied(PROGRAM, edit.changes[uri])
    assert "    param weight: [D D] = zeros" in field
    assert "x @ m.weight * t" in field


async def _refusal(client: LanguageClient, uri: str, text: str, needle: str, new: str, at=0):
    with pytest.raises(JsonRpcException) as raised:
        await _rename(client, uri, text, needle, new, at)
    return str(raised.value)


@pytest.mark.asyncio
async def test_rename_refuses_a_clash_a_keyword_and_a_built_in(client: LanguageClient):
    uri = await _open(client)
    message = await _refusal(client, uri, PROGRAM, "dim Dh", "D", 4)
    assert "E0302" in message and "`D`" in message
    message = await _refusal(client, uri, PROGRAM, "z = x", "D")
    assert "E0303" in message
    message = await _refusal(client, uri, PROGRAM, "over=n", "b", 5)
    assert "E0303" in message and "axis" in message
    message = await _refusal(client, uri, PROGRAM, "mean: [D]", "w")
    assert "E0302" in message
    message = await _refusal(client, uri, PROGRAM, "k = y", "for")
    assert "keyword" in message
    message = await _refusal(client, uri, PROGRAM, "softmax", "soft")
    assert "built in" in message


@pytest.mark.asyncio
async def test_prepare_rename_refuses_built_ins_and_blank_places(client: LanguageClient):
    uri = await _open(client)
    for needle in ("softmax", "## Weights"):
        with pytest.raises(JsonRpcException):
            await client.text_document_prepare_rename_async(
                types.PrepareRenameParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=position(PROGRAM, needle, 1),
                )
            )


@pytest.mark.asyncio
async def test_rename_refuses_names_in_a_library_file(client: LanguageClient, tmp_path):
    uri = await _open(client)
    found = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(PROGRAM, "softmax", 1),
        )
    )
    location = found[0] if isinstance(found, list) else found
    library = Path(location.uri.removeprefix("file://")).read_text()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=location.uri, language_id="shapescript", version=1, text=library
            )
        )
    )
    with pytest.raises(JsonRpcException) as raised:
        await client.text_document_prepare_rename_async(
            types.PrepareRenameParams(
                text_document=types.TextDocumentIdentifier(uri=location.uri),
                position=location.range.start,
            )
        )
    assert "library" in str(raised.value)


# ---------------------------------------------------------------------- semantic tokens


def _decoded(text: str, data: list[int], legend: types.SemanticTokensLegend) -> list:
    lines = text.split("\n")
    found = []
    line = column = 0
    for index in range(0, len(data), 5):
        delta_line, delta_column, length, kind, modifiers = data[index : index + 5]
        line += delta_line
        column = column + delta_column if delta_line == 0 else delta_column
        names = [name for bit, name in enumerate(legend.token_modifiers) if modifiers & (1 << bit)]
        found.append(
            (lines[line][column : column + length], legend.token_types[kind], tuple(names))
        )
    return found


async def _legend(client: LanguageClient) -> types.SemanticTokensLegend:
    return client.server_capabilities.semantic_tokens_provider.legend


@pytest.mark.asyncio
async def test_semantic_tokens_tell_axes_dims_and_values_apart(client: LanguageClient):
    uri = await _open(client)
    answer = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    tokens = _decoded(PROGRAM, answer.data, await _legend(client))
    start = tokens.index(("heads", "function", ("declaration",)))
    assert tokens[start : start + 10] == [
        ("heads", "function", ("declaration",)),
        ("x", "parameter", ("declaration",)),
        ("b", "axis", ("declaration", "generic")),
        ("n", "axis", ("declaration", "generic")),
        ("D", "dim", ()),
        ("f32", "dtype", ("defaultLibrary",)),
        ("b", "axis", ("generic",)),
        ("n", "axis", ("generic",)),
        ("D", "dim", ()),
        ("z", "variable", ("declaration",)),
    ]
    alias = tokens.index(("Img", "type", ("declaration",)))
    assert tokens[alias : alias + 4] == [
        ("Img", "type", ("declaration",)),
        ("b", "axis", ("generic",)),
        ("3", "size", ()),
        ("D", "dim", ()),
    ]
    assert ("softmax", "function", ("defaultLibrary",)) in tokens
    assert ("Mlp", "class", ("declaration",)) in tokens
    assert ("w", "property", ("declaration",)) in tokens
    assert ("Temp", "domain", ()) in tokens
    assert ("Index", "domain", ("defaultLibrary",)) in tokens
    assert ("3", "size", ()) in tokens
    assert ("Pair", "struct", ("declaration",)) in tokens


@pytest.mark.asyncio
async def test_semantic_tokens_of_a_range_and_mut(client: LanguageClient):
    text = PROGRAM + "\nfn change(mut m: Mlp) -> int = 0\n"
    uri = await _open(client, text, "ranged.ss")
    start = position(text, "fn change")
    answer = await client.text_document_semantic_tokens_range_async(
        types.SemanticTokensRangeParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=start, end=types.Position(line=start.line + 1, character=0)),
        )
    )
    legend = await _legend(client)
    tokens = _decoded(text, answer.data, legend)
    assert tokens == [
        ("change", "function", ("declaration",)),
        ("mut", "keyword", ()),
        ("m", "parameter", ("declaration",)),
        ("Mlp", "class", ()),
    ]


@pytest.mark.asyncio
async def test_semantic_tokens_delta_edits_the_last_answer_into_the_new_one(
    client: LanguageClient,
):
    uri = await _open(client, PROGRAM, "delta.ss")
    document = types.TextDocumentIdentifier(uri=uri)
    first = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=document)
    )
    assert first.result_id
    at = position(PROGRAM, "    k = y")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=at, end=at), text="    j = y + 1.0\n"
                )
            ],
        )
    )
    await wait_for_diagnostics(client, uri, 2)
    delta = await client.text_document_semantic_tokens_full_delta_async(
        types.SemanticTokensDeltaParams(text_document=document, previous_result_id=first.result_id)
    )
    assert isinstance(delta, types.SemanticTokensDelta) and delta.edits
    data = list(first.data)
    for edit in sorted(delta.edits, key=lambda e: e.start, reverse=True):
        data[edit.start : edit.start + edit.delete_count] = edit.data or []
    fresh = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=document)
    )
    assert data == list(fresh.data)
    assert len(delta.edits[0].data) < len(fresh.data) // 2
    stale = await client.text_document_semantic_tokens_full_delta_async(
        types.SemanticTokensDeltaParams(text_document=document, previous_result_id="old")
    )
    assert isinstance(stale, types.SemanticTokens) and list(stale.data) == list(fresh.data)


@pytest.mark.asyncio
async def test_answers_after_edits_equal_those_of_a_fresh_document(client: LanguageClient):
    """The outline and tokens the server works out from what it kept equal the answers for
    the same text opened afresh (nothing kept to reuse)."""
    text = PROGRAM.replace("    k = y * 2.0", "    k = y * 2.0\n    k𐐀 = k * 2.0\n    q = k𐐀 + k")
    uri = await _open(client, text, "edited.ss")
    document = types.TextDocumentIdentifier(uri=uri)

    async def answers(document: types.TextDocumentIdentifier) -> tuple:
        symbols = await client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=document)
        )
        tokens = await client.text_document_semantic_tokens_full_async(
            types.SemanticTokensParams(text_document=document)
        )
        return [(s.name, s.kind, s.range, s.selection_range) for s in symbols], tokens.data

    await answers(document)
    edits = [("y * 2.0", " "), ("## Weights.", "\n"), ("fn other", "fn more() -> int = 1\n")]
    for version, (before, inserted) in enumerate(edits, start=2):
        at = position(text, before)
        text = text.replace(before, inserted + before, 1)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=at, end=at), text=inserted
                    )
                ],
            )
        )
        await wait_for_diagnostics(client, uri, version)
        edited = await answers(document)
        fresh_uri = await _open(client, text, f"fresh{version}.ss")
        assert edited == await answers(types.TextDocumentIdentifier(uri=fresh_uri))
