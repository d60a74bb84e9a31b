"""`shapescript check` imports only what a check needs: no numpy, torch or server code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

FORBIDDEN = ("numpy", "torch", "pygls", "lsprotocol", "shapescript_lsp", "cairosvg", "jedi")
#: The compiler's code generation and runtime, which only `build` and `run` need.
FORBIDDEN_PARTS = ("shapescript.codegen", "shapescript.rt", "shapescript.build", "einops")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "attention.ss"


def _modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running `code`."""
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    completed = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ.copy(),
    )
    return set(json.loads(completed.stdout.strip().splitlines()[-1]))


def _forbidden(modules: set[str]) -> list[str]:
    return sorted(
        name
        for name in modules
        if name.split(".")[0] in FORBIDDEN
        or any(name == part or name.startswith(part + ".") for part in FORBIDDEN_PARTS)
    )


def test_importing_the_cli_imports_no_heavy_package() -> None:
    assert _forbidden(_modules_after("import shapescript.cli")) == []


def test_a_whole_check_imports_no_heavy_package() -> None:
    code = (
        "import contextlib, io\n"
        "from shapescript import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    cli.main(['check', {str(EXAMPLE)!r}])"
    )
    assert _forbidden(_modules_after(code)) == []
