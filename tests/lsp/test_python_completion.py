"""Completing Python modules' names never waits for Python: a module the interpreter must
import is listed in the background (incomplete first, complete later), and the user's own
modules are read with ast, never imported."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from shapescript_lsp.features import python_members
from shapescript_lsp.features.python_members import Lister, read_module, user_module
from tests.lsp.test_features import open_file, position


async def _complete(client: LanguageClient, uri: str, text: str, needle: str):
    return await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position(text, needle, len(needle)),
        )
    )


async def _until_complete(client: LanguageClient, uri: str, text: str, needle: str):
    for _ in range(600):
        result = await _complete(client, uri, text, needle)
        if not result.is_incomplete:
            return result
        await asyncio.sleep(0.1)
    raise AssertionError(f"the list after {needle!r} stayed incomplete")


@pytest.mark.asyncio
async def test_torch_members_come_later_and_the_typed_letters_filter_them_all(
    vscode_client: LanguageClient, tmp_path: Path
):
    pytest.importorskip("torch")
    # Without the first request's wait, the first answer comes before torch is listed.
    settings = {"python": sys.executable, "firstListWait": 0}
    vscode_client.protocol.notify("shapescript/setPython", settings)
    text = "import python torch.nn.functional\nfn f() = torch.lo\nfn g() = torch.nn.functional.\n"
    uri = open_file(vscode_client, tmp_path / "cold.ss", text)
    first = await _complete(vscode_client, uri, text, "torch.lo")
    # Importing torch takes far longer than a completion: the first answer can't wait.
    assert first.is_incomplete
    later = await _until_complete(vscode_client, uri, text, "torch.lo")
    labels = {item.label for item in later.items}
    assert {"load", "log", "logsumexp"} <= labels
    load = next(item for item in later.items if item.label == "load")
    assert load.kind == types.CompletionItemKind.Function and load.detail.startswith("load(")
    resolved = await vscode_client.completion_item_resolve_async(load)
    assert "load" in resolved.documentation.value
    functional = await _until_complete(vscode_client, uri, text, "functional.")
    assert {"gelu", "softmax", "scaled_dot_product_attention"} <= {
        item.label for item in functional.items
    }


USER_MODULE = '''\
"""Augmentations."""
from pathlib import Path

Path(__file__).with_name("imported.txt").write_text("imported")

SIZE: int = 4


def random_crop(x, size: int = 2) -> int:
    """Crop at random."""
    return x


class Crop:
    def apply(self, x):
        return x
'''


@pytest.mark.asyncio
async def test_a_users_module_is_read_never_imported(vscode_client: LanguageClient, tmp_path: Path):
    (tmp_path / "augment.py").write_text(USER_MODULE)
    vscode_client.protocol.notify("shapescript/setPython", {"python": sys.executable})
    text = "import python augment\nfn f() = augment.\nfn g() = augment.Crop.\nimport python aug"
    uri = open_file(vscode_client, tmp_path / "user.ss", text)
    result = await _complete(vscode_client, uri, text, "augment.")
    assert not result.is_incomplete
    items = {item.label: item for item in result.items}
    assert {"random_crop", "Crop", "SIZE", "Path"} <= set(items)
    assert items["random_crop"].detail == "random_crop(x, size: int=2) -> int"
    resolved = await vscode_client.completion_item_resolve_async(items["random_crop"])
    assert "Crop at random." in resolved.documentation.value
    methods = await _complete(vscode_client, uri, text, "augment.Crop.")
    assert [item.label for item in methods.items] == ["apply"]
    modules = await _until_complete(vscode_client, uri, text, "import python aug")
    assert "augment" in {item.label for item in modules.items}
    await asyncio.sleep(0.5)
    assert not (tmp_path / "imported.txt").exists()


@pytest.mark.asyncio
async def test_import_python_lists_the_path_and_a_packages_submodules(
    vscode_client: LanguageClient, tmp_path: Path
):
    vscode_client.protocol.notify("shapescript/setPython", {"python": sys.executable})
    text = "import python js\nimport python json.\n"
    uri = open_file(vscode_client, tmp_path / "modules.ss", text)
    top = await _until_complete(vscode_client, uri, text, "import python js")
    assert "json" in {item.label for item in top.items}
    assert all("js" in item.label or "j" in item.label for item in top.items)
    submodules = await _until_complete(vscode_client, uri, text, "import python json.")
    assert {"decoder", "encoder", "scanner"} <= {item.label for item in submodules.items}


def test_a_package_of_the_users_lists_its_submodules(tmp_path: Path):
    package = tmp_path / "shapes_aug"
    package.mkdir()
    (package / "__init__.py").write_text("from .flips import flip\n_hidden = 1\n")
    (package / "flips.py").write_text("def flip(x): return x\n")
    found = user_module(["shapes_aug"], [str(tmp_path)])
    assert found == package / "__init__.py"
    names = {member.name: member.kind for member in read_module(found)}
    assert names == {"flip": "variable", "flips": "module"}
    assert user_module(["shapes_aug", "flips"], [str(tmp_path)]) == package / "flips.py"
    assert user_module(["json"], [str(tmp_path)]) is None


HANGING_MODULE = '''\
"""Never finishes importing."""
import time


def stalled(x, times: int = 2) -> int:
    """Known from the source only."""
    return x


while True:
    time.sleep(1)
'''


def _interpreter_with(tmp_path: Path, folder: Path) -> str:
    """An interpreter (a wrapper of this one) whose path holds the folder, which isn't
    one of the user's folders, so its modules are imported to be listed."""
    if sys.platform == "win32":
        pytest.skip("the wrapper interpreter is a shell script")
    wrapper = tmp_path / "python-with-lib"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{folder}" exec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


