"""`shapescript build`: a `.ss` file's readable Python, for review or to run without ShapeScript."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from shapescript.check_modes import ALIASES, DEFAULT_CHECKS, DEFAULT_VALUE_CHECKS, MODES, normalize

EXIT_OK = 0
EXIT_ERRORS = 1


def _print_diagnostics(diagnostics, source) -> None:
    """Diagnostics on stderr, as `shapescript check` prints them, summary line included."""
    from shapescript.cli import wants_color
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


def _print_unsupported(generated, source) -> None:
    """Name what this compiler can't compile yet: the build has it raise when it's used."""
    from shapescript.shown_paths import shown

    for message, span in getattr(generated, "unsupported", ()):
        where = shown(source.path)
        if span is not None:
            position = source.position(span.start)
            where = f"{where}:{position.line}:{position.column}"
        print(
            f"shapescript: note: {where}: {message} (it raises NotImplementedError when used)",
            file=sys.stderr,
        )


def refuse_own_input(output: str | None, source_path: str, option: str = "-o") -> None:
    """A usage error when `output` names the input file itself (through links too)."""
    from shapescript.cli import UsageError

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
    from shapescript.cli import UsageError

    try:
        atomic_write.write_text(output, text, through_link=True)
    except OSError as exc:
        raise UsageError(f"can't write `{output}`: {exc.strerror or exc}") from exc


def _run_build(args: argparse.Namespace) -> int:
    from shapescript import analysis
    from shapescript.check.declarations.module_paths import environment_search_path
    from shapescript.cli import UsageError, read_source
    from shapescript.codegen import BuildOptions, generate
    from shapescript.rt.devices import parse_devices
    from shapescript.rt.errors import DeviceError

    if args.devices is not None:
        try:
            parse_devices(args.devices)
        except DeviceError as exc:
            raise UsageError(f"--devices: {exc}") from exc
    if not args.file.endswith(".ss") or not Path(args.file).is_file():
        raise UsageError(f"`{args.file}` isn't a .ss file")
    refuse_own_input(args.output, args.file)
    source = read_source(args.file)
    checked = analysis.check(source, search_path=environment_search_path(), devices=args.devices)
    if checked.errors:
        _print_diagnostics(checked.diagnostics, source)
        return EXIT_ERRORS
    options = BuildOptions(
        devices=args.devices,
        checks=normalize(args.checks, "--checks"),
        value_checks=normalize(args.value_checks, "--value-checks"),
        standalone=args.standalone,
    )
    generated = generate(checked, options)
    found = checked.diagnostics + generated.diagnostics
    if generated.tree is None or any(diag.is_error for diag in found):
        _print_diagnostics(found, source)
        return EXIT_ERRORS
    if found:
        _print_diagnostics(found, source)
    _print_unsupported(generated, source)
    if args.output is None:
        sys.stdout.write(generated.source)
        return EXIT_OK
    write_output(args.output, generated.source)
    return EXIT_OK


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register `shapescript build`."""
    modes = [*MODES, *ALIASES]
    build = commands.add_parser(
        "build",
        help="compile a .ss file to readable Python",
        description="Compile a .ss file to a Python module that calls PyTorch.",
    )
    build.add_argument("file", metavar="FILE", help="the .ss file")
    build.add_argument("-o", "--output", metavar="OUT", help="write here (default: stdout)")
    build.add_argument(
        "--standalone",
        action="store_true",
        help="import only torch (and einops), not shapescript; needs devices",
    )
    build.add_argument(
        "--devices", metavar="D", help='the devices, as a devices line says them: "cuda[0]"'
    )
    build.add_argument(
        "--checks",
        choices=modes,
        default=DEFAULT_CHECKS,
        help=f"argument and shape checks (default: {DEFAULT_CHECKS})",
    )
    build.add_argument(
        "--value-checks",
        choices=modes,
        default=DEFAULT_VALUE_CHECKS,
        help=f"domain value checks (default: {DEFAULT_VALUE_CHECKS})",
    )
    build.set_defaults(run=_run_build)
