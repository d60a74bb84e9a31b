"""A model's architecture over the protocol: the hover (VS Code's and Neovim 0.7's
presets, and the options that change it), `shapescript/architecture` and
`shapescript/setArchitectureDetail`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, _initialize_params, accept_registrations
from tests.lsp.test_features import markdown, open_document, position

ROOT = Path(__file__).resolve().parents[2]
GPT = (ROOT / "examples/gpt.ss").read_text(encoding="utf-8") + (
    "\nfn make(seed: int) -> Gpt = Gpt.init(seed=seed)\n"
)


async def hover_text(client: LanguageClient, uri: str, needle: str, offset: int = 0) -> str:
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(GPT, needle, offset),
        )
    )
    assert hover is not None
    return markdown(hover)


async def request(client: LanguageClient, uri: str, needle: str, offset: int = 0, **extra):
    where = position(GPT, needle, offset)
    return await client.protocol.send_request_async(
        "shapescript/architecture",
        {
            "textDocument": {"uri": uri},
            "position": {"line": where.line, "character": where.character},
            **extra,
        },
    )


@pytest.mark.asyncio
async def test_hover_on_a_model_name_draws_its_architecture(client: LanguageClient):
    uri = await open_document(client, GPT, "gpt.ss")
    assert list(client.diagnostics[uri]) == []
    places = [("model Gpt", 6), ("m: Gpt, ids", 3), ("Gpt.init", 0), ("fn block", 3)]
    for needle, offset in places:
        text = await hover_text(client, uri, needle, offset)
        assert text.startswith("**Architecture of Gpt**, from [forward]("), needle
        assert "(gpt.ss:57) and [loss](" in text
        if client.client_name.startswith("visual"):
            assert re.search(
                r"!\[architecture of Gpt\]\(data:image/png;base64,[^)|]+\|width=", text
            )
        else:
            assert "┌ Transformer block (block) × L = 6" in text
            assert "↓ Linear D → V · tied to wte" in text
            assert "data:image" not in text
    model_docs = await hover_text(client, uri, "model Gpt", 6)
    assert "model Gpt:" in model_docs  # the model's own hover still follows


@pytest.mark.asyncio
async def test_no_architecture_where_no_model_is_named(client: LanguageClient):
    uri = await open_document(client, GPT, "gpt_none.ss")
    assert await request(client, uri, "dim V", 4) is None
    assert await request(client, uri, "\n\n## Vocabulary", 1) is None
    text = await hover_text(client, uri, "dim V", 4)
    assert "Architecture of" not in text


@pytest.mark.asyncio
async def test_probe_names_the_model_only(client: LanguageClient):
    uri = await open_document(client, GPT, "gpt_probe.ss")
    answer = await request(client, uri, "fn loss", 3, probe=True)
    assert answer.model == "Gpt"
    assert not hasattr(answer, "svg")


@pytest.mark.asyncio
async def test_the_request_answers_both_levels(client: LanguageClient):
    uri = await open_document(client, GPT, "gpt_levels.ss")
    layers = await request(client, uri, "model Gpt", 6)
    assert layers.model == "Gpt" and layers.title == "Architecture: Gpt"
    assert layers.detail == "layers"
    assert layers.summary == (
        "Architecture of Gpt: Embedding → Transformer block × 6 → LayerNorm → Linear · tied"
    )
    assert "Transformer block × L = 6" in layers.svg and 'data-node="forward.1"' in layers.svg
    assert layers.width > 0 and layers.height > 0
    assert "┌ Transformer block (block) × L = 6" in layers.text
    assert layers.declaration.range.start.line == position(GPT, "model Gpt", 6).line
    kinds = [(link.label, link.kind) for link in layers.links]
    assert kinds[:3] == [("forward", "source"), ("loss", "source"), ("block", "followed")]
    ids = re.findall(r'data-node="([^"]+)"', layers.svg)
    assert sorted(ids) == sorted(node.id for node in layers.nodes)
    attention = next(node for node in layers.nodes if node.id == "forward.6")
    assert GPT.splitlines()[attention.range.start.line].lstrip().startswith("q, k, v =")
    operations = await request(client, uri, "model Gpt", 6, detail="operations")
    assert operations.detail == "operations"
    assert "↓ layer_norm over D" in operations.text
    assert "← m.w_qkv [D 3*D]" in operations.text
    assert operations.summary == layers.summary


@pytest.mark.asyncio
async def test_set_architecture_detail_changes_the_hover(client: LanguageClient):
    uri = await open_document(client, GPT, "gpt_detail.ss")
    client.protocol.notify("shapescript/setArchitectureDetail", {"detail": "operations"})
    answer = await request(client, uri, "model Gpt", 6)
    assert answer.detail == "operations"
    if not client.client_name.startswith("visual"):
        text = await hover_text(client, uri, "model Gpt", 6)
        assert "layer_norm over D" in text


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER),
    params=[
        {"architecturePanel": True, "architectureToggle": True},
        {"architectureToggle": True},
        {"architectureDetail": "operations", "architectureToggle": True},
    ],
)
async def architecture_client(request, lsp_client: LanguageClient, tmp_path_factory):
    """Neovim 0.7's capabilities, with the architecture's initialization options."""
    params = _initialize_params("neovim@v0.7.0", tmp_path_factory.mktemp("lsp"))
    params.initialization_options.update(request.param)
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(params)
    lsp_client.options = request.param
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_initialization_options(architecture_client: LanguageClient):
    client = architecture_client
    uri = await open_document(client, GPT, "gpt_options.ss")
    text = await hover_text(client, uri, "model Gpt", 6)
    options = client.options
    if options.get("architecturePanel"):
        first = text.split("\n\n")[0]
        assert first.startswith("Architecture of Gpt: Embedding → Transformer block × 6")
        assert "[Open architecture](command:shapescript.architecture.show?" in first
        assert " · [Show every operation](command:shapescript.architecture.toggleDetail?" in first
        assert "┌" not in text
    elif options.get("architectureDetail") == "operations":
        assert "layer_norm over D" in text
        assert "[Show layers](command:shapescript.architecture.toggleDetail?" in text
    else:
        assert "MLP D → Dff → D · GELU" in text
        assert "[Show every operation](command:shapescript.architecture.toggleDetail?" in text
