"""`python -m shapescript`: the command line, or a program run with the import hook.

`python -m shapescript check ...` (any command, or an option such as --help) is the
`shapescript` command; `python -m shapescript PROGRAM.py|FILE.ss|-m MODULE [args...]` runs
a program (see `shapescript.commands.runner`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from shapescript.commands.names import NAMES


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to the command line or to the program runner; return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and (args[0] == "-m" or (args[0] not in NAMES and not args[0].startswith("-"))):
        from shapescript.commands.runner import run_program

        return run_program(args)
    from shapescript.commands.entry import main as command_line

    return command_line(args)


def end(status: int) -> NoReturn:
    """End a `check` at once: output flushed, but without the interpreter's teardown,
    which would free every object of the analyses one by one. Where the flush fails, the
    ordinary exit reports it as it always does."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        raise SystemExit(status) from None
    os._exit(status)


if __name__ == "__main__":
    if sys.argv[1:2] == ["check"]:
        from shapescript.commands import check

        check.retained = []
        end(main())
    raise SystemExit(main())
