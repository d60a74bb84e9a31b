"""`shapescript run --modal GPU[:N]`: compile here, then run the program on Modal with the
real `modal` package, stream its output and bring back the files it wrote."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from shapescript.commands.support import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, PROG, UsageError
from shapescript.modal_run import sync
from shapescript.modal_run.gpu import GpuRequest, check_devices_fit, parse_gpu
from shapescript.modal_run.image import ImagePlan, build_image, build_wheel, plan_image
from shapescript.modal_run.upload import DEFAULT_MAX_UPLOAD_MB, Upload, check_size, select

EXIT_INTERRUPTED = 130
APP_NAME = "shapescript-run"
#: How long a run may take, in seconds: Modal's longest function timeout (24 hours).
RUN_TIMEOUT = 24 * 60 * 60
#: Modal's errors for a request it won't serve (an unknown GPU type, say).
_REFUSED = ("InvalidError", "NotFoundError")


class NotReady(Exception):
    """What is missing before a run can start on Modal (the package, credentials, the
    network), said in one line; the command exits 2."""


@dataclass(frozen=True, slots=True)
class ModalRun:
    """What `shapescript run --modal` was asked to do."""

    gpu: GpuRequest
    argv: tuple[str, ...]
    project: str
    cwd: str
    pip: tuple[str, ...] = ()
    shapescript: str | None = None
    exclude: tuple[str, ...] = ()
    max_upload_mb: float = DEFAULT_MAX_UPLOAD_MB
    environment: Mapping[str, str] = field(default_factory=dict)

    @property
    def sync_root(self) -> str:
        """Where files come back to: the working directory when it holds the project, else
        the project's folder."""
        if os.path.commonpath([self.cwd, self.project]) == self.cwd:
            return self.cwd
        return self.project


@dataclass(frozen=True, slots=True)
class FunctionSpec:
    """The Modal function a run calls: its GPU request and timeout, in seconds."""

    gpu: str
    timeout: int = RUN_TIMEOUT


def import_modal() -> Any:
    """The `modal` package, or NotReady naming what to install."""
    try:
        import modal
    except ImportError as exc:
        raise NotReady(
            f"--modal needs the `modal` package in this Python ({sys.executable}): "
            "pip install modal (or pip install 'shapescript[modal]')"
        ) from exc
    return modal


def check_credentials(environ: Mapping[str, str], home: str) -> None:
    """NotReady unless Modal has a token, found as `modal` finds it: MODAL_TOKEN_ID and
    MODAL_TOKEN_SECRET, else the config file (MODAL_CONFIG_PATH, default ~/.modal.toml)."""
    if environ.get("MODAL_TOKEN_ID") and environ.get("MODAL_TOKEN_SECRET"):
        return
    config = environ.get("MODAL_CONFIG_PATH") or os.path.join(home, ".modal.toml")
    try:
        with open(config, encoding="utf-8") as handle:
            if "token_id" in handle.read():
                return
    except OSError:
        pass
    raise NotReady(
        f"--modal needs Modal credentials: none in MODAL_TOKEN_ID/MODAL_TOKEN_SECRET nor "
        f"in `{config}`; run `modal setup` (or `modal token new`) once"
    )


def declared_devices(program: str) -> tuple[int, tuple[str, tuple[int, ...] | None] | None]:
    """Check a .ss program here: its exit status (1 after printing its errors) and its
    devices line, as a kind and its numbers (None without a line, or for a .py program)."""
    if not program.endswith(".ss"):
        return EXIT_OK, None
    from shapescript import analysis
    from shapescript.check.declarations.module_paths import environment_search_path
    from shapescript.commands.support import print_diagnostics, read_source
    from shapescript.syntax import ast
    from shapescript.syntax.parser import parse

    if not os.path.isfile(program):
        raise UsageError(f"can't open `{program}`: no such file")
    source = read_source(program)
    checked = analysis.check(source, search_path=environment_search_path())
    if checked.errors:
        print_diagnostics(checked.diagnostics, source)
        return EXIT_ERRORS, None
    for item in parse(source).module.items:
        if isinstance(item, ast.DevicesDecl):
            numbers = tuple(item.numbers) if item.numbers is not None else None
            return EXIT_OK, (item.device, numbers)
    return EXIT_OK, None


def function_spec(gpu: GpuRequest) -> FunctionSpec:
    return FunctionSpec(gpu.text)


def define_function(app: Any, image: Any, spec: FunctionSpec) -> Any:
    """The Modal function that runs the program in the container (`container.run_in_container`,
    sent by value so that the app needs no module of its own)."""
    from shapescript.modal_run.container import run_in_container

    return app.function(image=image, gpu=spec.gpu, timeout=spec.timeout, serialized=True)(
        run_in_container
    )


def with_project(image: Any, upload: Upload) -> Any:
    """The image with the selected files of the project at the same absolute path."""
    chosen = frozenset(upload.files)
    return image.add_local_dir(
        upload.folder, remote_path=upload.folder, ignore=lambda path: path.as_posix() not in chosen
    )