def _hanging_library(tmp_path: Path) -> Path:
    library = tmp_path / "lib"
    library.mkdir()
    (library / "hang.py").write_text(HANGING_MODULE)
    (library / "quick.py").write_text("def ready(a, b=1):\n    return a\n")
    return library


@pytest.mark.asyncio
async def test_a_module_whose_import_hangs_is_given_up_and_the_next_still_listed(
    vscode_client: LanguageClient, tmp_path: Path
):
    python = _interpreter_with(tmp_path, _hanging_library(tmp_path))
    vscode_client.protocol.notify("shapescript/setPython", {"python": python, "listTimeout": 1})
    project = tmp_path / "project"
    project.mkdir()
    text = "import python hang\nimport python quick\nfn f() = hang.\nfn g() = quick.\n"
    uri = open_file(vscode_client, project / "hangs.ss", text)
    # `quick` is asked for after `hang`, whose import never ends: the worker is replaced.
    quick = await _until_complete(vscode_client, uri, text, "quick.")
    assert "ready" in {item.label for item in quick.items}
    hang = await _until_complete(vscode_client, uri, text, "hang.")
    stalled = next(item for item in hang.items if item.label == "stalled")
    assert stalled.detail == "stalled(x, times: int=2) -> int"


def _until_listed(lister: Lister, module: str, seconds: float) -> python_members.Listing:
    """The module's complete listing, once the lister has it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        listing = lister.listing(module)
        if listing is not None and listing.complete:
            return listing
        time.sleep(0.1)
    raise AssertionError(f"{module} wasn't listed within {seconds} s")


def test_the_lister_logs_the_module_it_gave_up_on_and_restarts_its_worker(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    python = _interpreter_with(tmp_path, _hanging_library(tmp_path))
    lister = Lister(python, timeout=1)
    lister.ask("hang", [])
    lister.ask("quick", [])
    quick = _until_listed(lister, "quick", seconds=60)
    assert [m.name for m in quick.members] == ["ready"]
    hang = lister.listing("hang")
    assert hang is not None and hang.complete
    assert [m.name for m in hang.members] == ["time", "stalled"]
    assert lister.failed == {"hang"}
    gave_up = [r for r in caplog.records if "gave up" in r.getMessage()]
    assert len(gave_up) == 1 and "hang" in gave_up[0].getMessage()


def test_a_worker_slow_to_start_is_not_charged_to_the_module_asked_for(tmp_path: Path):
    if sys.platform == "win32":
        pytest.skip("the wrapper interpreter is a shell script")
    library = _hanging_library(tmp_path)
    wrapper = tmp_path / "slow-python"
    wrapper.write_text(f'#!/bin/sh\nsleep 2\nPYTHONPATH="{library}" exec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    lister = Lister(str(wrapper), timeout=1)
    lister.ask("quick", [])
    quick = _until_listed(lister, "quick", seconds=60)
    assert [m.name for m in quick.members] == ["ready"]
    assert lister.failed == set()


def test_a_worker_that_never_starts_is_given_up_and_nothing_waits_on_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    if sys.platform == "win32":
        pytest.skip("the wrapper interpreter is a shell script")
    monkeypatch.setattr(python_members, "START_TIMEOUT", 1.0)
    wrapper = tmp_path / "stuck-python"
    wrapper.write_text("#!/bin/sh\nexec sleep 600\n")
    wrapper.chmod(0o755)
    lister = Lister(str(wrapper), timeout=1)
    lister.ask("quick", [])
    quick = _until_listed(lister, "quick", seconds=10)
    assert quick.members == ()
    lister.ask("other", [])
    assert lister.listing("other") == python_members.Listing((), True)


SLOW_MODULE = """\
import time

time.sleep(1.0)


def load(path):
    return path


def lower(x):
    return x
"""


@pytest.mark.asyncio
async def test_the_first_completion_waits_for_the_listing(client: LanguageClient, tmp_path: Path):
    """Neovim 0.7 never asks again for a list marked incomplete: the first request for a
    module's names waits for its listing (up to `firstListWait`, 1.5 s unless set; set
    longer here so that a slow machine can't make the test fail)."""
    library = tmp_path / "lib"
    library.mkdir()
    (library / "slowish.py").write_text(SLOW_MODULE)
    python = _interpreter_with(tmp_path, library)
    client.protocol.notify("shapescript/setPython", {"python": python, "firstListWait": 60})
    project = tmp_path / "project"
    project.mkdir()
    text = "import python slowish\nfn f() = slowish.lo\n"
    uri = open_file(client, project / "first.ss", text)
    first = await _complete(client, uri, text, "slowish.lo")
    assert not first.is_incomplete
    assert {"load", "lower"} <= {item.label for item in first.items}
