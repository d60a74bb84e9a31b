"""`python -m shapescript PROGRAM [args...]`: run a Python file (`X.py`), a `.ss` file's
`fn main()`, or a module (`-m NAME`) with the import hook installed, and show ShapeScript's
errors as diagnostics."""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable, Sequence
from pathlib import Path

import shapescript
from shapescript.commands.support import EXIT_ERRORS, EXIT_USAGE, wants_color

TRACEBACK_VARIABLE = "SHAPESCRIPT_TRACEBACK"

#: Frames of the runner itself, left out of the tracebacks a program's errors show.
_RUNNER = (
    str(Path(shapescript.__file__).resolve().parent) + os.sep,
    str(Path(os.__file__).resolve().parent / "runpy.py"),
    "<frozen ",
)


class ProgramUsageError(Exception):
    """The program to run can't be run at all: shown in one line, exit status 2."""


def _traceback_wanted() -> bool:
    """SHAPESCRIPT_TRACEBACK=1, or a debugger (debugpy's pydevd) that stops where it's raised."""
    return os.environ.get(TRACEBACK_VARIABLE, "") not in ("", "0") or "pydevd" in sys.modules


def _user_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback from the program's first frame on, without the runner's frames."""
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(_RUNNER):
        tb = tb.tb_next
    return tb


def _print_traceback(error: BaseException) -> None:
    trimmed = _user_traceback(error.__traceback__)
    if trimmed is not None:
        error = error.with_traceback(trimmed)
    sys.excepthook(type(error), error, error.__traceback__)


def _report(error: BaseException) -> int:
    """Show an exception that escaped the program; return the exit status."""
    from shapescript.rt.report import render_error

    sys.stdout.flush()
    color = wants_color(sys.stderr)
    rendered = None if _traceback_wanted() else render_error(error, skip=_RUNNER, color=color)
    if rendered is None:
        _print_traceback(error)
    else:
        print(rendered, file=sys.stderr)
    return EXIT_ERRORS


def _guarded(run: Callable[[], None]) -> int:
    try:
        run()
    except (SystemExit, KeyboardInterrupt):
        raise
    except ProgramUsageError as exc:
        print(f"shapescript: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BaseException as exc:
        return _report(exc)
    return 0


def _call_main(module: types.ModuleType, shown: str) -> None:
    import inspect

    main = getattr(module, "main", None)
    if not callable(main):
        raise ProgramUsageError(f"`{shown}` has no `fn main()` to run")
    try:
        signature = inspect.signature(main)
    except (TypeError, ValueError):
        signature = None
    if signature is not None:
        required = [
            p.name
            for p in signature.parameters.values()
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        if required:
            raise ProgramUsageError(
                f"`fn main` of `{shown}` takes parameters ({', '.join(required)}); "
                "a program's main takes none"
            )
    main()


def _run_ss(program: str) -> None:
    from shapescript.rt.hook import import_path

    if not os.path.isfile(program):
        raise ProgramUsageError(f"can't open `{program}`: no such file")
    sys.path[0] = os.path.dirname(os.path.abspath(program))
    _call_main(import_path(program), program)


def _run_py(program: str) -> None:
    import runpy

    if not os.path.exists(program):
        raise ProgramUsageError(f"can't open `{program}`: no such file")
    sys.path[0] = os.path.dirname(os.path.abspath(program))
    runpy.run_path(program, run_name="__main__")


def _run_module(name: str) -> None:
    import importlib.util
    import runpy

    from shapescript.rt.hook import ShapeScriptLoader, import_path

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise ProgramUsageError(f"no module named `{name}`")
    if isinstance(spec.loader, ShapeScriptLoader):
        _call_main(import_path(spec.loader.path, name), name)
        return
    runpy.run_module(name, run_name="__main__", alter_sys=True)


def run_program(argv: Sequence[str]) -> int:
    """`python -m shapescript PROGRAM [args...]`: run it with the hook installed."""
    from shapescript.rt.hook import install

    args = list(argv)
    if args[0] == "-m":
        if len(args) < 2:
            print("shapescript: error: -m needs a module name", file=sys.stderr)
            return EXIT_USAGE
        name, rest = args[1], args[2:]
        sys.argv = [name, *rest]
        install()
        return _guarded(lambda: _run_module(name))
    program, rest = args[0], args[1:]
    sys.argv = [program, *rest]
    install()
    if program.endswith(".ss"):
        return _guarded(lambda: _run_ss(program))
    return _guarded(lambda: _run_py(program))
