"""The `--modal` flags of `shapescript run`, and the run they ask for."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from shapescript.modal_run.upload import DEFAULT_MAX_UPLOAD_MB


def add_modal_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("running on Modal (docs/modal.md)")
    group.add_argument(
        "--modal",
        metavar="GPU[:N]",
        help="run in a container on Modal with N GPUs of this type (T4, A100, H100:2, ...)",
    )
    group.add_argument(
        "--pip",
        metavar="REQ",
        action="append",
        default=[],
        help="with --modal: also install this pip requirement in the container (repeatable)",
    )
    group.add_argument(
        "--shapescript",
        metavar="WHAT",
        help="with --modal: the container's ShapeScript: a wheel, a source checkout or a "
        "pip requirement (default: this one)",
    )
    group.add_argument(
        "--project",
        metavar="DIR",
        help="with --modal: the folder to upload (default: the program's folder)",
    )
    group.add_argument(
        "--exclude",
        metavar="GLOB",
        action="append",
        default=[],
        help="with --modal: leave out of the upload what matches (repeatable)",
    )
    group.add_argument(
        "--max-upload",
        metavar="MB",
        type=float,
        default=DEFAULT_MAX_UPLOAD_MB,
        help=f"with --modal: the most the upload may hold (default {DEFAULT_MAX_UPLOAD_MB} MB)",
    )


#: The flags that only mean something with --modal, by their `args` names.
_MODAL_ONLY = {
    "pip": "--pip",
    "shapescript": "--shapescript",
    "project": "--project",
    "exclude": "--exclude",
    "max_upload": "--max-upload",
}


def uses_modal(args: argparse.Namespace) -> bool:
    """Whether the run is on Modal; a flag that needs --modal without it is a usage error."""
    if args.modal is not None:
        return True
    defaults: dict[str, object] = {
        "pip": [],
        "shapescript": None,
        "project": None,
        "exclude": [],
        "max_upload": DEFAULT_MAX_UPLOAD_MB,
    }
    for name, flag in _MODAL_ONLY.items():
        if getattr(args, name) != defaults[name]:
            from shapescript.commands.support import UsageError

            raise UsageError(f"{flag} goes with --modal GPU: without it the program runs here")
    return False


def run_modal_from_args(args: argparse.Namespace, program_argv: Sequence[str]) -> int:
    """`shapescript run --modal ...`: the exit status."""
    from shapescript.modal_run.launch import modal_run_from, run_on_modal

    if args.python is not None:
        from shapescript.commands.support import UsageError

        raise UsageError("--python and --modal don't go together: the container has its own")
    run = modal_run_from(
        args.modal,
        program_argv,
        project=args.project,
        pip=args.pip,
        shapescript=args.shapescript,
        exclude=args.exclude,
        max_upload_mb=args.max_upload,
    )
    return run_on_modal(run)
