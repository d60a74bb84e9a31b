"""`shapescript explain CODE`: print the page that explains a diagnostic code."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from shapescript.commands.support import EXIT_OK, UsageError, wants_color
from shapescript.diagnostics import pages
from shapescript.diagnostics.codes import lookup
from shapescript.shown_paths import shown

NAME = "explain"
HELP = "explain a diagnostic code, such as E0401"
DESCRIPTION = (
    "Print the page that explains a diagnostic code, then where the page is: in the built "
    "docs site (site/diagnostics/CODE.html) when it has been built, else its Markdown "
    "source (docs/diagnostics/CODE.md)."
)

_SHAPESCRIPT_BLOCK = re.compile(r"(^```shapescript\n)(.*?)(^```)", re.MULTILINE | re.DOTALL)
#: A line that marks the next example for the docs' tests (docs/contributing-docs.md).
_TEST_MARK = re.compile(r"^<!--\s*shapescript:[^\n]*-->\n", re.MULTILINE)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", metavar="CODE", help="a diagnostic code, such as E0401")


def run(args: argparse.Namespace) -> int:
    asked = args.code.strip()
    info = lookup(asked)
    if info is None:
        raise UsageError(f"unknown diagnostic code `{asked}`")
    page = pages.find_explanation(info.code)
    if page is None:
        print(f"{info.code}: {info.title}")
        raise UsageError(f"no page explaining {info.code} has been written yet")
    text = _TEST_MARK.sub("", page.read_text(encoding="utf-8", errors="replace"))
    if not text.endswith("\n"):
        text += "\n"
    if wants_color(sys.stdout):
        text = highlighted(text)
    location = pages.built_page(page) or page
    sys.stdout.write(f"{text}\nPage: {shown(_from_here(location))}\n")
    return EXIT_OK


def highlighted(markdown: str) -> str:
    """The page with its ```shapescript blocks coloured for a terminal."""
    from pygments import highlight
    from pygments.formatters import TerminalFormatter

    from shapescript.pygments_lexer import ShapeScriptLexer

    def colour(match: re.Match[str]) -> str:
        code = highlight(match.group(2), ShapeScriptLexer(), TerminalFormatter())
        return match.group(1) + code + match.group(3)

    return _SHAPESCRIPT_BLOCK.sub(colour, markdown)


def _from_here(path: Path) -> str:
    """`path` relative to the working folder when it is inside it, else as it is."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except (OSError, ValueError):
        return str(path)
