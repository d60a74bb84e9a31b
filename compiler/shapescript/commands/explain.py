"""`shapescript explain CODE`: print the page that explains a diagnostic code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

import shapescript
from shapescript.commands.support import EXIT_OK, UsageError
from shapescript.diagnostics.codes import lookup

NAME = "explain"
HELP = "explain a diagnostic code, such as E0401"
DESCRIPTION = "Print the page that explains a diagnostic code."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", metavar="CODE", help="a diagnostic code, such as E0401")


def explanation_dirs() -> Iterator[Path]:
    """Folders that may hold `<CODE>.md` pages: `docs/diagnostics` above the package, then in it."""
    package = Path(shapescript.__file__).resolve().parent
    for folder in package.parents:
        yield folder / "docs" / "diagnostics"
    yield package / "docs" / "diagnostics"


def find_explanation(code: str) -> Path | None:
    """The page that explains a code, or None when none has been written."""
    wanted = f"{code}.md".upper()
    for folder in explanation_dirs():
        if not folder.is_dir():
            continue
        exact = folder / f"{code}.md"
        if exact.is_file():
            return exact
        for page in sorted(folder.iterdir()):
            if page.name.upper() == wanted and page.is_file():
                return page
    return None


def run(args: argparse.Namespace) -> int:
    asked = args.code.strip()
    info = lookup(asked)
    if info is None:
        raise UsageError(f"unknown diagnostic code `{asked}`")
    page = find_explanation(info.code)
    if page is None:
        print(f"{info.code}: {info.title}")
        raise UsageError(f"no page explaining {info.code} has been written yet")
    text = page.read_text(encoding="utf-8", errors="replace")
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return EXIT_OK
