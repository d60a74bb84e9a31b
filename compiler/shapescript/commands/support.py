"""What the commands share: usage errors and exit statuses, reading the files a command
names, printing diagnostics and reports of crashes, writing the file a user named."""

from __future__ import annotations

import os
import sys
from argparse import ArgumentParser, Namespace
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.shown_paths import shown as shown_path
from shapescript.source_files import read_regular, walk_folder
from shapescript.syntax.encoding import decode
from shapescript.syntax.source import SourceFile

if TYPE_CHECKING:
    from shapescript.check.declarations.module_paths import SearchPath

PROG = "shapescript"
EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
DEBUG_VARIABLE = "SHAPESCRIPT_DEBUG"
PYTHON_VARIABLE = "SHAPESCRIPT_PYTHON"


class UsageError(Exception):
    """A problem with what the user asked for, reported in one line with exit status 2."""


def debugging() -> bool:
    return os.environ.get(DEBUG_VARIABLE, "") not in ("", "0")


def internal_error(what: str, exc: BaseException) -> None:
    """Report a crash of the compiler itself, with the traceback only when debugging."""
    print(f"{PROG}: {what}: {type(exc).__name__}: {exc}", file=sys.stderr)
    if debugging():
        import traceback

        traceback.print_exception(exc, file=sys.stderr)


def bug_hint() -> None:
    if not debugging():
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


def print_diagnostics(diagnostics, source) -> None:
    """Diagnostics on stderr, as `shapescript check` prints them, summary line included."""
    from shapescript.diagnostics.render_text import render_diagnostic, render_summary

    color = wants_color(sys.stderr)
    ordered = sorted(diagnostics, key=lambda diag: (diag.primary.span.start, diag.code))
    for diag in ordered:
        diag.path = diag.path or source.path
        print(render_diagnostic(diag, source, color=color), file=sys.stderr)
        print(file=sys.stderr)
    counts = [sum(diag.severity.value == kind for diag in ordered) for kind in ("error", "warning")]
    hints = len(ordered) - sum(counts)
    print(render_summary(counts[0], counts[1], hints, 1), file=sys.stderr)


def refuse_own_input(output: str | None, source_path: str, option: str = "-o") -> None:
    """A usage error when `output` names the input file itself (through links too)."""
    if output is None:
        return
    try:
        same = os.path.samefile(output, source_path)
    except OSError:
        return
    if same:
        raise UsageError(
            f"{option} `{output}` is the input `{source_path}`; writing it would replace "
            f"the program: name another file"
        )


def write_output(output: str, text: str) -> None:
    """Write a file the user named with -o: atomically, and through a link it names (the
    user named the link, so the file the link points to is the one replaced)."""
    from shapescript import atomic_write

    try:
        atomic_write.write_text(output, text, through_link=True)
    except OSError as exc:
        raise UsageError(f"can't write `{output}`: {exc.strerror or exc}") from exc


def python_for(option: str | None) -> str:
    """The Python that runs a program: the option, else $SHAPESCRIPT_PYTHON, else this one."""
    return option or os.environ.get(PYTHON_VARIABLE) or sys.executable


def add_python_argument(parser: ArgumentParser) -> None:
    """`--python PY`: the interpreter whose installed packages imports find."""
    parser.add_argument(
        "--python",
        metavar="PY",
        help="find installed packages in this Python's sys.path (default: $VIRTUAL_ENV's "
        f"Python, else ${PYTHON_VARIABLE}, else the Python shapescript runs on)",
    )


def search_path_for(args: Namespace) -> SearchPath:
    """$PYTHONPATH, then the installed packages of `--python` (or the default interpreter)."""
    from shapescript.installed_packages import command_line_search_path

    return command_line_search_path(getattr(args, "python", None))
