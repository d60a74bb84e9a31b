"""Running import-linter's contracts from a test, in a process of its own.

`importlinter.cli.lint_imports` configures logging with `dictConfig`, which disables
every logger that exists by then; in the test process that silenced the server's
loggers for every later test that reads their records (caplog)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"

_RUN = (
    "import sys\n"
    "from importlinter.cli import lint_imports\n"
    "contracts = tuple(sys.argv[2:])\n"
    "sys.exit(lint_imports(config_filename=sys.argv[1], limit_to_contracts=contracts,"
    " no_cache=True))\n"
)


def lint(contracts: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    """Run the contracts of pyproject.toml (all, or those named) and return the run."""
    return subprocess.run(
        [sys.executable, "-c", _RUN, str(PYPROJECT), *contracts],
        capture_output=True,
        text=True,
        timeout=300,
    )
