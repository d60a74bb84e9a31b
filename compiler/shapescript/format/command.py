"""`shapescript fmt [--check] PATH...`: lay out .ss files in the canonical layout."""

from __future__ import annotations

import argparse
import sys

BOM = "\ufeff"


def add_parser(commands) -> None:
    fmt = commands.add_parser(
        "fmt",
        help="lay out .ss files in the canonical layout",
        description="Rewrite .ss files, and the .ss files in folders (recursively), in the "
        "canonical layout. A file with syntax errors is left as it is, with a message.",
    )
    fmt.add_argument("paths", nargs="*", metavar="PATH", help="a .ss file or a folder")
    fmt.add_argument(
        "--check",
        action="store_true",
        help="change nothing; list the files that would change, and exit 1 if any would",
    )
    fmt.set_defaults(run=run)


def format_file(path: str, check: bool) -> str:
    """What happened to one file: `same`, `changed`, or an error message."""
    from shapescript.format import FormatError, format_text

    try:
        with open(path, "rb") as handle:
            data = handle.read()
        text = data.decode("utf-8")
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
            with open(path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(bom + formatted)
        except OSError as error:
            return f"{path}: can't be written: {error.strerror}"
    return "changed"


def run(args: argparse.Namespace) -> int:
    from shapescript.cli import EXIT_ERRORS, EXIT_OK, collect_files

    changed = failed = 0
    for path in collect_files(args.paths):
        outcome = format_file(path, args.check)
        if outcome == "changed":
            changed += 1
            print(f"{'would reformat' if args.check else 'reformatted'} {path}")
        elif outcome != "same":
            failed += 1
            print(f"error: {outcome}", file=sys.stderr)
    if failed or (args.check and changed):
        return EXIT_ERRORS
    return EXIT_OK