def play(events: Iterable[tuple], stdout: BinaryIO, stderr: BinaryIO, sync_root: str) -> int:
    """Show a run's events as they come and, once it has ended, write back its files; the
    program's exit status. A KeyboardInterrupt on the way leaves every file as it was."""
    files: list[sync.ChangedFile] = []
    status: int | None = None
    for event in events:
        kind = event[0]
        if kind == "stdout":
            stdout.write(event[1])
            stdout.flush()
        elif kind == "stderr":
            stderr.write(event[1])
            stderr.flush()
        elif kind == "file":
            files.append(sync.ChangedFile(event[1], event[2]))
        elif kind == "exit":
            status = int(event[1])
    if status is None:
        raise NotReady("the container ended without the program's exit status")
    sync.apply(sync_root, files)
    return status


def prepare(
    run: ModalRun, devices: tuple[str, tuple[int, ...] | None] | None
) -> tuple[ImagePlan, Upload]:
    """What can be known and refused before `modal` is called: the devices against the GPUs,
    the image's plan and the upload (with its size limit)."""
    warning = check_devices_fit(devices, run.gpu)
    if warning is not None:
        print(f"{PROG}: warning: {warning}", file=sys.stderr)
    plan = plan_image(run.pip, run.shapescript)
    upload = select(run.project, run.exclude)
    check_size(upload, run.max_upload_mb)
    return plan, upload


def execute(run: ModalRun, plan: ImagePlan, upload: Upload, modal: Any) -> int:
    """Build the image, run the program in a container and play its events."""
    import shutil
    import tempfile

    from shapescript.cache_folder import cache_root

    with contextlib.ExitStack() as cleanup:
        wheel = None
        if plan.shapescript.kind == "checkout":
            os.makedirs(cache_root(), exist_ok=True)
            folder = tempfile.mkdtemp(prefix="modal-wheel-", dir=cache_root())
            cleanup.callback(shutil.rmtree, folder, True)
            wheel = build_wheel(plan.shapescript.value, folder)
        return _start(run, with_project(build_image(plan, modal, wheel), upload), modal)


def _start(run: ModalRun, image: Any, modal: Any) -> int:
    """Define the app and its function, run the program and play its events."""
    app = modal.App(APP_NAME)
    function = define_function(app, image, function_spec(run.gpu))
    stdout, stderr = sys.stdout.buffer, sys.stderr.buffer
    sys.stdout.flush()
    with contextlib.redirect_stdout(sys.stderr), modal.enable_output(), app.run():
        events = function.remote_gen(list(run.argv), run.cwd, run.sync_root, dict(run.environment))
        return play(events, stdout, stderr, run.sync_root)


def run_on_modal(run: ModalRun, environ: Mapping[str, str] | None = None) -> int:
    """The whole command: the exit status it ends with."""
    environ = os.environ if environ is None else environ
    status, devices = declared_devices(run.argv[0])
    if status != EXIT_OK:
        return status
    try:
        plan, upload = prepare(run, devices)
        modal = import_modal()
        check_credentials(environ, os.path.expanduser("~"))
    except NotReady as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return guarded(lambda: execute(run, plan, upload, modal), modal)


def guarded(start: Any, modal: Any) -> int:
    """Run `start()`, turning Ctrl-C into 130, Modal's connection, login and request errors
    into one line and exit status 2, and its other errors (a container that failed or
    timed out) into one line and exit status 1."""
    exception = getattr(modal, "exception", None)
    unreachable = getattr(exception, "ConnectionError", ())
    refused = getattr(exception, "AuthError", ())
    invalid = tuple(getattr(exception, name) for name in _REFUSED if hasattr(exception, name))
    failed = getattr(exception, "Error", ())
    try:
        return start()
    except KeyboardInterrupt:
        print(
            f"{PROG}: interrupted: the container was stopped; no files came back", file=sys.stderr
        )
        return EXIT_INTERRUPTED
    except NotReady as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except unreachable as exc:
        print(f"{PROG}: error: can't reach Modal (check the network): {exc}", file=sys.stderr)
        return EXIT_USAGE
    except refused as exc:
        print(
            f"{PROG}: error: Modal refused the credentials: {exc}; run `modal setup`",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except invalid as exc:
        print(f"{PROG}: error: Modal refused the request: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except failed as exc:
        print(
            f"{PROG}: error: the run on Modal failed: {type(exc).__name__}: {exc}", file=sys.stderr
        )
        return EXIT_ERRORS


def modal_run_from(
    gpu: str,
    program_argv: Sequence[str],
    *,
    project: str | None,
    pip: Sequence[str],
    shapescript: str | None,
    exclude: Sequence[str],
    max_upload_mb: float,
) -> ModalRun:
    """A ModalRun from the command line's values."""
    if not program_argv or program_argv[0] == "-m":
        raise UsageError("--modal runs a .py or .ss file: give its path")
    cwd = os.path.abspath(os.getcwd())
    folder = os.path.abspath(project or os.path.dirname(os.path.abspath(program_argv[0])))
    if not os.path.isdir(folder):
        raise UsageError(f"--project `{project}` isn't a folder")
    if max_upload_mb <= 0:
        raise UsageError("--max-upload takes a size in MB above 0")
    return ModalRun(
        gpu=parse_gpu(gpu),
        argv=tuple(program_argv),
        project=folder,
        cwd=cwd,
        pip=tuple(pip),
        shapescript=shapescript,
        exclude=tuple(exclude),
        max_upload_mb=max_upload_mb,
        environment={"PYTHONUNBUFFERED": "1"},
    )
