"""The VS Code extension opens the `.ss` files of installed packages read-only."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

PACKAGE_JSON = Path(__file__).resolve().parents[2] / "vscode-extension" / "package.json"


def test_site_packages_files_are_read_only() -> None:
    defaults = json.loads(PACKAGE_JSON.read_text())["contributes"]["configurationDefaults"]
    patterns = [glob for glob, on in defaults["files.readonlyInclude"].items() if on]
    for path in (
        "/home/me/.venv/lib/python3.12/site-packages/shapes_extra/layers.ss",
        "/usr/lib/python3/dist-packages/shapes_extra/layers.ss",
    ):
        assert any(fnmatch.fnmatch(path, "*" + glob.lstrip("*")) for glob in patterns), path
    own = "/home/me/project/layers.ss"
    assert not any(fnmatch.fnmatch(own, "*" + glob.lstrip("*")) for glob in patterns)
