"""`shapescript run [--python PY] PROGRAM [args...]`: run `PY -m shapescript PROGRAM args...`,
which runs the program with the import hook installed (see `commands.runner`).

`--torch-compile` sets SHAPESCRIPT_TORCH_COMPILE=1 for it, which turns the torch.compile
switch on in that process (`shapescript.torch_compile`); `--nnodes`/`--node-rank` run it
as one of several hosts (commands/run_hosts.py)."""

from __future__ import annotations

import argparse
import os

from shapescript.commands import run_hosts
from shapescript.commands.names import NAMES
from shapescript.commands.support import PYTHON_VARIABLE, UsageError, python_for
from shapescript.modal_run.options import add_modal_arguments, run_modal_from_args, uses_modal

#: The variable `rt.torch_compile` reads at start (a command doesn't import the runtime).
TORCH_COMPILE_VARIABLE = "SHAPESCRIPT_TORCH_COMPILE"

NAME = "run"
HELP = "run a Python program or a .ss file's fn main() with .ss imports working"
DESCRIPTION = (
    "Run PROGRAM with `PY -m shapescript PROGRAM ARGS...`: a .py file with the import "
    "hook installed, or a .ss file's fn main(). ShapeScript's errors are shown as "
    "diagnostics (SHAPESCRIPT_TRACEBACK=1 shows the traceback too)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--python",
        metavar="PY",
        help=f"the Python to run it with (default: ${PYTHON_VARIABLE}, else this Python)",
    )
    parser.add_argument(
        "--torch-compile",
        action="store_true",
        help="run the bodies of the program's .ss functions through torch.compile (inductor)",
    )
    run_hosts.add_arguments(parser)
    parser.add_argument("-m", dest="module", metavar="MODULE", help="run a module, as python -m")
    add_modal_arguments(parser)
    parser.add_argument("program", nargs="?", metavar="PROGRAM", help="a .py or .ss file")
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="the program's")


def run(args: argparse.Namespace) -> int:
    import subprocess

    rest = [args.program, *args.args] if args.program is not None else list(args.args)
    if rest[:1] == ["--"]:
        rest = rest[1:]
    if args.module is not None:
        rest = ["-m", args.module, *rest]
    if not rest:
        raise UsageError("no program given: pass a .py or .ss file, or -m MODULE")
    program = rest[0]
    if program.startswith("-") and program != "-m":
        raise UsageError(f"`{program}` isn't a program: give a .py or .ss file, or -m MODULE")
    if program in NAMES and os.path.exists(program):
        rest[0] = os.path.join(os.curdir, program)
    if uses_modal(args):
        return run_modal_from_args(args, rest)
    command = [python_for(args.python), "-m", "shapescript", *rest]
    variables = run_hosts.environment(args)
    if args.torch_compile:
        variables[TORCH_COMPILE_VARIABLE] = "1"
    try:
        if variables:
            child = subprocess.Popen(command, env={**os.environ, **variables})
        else:
            child = subprocess.Popen(command)
    except OSError as exc:
        raise UsageError(f"can't run `{command[0]}`: {exc.strerror or exc}") from exc
    while True:
        try:
            status = child.wait()
            break
        except KeyboardInterrupt:
            continue
    return 128 - status if status < 0 else status
