"""pytest-lsp fixtures: the real server over stdio, as VS Code and Neovim 0.7 start it."""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

HERE = Path(__file__).resolve().parent


def _start_zygote() -> str:
    """The socket of this test process's server zygote (server_zygote.py), started now."""
    folder = Path(tempfile.mkdtemp(prefix="ss-lsp-zygote-"))
    path = str(folder / "socket")
    zygote = subprocess.Popen(
        [sys.executable, str(HERE / "server_zygote.py"), path],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    atexit.register(zygote.kill)
    return path


#: What the tests start as the server: a process forked from one that has imported it,
#: which behaves as `python -m shapescript_lsp` (tests/lsp/raw_client.py starts that);
#: SS_LSP_TESTS_PROCESS=1 starts that command for every test instead.
SERVER = (
    [sys.executable, "-m", "shapescript_lsp"]
    if os.environ.get("SS_LSP_TESTS_PROCESS") == "1"
    else [sys.executable, "-S", str(HERE / "launch.py"), _start_zygote()]
)


def _options(client_name: str, tmp_path) -> dict[str, object]:
    """The initialization options; VS Code's extension always sends `pythonModules`
    (on in a trusted workspace with the setting's default), other clients don't."""
    options: dict[str, object] = {"libraryDir": str(tmp_path / "library"), "debounceMs": 0}
    if client_name.startswith("visual"):
        options["pythonModules"] = True
    return options


def _initialize_params(client_name: str, tmp_path) -> types.InitializeParams:
    capabilities = pytest_lsp.client_capabilities(client_name)
    return types.InitializeParams(
        capabilities=capabilities,
        client_info=types.ClientInfo(
            name="Visual Studio Code" if client_name.startswith("visual") else "Neovim"
        ),
        initialization_options=_options(client_name, tmp_path),
        root_uri=Path("/tmp/lsp-tests").as_uri(),
    )


def accept_registrations(lsp_client: LanguageClient) -> None:
    """Accept the server's `client/registerCapability` (the file watcher), as editors do,
    keeping the registrations in `lsp_client.registrations`."""
    lsp_client.registrations = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        lsp_client.registrations.extend(params.registrations)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER),
    params=["visual-studio-code", "neovim@v0.7.0"],
)
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("lsp")
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(_initialize_params(request.param, tmp_path))
    lsp_client.client_name = request.param
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def vscode_client(lsp_client: LanguageClient, tmp_path_factory):
    """One client, with VS Code's capabilities, for tests that needn't run per editor."""
    tmp_path = tmp_path_factory.mktemp("lsp")
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(_initialize_params("visual-studio-code", tmp_path))
    lsp_client.client_name = "visual-studio-code"
    yield
    await lsp_client.shutdown_session()
