"""Where the shared editor harnesses are: `$SHAPESCRIPT_CLIENTS`, or a `shared/clients`
folder beside the repository or one of the folders above it."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WELL_KNOWN = [Path("/work/shared/clients")]


def clients_dir() -> Path:
    configured = os.environ.get("SHAPESCRIPT_CLIENTS")
    if configured:
        return Path(configured)
    for folder in [REPO, *REPO.parents]:
        candidate = folder / "shared" / "clients"
        if (candidate / "nvim_lsp_probe.py").is_file():
            return candidate
    for candidate in WELL_KNOWN:
        if (candidate / "nvim_lsp_probe.py").is_file():
            return candidate
    return REPO.parent / "shared" / "clients"
