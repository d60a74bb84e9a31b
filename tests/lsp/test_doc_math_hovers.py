"""Math in the docs of models, fields, and another file's functions and models, rendered
as in a function's hover: images in VS Code, Unicode text in Neovim, never raw LaTeX."""

from __future__ import annotations

import base64

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, _initialize_params, accept_registrations
from tests.lsp.imports_workspace import at, open_file

LAYERS = """\
dim D = 4

## A layer scaled by $\\frac{1}{\\sqrt{D}}$.
model Mlp:
    ## Weights drawn with $\\sigma = 0.02$.
    param w: [D D] = normal(std=0.02)
    param bias: [D] = zeros

## Adds $\\epsilon$ to every value.
fn nudge(x: [b D], eps: float = 0.1) -> [b D] = x + eps
"""

MAIN = """\
import layers

fn run(m: layers.Mlp, x: [b layers.D]) -> [b layers.D]:
    y = layers.nudge(x @ m.w)
    return y
"""

#: Each formula as Neovim shows it, and the alternative text of VS Code's image.
FORMULAS = {"frac": "1/√D", "sigma": "σ = 0.02", "epsilon": "ε"}


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER),
    params=["visual-studio-code", "neovim@v0.7.0"],
)
async def workspace(request, lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    (root / "layers.ss").write_text(LAYERS)
    (root / "main.ss").write_text(MAIN)
    params = _initialize_params(request.param, tmp_path_factory.mktemp("lsp"))
    params.root_uri = None
    params.workspace_folders = [types.WorkspaceFolder(uri=root.as_uri(), name="ws")]
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(params)
    lsp_client.client_name = request.param
    lsp_client.root = root
    yield
    await lsp_client.shutdown_session()


async def _hover(client: LanguageClient, name: str, text: str, needle: str, shift: int) -> str:
    uri = await open_file(client, client.root, name)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=at(text, needle, shift)
        )
    )
    assert hover is not None
    return hover.contents.value


def _shows(client: LanguageClient, text: str, *formulas: str) -> None:
    assert "$" not in text and "\\frac" not in text and "\\sigma" not in text
    for key in formulas:
        shown = FORMULAS[key]
        if client.client_name.startswith("visual"):
            image = text.split('<img src="data:image/png;base64,')
            pngs = [
                part.split('"', 1)[0]
                for part in image[1:]
                if f'alt="{shown}">' in part.split(">")[0] + ">"
            ]
            assert len(pngs) == 1, f"no image of {shown}"
            assert base64.b64decode(pngs[0]).startswith(b"\x89PNG")
        else:
            assert shown in text and "data:image" not in text


async def test_a_models_hover_renders_its_docs_and_its_fields_docs(workspace: LanguageClient):
    text = await _hover(workspace, "layers.ss", LAYERS, "model Mlp", 7)
    assert "```shapescript\nmodel Mlp:" in text
    _shows(workspace, text, "frac", "sigma")


async def test_a_fields_hover_renders_its_doc(workspace: LanguageClient):
    text = await _hover(workspace, "main.ss", MAIN, "m.w)", 2)
    assert "param w: [" in text and "Param of `layers.Mlp`" in text
    _shows(workspace, text, "sigma")


async def test_another_files_function_and_model_render_their_docs(workspace: LanguageClient):
    function = await _hover(workspace, "main.ss", MAIN, "layers.nudge", 8)
    assert "fn layers.nudge(" in function and function.endswith("Declared in `layers.ss`")
    _shows(workspace, function, "epsilon")
    model = await _hover(workspace, "main.ss", MAIN, "layers.Mlp", 8)
    assert "model layers.Mlp:" in model
    _shows(workspace, model, "frac", "sigma")
