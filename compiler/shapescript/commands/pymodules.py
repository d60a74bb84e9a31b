"""`shapescript pymodules FILE... [--check]`: write the generated modules, or check them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from shapescript.commands.support import (
    EXIT_ERRORS,
    EXIT_OK,
    add_python_argument,
    collect_files,
    read_source,
    search_path_for,
    wants_color,
)
from shapescript.diagnostics.diagnostic import Diagnostic

NAME = "pymodules"
HELP = "write the Python module beside each .ss file, for editors and type checkers"
DESCRIPTION = (
    "Write model.py beside model.ss: typed declarations for Pylance, pyright "
    "and mypy, whose last line loads the compiled file. A .py file that doesn't start "
    "with the generated line is never replaced (W2501)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_python_argument(parser)
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a .ss file or a folder")
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; fail if a module is missing or out of date",
    )


def diagnostics_for(ss_path: str, outcome=None) -> list[Diagnostic]:
    """What writing the file's module reports: W2501 when a hand-written `.py` is there."""
    from shapescript.pymodules.files import write_module
    from shapescript.pymodules.hand_written import hand_written

    outcome = outcome or write_module(ss_path)
    if outcome.state != "hand_written":
        return []
    return [hand_written(read_source(ss_path), Path(outcome.module_path))]


def run(args: argparse.Namespace) -> int:
    from shapescript.diagnostics.render_text import render_diagnostic
    from shapescript.pymodules.files import write_module
    from shapescript.shown_paths import shown

    status = EXIT_OK
    color = wants_color(sys.stderr)
    for path in collect_files(args.paths):
        outcome = write_module(path, check_only=args.check, search_path=search_path_for(args))
        module_name = shown(Path(outcome.module_path).name)
        for diagnostic in diagnostics_for(path, outcome):
            print(render_diagnostic(diagnostic, read_source(path), color=color), file=sys.stderr)
        if outcome.state == "errors":
            print(
                f"{shown(path)}: has errors (see `shapescript check`); {module_name} not written",
                file=sys.stderr,
            )
            status = EXIT_ERRORS
        elif outcome.state in ("missing", "stale"):
            what = "is missing" if outcome.state == "missing" else "is out of date"
            print(
                f"{shown(outcome.module_path)} {what}: run `shapescript pymodules {shown(path)}`",
                file=sys.stderr,
            )
            status = EXIT_ERRORS
        elif outcome.state == "written":
            print(f"wrote {shown(outcome.module_path)}")
    return status
