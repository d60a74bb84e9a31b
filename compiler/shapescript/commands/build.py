"""`shapescript build FILE`: a `.ss` file's readable Python, for review or to run without
ShapeScript."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from shapescript.check_modes import ALIASES, DEFAULT_CHECKS, DEFAULT_VALUE_CHECKS, MODES, normalize
from shapescript.commands.support import (
    EXIT_ERRORS,
    EXIT_OK,
    UsageError,
    add_python_argument,
    print_diagnostics,
    read_source,
    refuse_own_input,
    search_path_for,
    write_output,
)

NAME = "build"
HELP = "compile a .ss file to readable Python"
DESCRIPTION = "Compile a .ss file to a Python module that calls PyTorch."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_python_argument(parser)
    modes = [*MODES, *ALIASES]
    parser.add_argument("file", metavar="FILE", help="the .ss file")
    parser.add_argument("-o", "--output", metavar="OUT", help="write here (default: stdout)")
    parser.add_argument(
        "--standalone",
        action="store_true",
        help="import only torch (and einops), not shapescript; needs devices",
    )
    parser.add_argument(
        "--devices", metavar="D", help='the devices, as a devices line says them: "cuda[0]"'
    )
    parser.add_argument(
        "--checks",
        choices=modes,
        default=DEFAULT_CHECKS,
        help=f"argument and shape checks (default: {DEFAULT_CHECKS})",
    )
    parser.add_argument(
        "--value-checks",
        choices=modes,
        default=DEFAULT_VALUE_CHECKS,
        help=f"domain value checks (default: {DEFAULT_VALUE_CHECKS})",
    )
    parser.add_argument(
        "--no-lowering",
        dest="lower",
        action="store_false",
        help="compile every operation as written, not as the faster torch code proved equal",
    )


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


def run(args: argparse.Namespace) -> int:
    from shapescript import analysis
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
    checked = analysis.check(source, search_path=search_path_for(args), devices=args.devices)
    if checked.errors:
        print_diagnostics(checked.diagnostics, source)
        return EXIT_ERRORS
    options = BuildOptions(
        devices=args.devices,
        checks=normalize(args.checks, "--checks"),
        value_checks=normalize(args.value_checks, "--value-checks"),
        standalone=args.standalone,
        lower=args.lower,
    )
    generated = generate(checked, options)
    found = checked.diagnostics + generated.diagnostics
    if generated.built is None or any(diag.is_error for diag in found):
        print_diagnostics(found, source)
        return EXIT_ERRORS
    if found:
        print_diagnostics(found, source)
    _print_unsupported(generated, source)
    if args.output is None:
        sys.stdout.write(generated.source)
        return EXIT_OK
    write_output(args.output, generated.source)
    return EXIT_OK
