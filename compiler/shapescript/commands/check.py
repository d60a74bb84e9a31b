"""`shapescript check PATH...`: check `.ss` files and folders and report their diagnostics."""

from __future__ import annotations

import argparse
import itertools
import sys

from shapescript import analysis
from shapescript.commands.support import (
    EXIT_ERRORS,
    EXIT_INTERNAL,
    EXIT_OK,
    UsageError,
    add_python_argument,
    bug_hint,
    collect_files,
    internal_error,
    read_decoded,
    search_path_for,
    wants_color,
)
from shapescript.diagnostics.diagnostic import Diagnostic, Severity
from shapescript.diagnostics.render_text import render_diagnostic, render_summary
from shapescript.shown_paths import shown as shown_path
from shapescript.syntax.source import SourceFile

NAME = "check"
HELP = "check .ss files and folders and report their diagnostics"
DESCRIPTION = "Check .ss files, and the .ss files in folders (recursively)."
DEFAULT_MAX_DIAGNOSTICS = 100

#: Set to a list by `python -m shapescript check`, which ends the process without
#: tearing the interpreter down (`shapescript.__main__`): each file's analysis is kept
#: there, since freeing the millions of objects of a big one costs a few percent of its
#: check, for nothing.
retained: list | None = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_python_argument(parser)
    parser.add_argument("paths", nargs="*", metavar="PATH", help="a .ss file or a folder")
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text for people (the default), json for tools",
    )
    parser.add_argument(
        "--max-diagnostics",
        type=int,
        default=DEFAULT_MAX_DIAGNOSTICS,
        metavar="N",
        help=f"in text output, show at most N diagnostics per file and count the rest "
        f"(default {DEFAULT_MAX_DIAGNOSTICS}; 0 shows all; json output always has all)",
    )


def _print_text(checked: list[tuple[Diagnostic, SourceFile]], limit: int, color: bool) -> None:
    """Each file's diagnostics, at most `limit` of them (0: all), then a count of the rest."""
    for path, group in itertools.groupby(checked, key=lambda item: item[0].path):
        found = list(group)
        shown = found[:limit] if limit else found
        for diag, source in shown:
            print(render_diagnostic(diag, source, color=color))
            print()
        hidden = len(found) - len(shown)
        if hidden:
            more = "diagnostic" if hidden == 1 else "diagnostics"
            rest = f"{hidden} more {more} not shown (--max-diagnostics 0 shows all)"
            print(f"{shown_path(path)}: {rest}")
            print()


def _files(count: int) -> str:
    return "1 file" if count == 1 else f"{count} files"


def run(args: argparse.Namespace) -> int:
    if args.max_diagnostics < 0:
        raise UsageError("--max-diagnostics takes a count of 0 or more (0 shows all)")
    sources = [read_decoded(path) for path in collect_files(args.paths)]
    search_path = search_path_for(args)
    checked: list[tuple[Diagnostic, SourceFile]] = []
    crashed = 0
    files_checked = 0
    for source, problem in sources:
        if problem is not None:
            found = [problem]
        else:
            try:
                found = analysis.analyze(source, search_path=search_path, retain=retained)
            except Exception as exc:
                internal_error(f"internal error while checking {shown_path(source.path)}", exc)
                crashed += 1
                continue
        files_checked += 1
        for diag in found:
            diag.path = source.path
            checked.append((diag, source))
    checked.sort(key=lambda item: (item[0].path, item[0].primary.span.start, item[0].code))

    severities = [diag.severity for diag, _ in checked]
    if args.format == "json":
        from shapescript.diagnostics.render_json import render_json

        print(render_json(checked, files_checked))
    else:
        _print_text(checked, args.max_diagnostics, wants_color(sys.stdout))
        if crashed and not checked:
            print(f"{_files(crashed)} could not be checked, because of an internal error")
        else:
            print(
                render_summary(
                    severities.count(Severity.ERROR),
                    severities.count(Severity.WARNING),
                    severities.count(Severity.HINT),
                    files_checked,
                )
            )
    if crashed:
        bug_hint()
        return EXIT_INTERNAL
    return EXIT_ERRORS if Severity.ERROR in severities else EXIT_OK
