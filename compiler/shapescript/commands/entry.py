"""The `shapescript` command line: the parser built from the commands' registry, and the
run of the command asked for, with usage errors and crashes turned into exit statuses."""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence

import shapescript
from shapescript.commands import build, check, explain, export, fmt, new, pymodules, run, verify
from shapescript.commands.support import (
    EXIT_ERRORS,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    PROG,
    UsageError,
    bug_hint,
    internal_error,
)
from shapescript.shown_paths import shown as shown_path

#: The commands, in the order `--help` lists them (`commands.names.NAMES`).
COMMANDS = (check, explain, build, run, export, fmt, pymodules, verify, new)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Check ShapeScript programs and explain their diagnostics.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {shapescript.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        subparser = subparsers.add_parser(
            command.NAME, help=command.HELP, description=command.DESCRIPTION
        )
        command.add_arguments(subparser)
        subparser.set_defaults(run=command.run)
    return parser


def _exit_status(exc: SystemExit) -> int:
    if exc.code is None:
        return EXIT_OK
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return EXIT_USAGE


def _silence_stdout() -> None:
    """After the reader of a pipe has gone, point stdout at devnull so the final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return _exit_status(exc)
    try:
        return args.run(args)
    except UsageError as exc:
        print(f"{PROG}: error: {shown_path(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_ERRORS
    except Exception as exc:
        internal_error("internal error", exc)
        bug_hint()
        return EXIT_INTERNAL
