"""`shapescript fmt [--check] PATH...`: lay out .ss files in the canonical layout."""

from __future__ import annotations

import argparse
import sys

from shapescript.commands.support import EXIT_ERRORS, EXIT_OK, collect_files

NAME = "fmt"
HELP = "lay out .ss files in the canonical layout"
DESCRIPTION = (
    "Rewrite .ss files, and the .ss files in folders (recursively), in the "
    "canonical layout. A file with syntax errors is left as it is, with a message."
)
BOM = "\ufeff"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="a .ss file or a folder")
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; list the files that would change, and exit 1 if any would",
    )


def format_file(path: str, check: bool) -> str:
    """What happened to one file: `same`, `changed`, or an error message.

    The new text replaces the file in one rename (`shapescript.atomic_write`), so a write
    that fails leaves it whole; a link is written through to the file it names, which
    `collect_files` only gives for a link named on the command line or one that stays in
    the folder walked."""
    from shapescript import atomic_write
    from shapescript.format import FormatError, format_text
    from shapescript.source_files import read_regular

    try:
        text = read_regular(path).decode("utf-8")
    except UnicodeDecodeError:
        return f"{path}: not UTF-8; left as it is"
    except OSError as error:
        return f"{path}: can't be read: {error.strerror}"
    bom = BOM if text.startswith(BOM) else ""
    body = text[len(bom) :]
    try:
        formatted = format_text(body, path)
    except FormatError as error:
        return str(error)
    if formatted == body:
        return "same"
    if not check:
        try:
            atomic_write.write_text(path, bom + formatted, newline="\n", through_link=True)
        except OSError as error:
            return f"{path}: can't be written: {error.strerror}; it is left as it was"
    return "changed"


def run(args: argparse.Namespace) -> int:
    from shapescript.shown_paths import shown

    changed = failed = 0
    for path in collect_files(args.paths):
        outcome = format_file(path, args.check)
        if outcome == "changed":
            changed += 1
            print(f"{'would reformat' if args.check else 'reformatted'} {shown(path)}")
        elif outcome != "same":
            failed += 1
            print(f"error: {shown(outcome)}", file=sys.stderr)
    if failed or (args.check and changed):
        return EXIT_ERRORS
    return EXIT_OK
