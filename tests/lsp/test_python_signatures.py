"""Signature help for calls of Python functions in .ss files: from the user's module read
with ast, or from the background listing's inspect signature, never waiting for it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from shapescript_lsp.features.python_members import Member
from shapescript_lsp.features.python_signatures import python_parameters
from tests.lsp.test_features import open_file, position


async def _signature(client: LanguageClient, uri: str, text: str, needle: str):
    return await client.text_document_signature_help_async(
        types.SignatureHelpParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, needle, len(needle)),
        )
    )


AUGMENT = '''\
from pathlib import Path

Path(__file__).with_name("imported.txt").write_text("imported")


def crop(image, size: int = 32, *, seed=None) -> int:
    """Crop the middle."""
    return image
'''


@pytest.mark.asyncio
async def test_a_users_function_has_its_ast_signature(
    vscode_client: LanguageClient, tmp_path: Path
):
    (tmp_path / "augment.py").write_text(AUGMENT)
    vscode_client.protocol.notify("shapescript/setPython", {"python": sys.executable})
    text = "import python augment\nfn f(x: [n]) = augment.crop(x, seed=\n"
    uri = open_file(vscode_client, tmp_path / "user.ss", text)
    first = await _signature(vscode_client, uri, text, "augment.crop(")
    assert first is not None
    (information,) = first.signatures
    assert information.label == "crop(image, size: int=32, *, seed=None) -> int"
    assert [p.label for p in information.parameters] == ["image", "size: int=32", "seed=None"]
    assert first.active_parameter == 0
    assert "Crop the middle." in information.documentation.value
    keyword = await _signature(vscode_client, uri, text, "seed=")
    assert keyword.active_parameter == 2
    second = await _signature(vscode_client, uri, text, "crop(x, ")
    assert second.active_parameter == 1
    await asyncio.sleep(0.5)
    assert not (tmp_path / "imported.txt").exists()


@pytest.mark.asyncio
async def test_a_listed_functions_signature_comes_once_listed(
    vscode_client: LanguageClient, tmp_path: Path
):
    vscode_client.protocol.notify("shapescript/setPython", {"python": sys.executable})
    text = "import python json\nfn f(x: [n]) = json.dumps(x, indent=\n"
    uri = open_file(vscode_client, tmp_path / "listed.ss", text)
    for _ in range(600):
        answer = await _signature(vscode_client, uri, text, "indent=")
        if answer is not None:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("json.dumps never had a signature")
    (information,) = answer.signatures
    assert information.label.startswith("dumps(obj, *, skipkeys=False")
    names = [p.label.split("=")[0] for p in information.parameters]
    assert names[0] == "obj" and answer.active_parameter == names.index("indent")
    assert "JSON" in information.documentation.value


@pytest.mark.asyncio
async def test_a_module_not_listed_yet_has_no_signature(
    vscode_client: LanguageClient, tmp_path: Path
):
    if sys.platform == "win32":
        pytest.skip("the silent interpreter is a shell script")
    silent = tmp_path / "silent-python"
    silent.write_text("#!/bin/sh\nexec cat >/dev/null\n")
    silent.chmod(0o755)
    vscode_client.protocol.notify("shapescript/setPython", {"python": str(silent)})
    text = "import python json\nfn f(x: [n]) = json.dumps(x\n"
    uri = open_file(vscode_client, tmp_path / "waiting.ss", text)
    # The interpreter never answers: the server says nothing rather than wait for it.
    assert await _signature(vscode_client, uri, text, "json.dumps(x") is None


def test_parameters_are_read_from_the_signature_text():
    clamp = Member("clamp", "function", "clamp(input, min=None, max=None, *, out=None) -> Tensor")
    assert python_parameters(clamp) == ["input", "min=None", "max=None", "out=None"]
    typed = Member("f", "function", "f(a: dict[str, int] = {}, /, *args, **kw)")
    assert python_parameters(typed) == ["a: dict[str, int] = {}", "*args", "**kw"]
    assert python_parameters(Member("g", "function", "g(...)")) is None
