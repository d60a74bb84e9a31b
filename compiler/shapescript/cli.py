"""The `shapescript` command: `check` files and folders, `explain` a diagnostic code."""

from __future__ import annotations

import argparse
import io
import itertools
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TextIO

import shapescript
from shapescript import analysis, build_cli, run_cli
from shapescript.check.declarations.module_paths import environment_search_path
from shapescript.diagnostics.codes import lookup
from shapescript.diagnostics.diagnostic import Diagnostic, Severity
from shapescript.diagnostics.render_text import render_diagnostic, render_summary
from shapescript.export import cli as export_cli
from shapescript.format import command as fmt_command
from shapescript.pymodules import command as pymodules_command
from shapescript.shown_paths import shown as shown_path
from shapescript.source_files import read_regular, walk_folder
from shapescript.syntax.encoding import decode
from shapescript.syntax.source import SourceFile

PROG = "shapescript"
EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
DEBUG_VARIABLE = "SHAPESCRIPT_DEBUG"
DEFAULT_MAX_DIAGNOSTICS = 100


class UsageError(Exception):
    """A problem with what the user asked for, reported in one line with exit status 2."""


def _debugging() -> bool:
    return os.environ.get(DEBUG_VARIABLE, "") not in ("", "0")


def _internal_error(what: str, exc: BaseException) -> None:
    """Report a crash of the compiler itself, with the traceback only when debugging."""
    print(f"{PROG}: {what}: {type(exc).__name__}: {exc}", file=sys.stderr)
    if _debugging():
        import traceback

        traceback.print_exception(exc, file=sys.stderr)


def _bug_hint() -> None:
    if not _debugging():
        print(
            f"{PROG}: this is a bug in ShapeScript; set {DEBUG_VARIABLE}=1 to see the traceback",
            file=sys.stderr,
        )


def wants_color(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set to something."""
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _unreadable_folder(exc: OSError) -> UsageError:
    return UsageError(f"can't read the folder `{exc.filename}`: {exc.strerror or exc}")


def _files_in_folder(folder: str) -> list[str]:
    """The `.ss` files under a folder (see `source_files.walk_folder`), after a note on
    stderr for each one skipped; a folder with none, or one that can't be listed, is a
    usage error, never silently passed over."""
    try:
        walked = walk_folder(folder)
    except OSError as exc:
        raise _unreadable_folder(exc) from exc
    for skipped in walked.skipped:
        note = f"skipped `{skipped.path}`: {skipped.reason}"
        print(f"{PROG}: note: {shown_path(note)}", file=sys.stderr)
    if not walked.files:
        raise UsageError(f"no .ss files found in `{folder}`")
    return walked.files


def collect_files(paths: Sequence[str]) -> list[str]:
    """Expand the command line's paths into `.ss` files, each once, as the user spelled them.

    A file named here is read as named, through a link if it is one; folders are walked
    without leaving them through links."""
    if not paths:
        raise UsageError("no paths given: pass the .ss files or folders to check")
    files: list[str] = []
    seen: set[str] = set()
    for raw in paths:
        if not raw or not os.path.exists(raw):
            raise UsageError(f"no such file or folder: `{raw}`")
        if os.path.isdir(raw):
            expanded = _files_in_folder(raw)
        elif os.path.isfile(raw) and raw.endswith(".ss"):
            expanded = [raw]
        else:
            raise UsageError(f"`{raw}` is neither a .ss file nor a folder")
        for path in expanded:
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                files.append(path)
    return files


def read_decoded(path: str) -> tuple[SourceFile, Diagnostic | None]:
    """Read a file, keeping its line endings; one that isn't UTF-8 comes with its E0107."""
    try:
        data = read_regular(path)
    except OSError as exc:
        raise UsageError(f"can't read `{path}`: {exc.strerror or exc}") from exc
    decoded = decode(data)
    return SourceFile.from_text(path, decoded.text), decoded.problem


def read_source(path: str) -> SourceFile:
    """Read a file as UTF-8, replacing bytes that aren't, and keeping its line endings."""
    return read_decoded(path)[0]


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


#: Set to a list by `python -m shapescript check`, which ends the process without
#: tearing the interpreter down (`shapescript.__main__`): each file's analysis is kept
#: there, since freeing the millions of objects of a big one costs a few percent of its
#: check, for nothing.
retained: list | None = None


def _run_check(args: argparse.Namespace) -> int:
    if args.max_diagnostics < 0:
        raise UsageError("--max-diagnostics takes a count of 0 or more (0 shows all)")
    sources = [read_decoded(path) for path in collect_files(args.paths)]
    search_path = environment_search_path()
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
                _internal_error(f"internal error while checking {shown_path(source.path)}", exc)
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
        _bug_hint()
        return EXIT_INTERNAL
    return EXIT_ERRORS if Severity.ERROR in severities else EXIT_OK


def _files(count: int) -> str:
    return "1 file" if count == 1 else f"{count} files"


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


def _run_explain(args: argparse.Namespace) -> int:
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Check ShapeScript programs and explain their diagnostics.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {shapescript.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    check = commands.add_parser(
        "check",
        help="check .ss files and folders and report their diagnostics",
        description="Check .ss files, and the .ss files in folders (recursively).",
    )
    check.add_argument("paths", nargs="*", metavar="PATH", help="a .ss file or a folder")
    check.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text for people (the default), json for tools",
    )
    check.add_argument(
        "--max-diagnostics",
        type=int,
        default=DEFAULT_MAX_DIAGNOSTICS,
        metavar="N",
        help=f"in text output, show at most N diagnostics per file and count the rest "
        f"(default {DEFAULT_MAX_DIAGNOSTICS}; 0 shows all; json output always has all)",
    )
    check.set_defaults(run=_run_check)

    explain = commands.add_parser(
        "explain",
        help="explain a diagnostic code, such as E0401",
        description="Print the page that explains a diagnostic code.",
    )
    explain.add_argument("code", metavar="CODE", help="a diagnostic code, such as E0401")
    explain.set_defaults(run=_run_explain)

    build_cli.add_parser(commands)
    run_cli.add_parser(commands)
    export_cli.add_parser(commands)
    fmt_command.add_parser(commands)
    pymodules_command.add_parser(commands)
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
        _internal_error("internal error", exc)
        _bug_hint()
        return EXIT_INTERNAL
