"""`shapescript verify FILE --fn F`: run a function exactly and compiled in float dtypes,
and report how far each float result is from the exact one."""

from __future__ import annotations

import argparse

from shapescript.commands.support import EXIT_ERRORS, EXIT_OK, UsageError

NAME = "verify"
HELP = "run a function in high precision and report the float dtypes' errors against it"
DESCRIPTION = (
    "Run fn F of FILE on small dims and seeded inputs twice: exactly (mpmath, --digits "
    "decimal digits) and compiled in each float dtype; report per output the largest "
    "relative and absolute error and where, and the operation that adds the most error in "
    "f32. With --tolerance, exit 1 when a relative error exceeds it."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a .ss file")
    parser.add_argument("--fn", required=True, metavar="F", help="the function to verify")
    parser.add_argument("--dims", metavar="D=8,H=2", help="dim values to use instead of small ones")
    parser.add_argument("--digits", type=int, default=50, help="decimal digits (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the inputs and model")
    parser.add_argument(
        "--dtypes", default="f32,bf16,f16", help="float dtypes to compare (default f32,bf16,f16)"
    )
    parser.add_argument(
        "--inputs",
        default="typical,large,offset",
        help="input sets: typical (as drawn), large (x100), offset (+1000)",
    )
    parser.add_argument(
        "--tolerance", type=float, metavar="REL", help="exit 1 if a relative error exceeds REL"
    )


def _dims(text: str | None) -> dict[str, int]:
    dims: dict[str, int] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        name, _, value = part.partition("=")
        if not value.strip().isdigit() or not name.strip():
            raise UsageError(f"--dims takes NAME=SIZE pairs, like D=8,H=2: not `{part}`")
        dims[name.strip()] = int(value)
    return dims


def run(args: argparse.Namespace) -> int:
    from shapescript.verify import VerifyError, verify

    if args.digits < 10:
        raise UsageError("--digits takes 10 or more: fewer can't judge float32")
    try:
        report = verify(
            args.file,
            args.fn,
            dims=_dims(args.dims),
            digits=args.digits,
            seed=args.seed,
            dtypes=tuple(part.strip() for part in args.dtypes.split(",") if part.strip()),
            inputs=tuple(part.strip() for part in args.inputs.split(",") if part.strip()),
            tolerance=args.tolerance,
        )
    except (VerifyError, OSError) as exc:
        raise UsageError(str(exc)) from exc
    print(report.markdown())
    return EXIT_OK if report.passed else EXIT_ERRORS
