"""VS Code end to end, between Python and ShapeScript, in a real VS Code with the packaged
extension (code-server in headless Chromium, driven by the shared probe like a person).

app.py imports `double` from model.ss through its generated module model.py. One VS Code,
in two halves: first with a stand-in for Pylance (fake_python_server/, a few lines that
answer go to definition in Python files with the generated module's declaration, installed
beside the extension), then, once its command "Fake Python: Stop Answering Go to Definition"
has taken its answers away and every editor is closed, without a Python language server. In
both, F12 on `double` in app.py lands on its declaration in model.ss, never in model.py; Go
Back returns to app.py where F12 was pressed and Go Forward to model.ss; model.py opened on
purpose stays open, and F12 or Ctrl-click on its own `def double` opens model.ss. With the
stand-in, Peek Definition still shows its answer, model.py; without it, model.ss. The two
halves used to be two VS Code launches; one saves a launch (half a minute or more), and each
test below still checks its own half.

The workspace's Python (`shapescript.python`) is a virtual environment beside the
workspace, with the package shapes_extra installed in its site-packages (its files put there
as a wheel would put them; how pip installs a wheel is tests/packages' business). Its
layers.ss has one deliberate error, and the workspace's uses.ss, which imports it, the same
one. In the half without a Python server, F12 from uses.ss opens the installed layers.ss, as a
person reaches it: VS Code shows it read-only (a lock on its tab; a key typed in it brings
"Editor is read-only because the file was set read-only via settings", changes nothing and
marks nothing unsaved), the error in it has no squiggle and no row in Problems while the
same error in uses.ss has both, hover works in it, and nothing is written into site-packages.
Those steps add about 15 s to that half, and no VS Code launch.

python_drive.js replaces the probe's drive.js (same packaging, same skip when the probe's
own install is missing); each step reports the window's title (the file shown), the cursor
and the tabs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from shapescript.cli import main as shapescript_main
from tests.e2e.test_vscode import (
    PROBE_DIR,
    RUNNER,
    _missing_prerequisites,
    _step,
    package_extension,
    run_vscode_probe,
)

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FAKE_SERVER = HERE / "fake_python_server"
DRIVE = HERE / "python_drive.js"

MODEL = """\
## Twice the input.
fn double(x: [n]) -> [n] = x * 2
"""
APP = """\
from model import double

print(double)
"""
DECLARATION_LINE = 2  # fn double, in model.ss
#: The installed package's module: `double`, and a deliberate error (E0301, unknown `y`).
LAYERS = """\
dim D = 4

## Twice the input.
fn double(x: [D]) -> [D]:
    return x + x

fn broken(x: [D]) -> [D] = x + y
"""
LAYERS_DECLARATION_LINE = 4  # fn double, in layers.ss
#: The workspace's file that imports it, with the same error of its own.
USES = """\
import shapes_extra.layers

fn twice(x: [layers.D]) -> [layers.D] = layers.double(x)

fn broken(x: [layers.D]) -> [layers.D] = x + y
"""
SAME_ERROR = "E0301"
#: The badge VS Code draws after a read-only file's name in its tab: the codicon lock-small.
LOCK_ICON = "\uebe7"
#: Each UI step's limit; the whole drive gets 60 s plus ten of them.
STEP_TIMEOUT_MS = 20000
USE = "Ln 3, Col 9"  # the cursor on `double` in print(double), where F12 is pressed


def _patched(text: str, old: str, new: str) -> str:
    """`text` with `old` replaced; fails at import when test_vscode's runner changed."""
    assert old in text, f"the shared runner no longer has {old!r}"
    return text.replace(old, new)


#: test_vscode's runner, which also installs $SS_E2E_MORE_VSIX, if set, with the extension.
PYTHON_RUNNER = _patched(
    RUNNER,
    "    return _run(cmd, *args, **kwargs)\n",
    "    more_vsix = os.environ.get('SS_E2E_MORE_VSIX')\n"
    "    if more_vsix and isinstance(cmd, list) and '--install-extension' in cmd:\n"
    "        cmd = cmd + ['--install-extension', more_vsix]\n"
    "    return _run(cmd, *args, **kwargs)\n",
)


def pack_fake_server(dest: Path) -> Path:
    """The stand-in Python server as a .vsix, packed the way the probe packs its own."""
    spec = importlib.util.spec_from_file_location("vscode_probe", PROBE_DIR / "vscode_probe.py")
    assert spec and spec.loader
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    probe.EXT_SRC = FAKE_SERVER
    return probe.build_vsix(None, dest)


def make_environment(root: Path) -> tuple[Path, Path]:
    """A virtual environment with shapes_extra installed: its Python and the installed
    layers.ss. A .pth file lets it see this Python's packages (the server's included),
    which --system-site-packages would miss when this Python is itself in a venv."""
    venv = root / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()
    ours = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    (Path(purelib) / "outer.pth").write_text("\n".join(dict.fromkeys(ours)) + "\n")
    package = Path(purelib) / "shapes_extra"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "layers.ss").write_text(LAYERS)
    return python, package / "layers.ss"


def make_workspace(root: Path, python: Path) -> Path:
    ws = root / "python-e2e"
    (ws / ".vscode").mkdir(parents=True)
    (ws / "model.ss").write_text(MODEL)
    (ws / "app.py").write_text(APP)
    (ws / "uses.ss").write_text(USES)
    assert shapescript_main(["pymodules", str(ws / "model.ss")]) == 0  # model.py, generated
    (ws / ".vscode" / "settings.json").write_text(
        json.dumps({"shapescript.python": str(python)}, indent=2)
    )
    return ws


#: The halves of the one run, as python_drive.js's phases: the prefix of each one's steps.
WITH_SERVER, ALONE = "python-server", "alone"
STOP_COMMAND = "Fake Python: Stop Answering Go to Definition"
STOP_TYPED = "stop answering"  # what is typed in the Command Palette to find it


def run_probe(vsix: Path, work: Path, python: Path, fake: Path, installed: Path) -> dict:
    """One VS Code run with `python` as the workspace's Python and the stand-in Python server
    installed: the navigation steps with the stand-in answering, then without it, and then
    the steps in `installed` (the installed layers.ss)."""
    ws = make_workspace(work, python)
    # The server is this checkout's, whatever the installed package points at.
    environment = {
        "PYTHONPATH": os.pathsep.join(
            [str(REPO / "compiler"), str(REPO / "server"), os.environ.get("PYTHONPATH", "")]
        ),
        "SS_E2E_MORE_VSIX": str(fake),
    }
    phases = [
        {"prefix": WITH_SERVER},
        {
            "prefix": ALONE,
            "stop_command": STOP_COMMAND,
            "stop_typed": STOP_TYPED,
            "installed": str(installed),
        },
    ]
    report = run_vscode_probe(
        vsix,
        ws,
        "app.py",
        work,
        timeout_ms=STEP_TIMEOUT_MS,
        drive=DRIVE,
        config={"phases": phases},
        environment=environment,
        runner=PYTHON_RUNNER,
    )
    (work / "report.json").write_text(json.dumps(report, indent=2))
    return report


def half(report: dict, prefix: str) -> dict:
    """The report as one half of the run saw it: that half's steps (their prefix taken off)
    and the steps the halves share (opening the workbench, the output channel)."""
    prefixes = (f"{WITH_SERVER}-", f"{ALONE}-")
    steps = []
    for step in report.get("steps", []):
        name = step.get("name", "")
        if name.startswith(f"{prefix}-"):
            steps.append({**step, "name": name.removeprefix(f"{prefix}-")})
        elif not name.startswith(prefixes):
            steps.append(step)
    return {**report, "steps": steps}


def shown(step: dict) -> str:
    """The file the window shows: the first part of its title."""
    return (step.get("title") or "").split(" - ")[0].lstrip("● ").strip()


def check_navigation(report: dict, with_server: bool) -> list[str]:
    """What a person sees after each step, each thing wrong as one line."""
    failures: list[str] = []

    def expect(name: str, ok: bool, what: str) -> None:
        if not ok:
            step = _step(report, name)
            seen = {k: step.get(k) for k in ("title", "cursor", "tabs", "error", "peek_title")}
            failures.append(f"{name}: {what}; saw {json.dumps(seen)}")

    def at(name: str, file: str, line: int) -> None:
        step = _step(report, name)
        expect(name, shown(step) == file, f"the window shows {file}")
        expect(
            name,
            bool(re.match(rf"Ln {line}\b", step.get("cursor") or "")),
            f"the cursor is on line {line}",
        )

    for step in report.get("steps", []):
        if not step.get("ok"):
            failures.append(f"{step['name']}: the step failed: {step.get('error')}")
    if report.get("error"):
        failures.append(f"the probe stopped: {report['error'][:1000]}")
    install = report.get("install_extension", {})
    if not install.get("ok"):
        failures.append(f"the extensions didn't install: {install.get('output')}")
    at("definition", "model.ss", DECLARATION_LINE)
    expect(
        "definition",
        "model.py" not in _step(report, "definition").get("tabs", []),
        "no tab shows the generated module",
    )
    at("back", "app.py", 3)
    expect(
        "back",
        _step(report, "back").get("cursor", "").startswith(USE),
        f"the cursor is back at {USE}",
    )
    at("forward", "model.ss", DECLARATION_LINE)
    expect(
        "forward",
        "model.py" not in _step(report, "forward").get("tabs", []),
        "no tab shows the generated module",
    )
    expect(
        "open-generated",
        shown(_step(report, "open-generated")) == "model.py",
        "model.py opened on purpose stays",
    )
    click = _step(report, "ctrl-click-in-generated")
    expect(
        "ctrl-click-in-generated",
        (click.get("title_before") or "").startswith("model.py"),
        "model.py shows before the click",
    )
    for name in ("f12-in-generated", "ctrl-click-in-generated"):
        at(name, "model.ss", DECLARATION_LINE)
        expect(
            name,
            "model.py" in _step(report, name).get("tabs", []),
            "model.py, opened on purpose, keeps its tab",
        )
    peek = _step(report, "peek")
    expect("peek", peek.get("ok") and shown(peek) == "app.py", "the peek opens in app.py")
    answer = "model.py" if with_server else "model.ss"
    expect("peek", answer in (peek.get("peek_title") or ""), f"the peek shows {answer}")
    if report.get("server_crashes"):
        failures.append(
            f"the language server crashed: {_step(report, 'output-channel').get('text')}"
        )
    return failures


def check_installed(report: dict, layers: Path) -> list[str]:
    """What a person sees in the installed layers.ss, each thing wrong as one line."""
    failures: list[str] = []

    def expect(name: str, ok: bool, what: str, *fields: str) -> None:
        if not ok:
            step = _step(report, name)
            seen = {k: step.get(k) for k in ("error", *fields)}
            failures.append(f"{name}: {what}; saw {json.dumps(seen)[:1500]}")

    importer = _step(report, "open-importer")
    expect(
        "open-importer",
        (importer.get("squiggles") or 0) > 0,
        "the error in the workspace's uses.ss has a squiggle",
        "squiggles",
        "title",
    )
    landed = _step(report, "definition-installed")
    expect(
        "definition-installed",
        shown(landed) == "layers.ss"
        and bool(re.match(rf"Ln {LAYERS_DECLARATION_LINE}\b", landed.get("cursor") or "")),
        f"F12 on layers.double opens the installed layers.ss at line {LAYERS_DECLARATION_LINE}",
        "title",
        "cursor",
        "tabs",
    )
    typed = _step(report, "installed-read-only")
    fields = ("message", "title", "tab")
    expect(
        "installed-read-only",
        "read-only" in (typed.get("message") or "").lower(),
        "typing shows VS Code's read-only message",
        *fields,
    )
    tab = typed.get("tab") or {}
    expect(
        "installed-read-only",
        tab.get("badge") == f'"{LOCK_ICON}"' and tab.get("badge_font") == "codicon",
        "the tab shows the lock of a read-only file",
        *fields,
    )
    expect(
        "installed-read-only",
        bool(typed.get("text_before")) and typed.get("text_after") == typed.get("text_before"),
        "the text shown didn't change",
        "text_before",
        "text_after",
    )
    expect(
        "installed-read-only",
        not (typed.get("title") or "").startswith("●") and "dirty" not in tab.get("classes", ""),
        "nothing is marked unsaved",
        *fields,
    )
    problems = _step(report, "installed-problems")
    expect(
        "installed-problems",
        problems.get("squiggles") == 0,
        "the error in the installed file has no squiggle",
        "squiggles",
    )
    rows = problems.get("rows") or []
    # A file's own row is labelled "N problems in file NAME of folder …"; its markers follow.
    files = [row.get("label", "") for row in rows if " in file " in row.get("label", "")]
    expect(
        "installed-problems",
        any(" in file uses.ss " in label for label in files)
        and any(f"{SAME_ERROR} [Ln 5" in row.get("text", "") for row in rows)
        and not any(" in file layers.ss " in label for label in files),
        f"Problems lists uses.ss with its {SAME_ERROR} on line 5, and no layers.ss",
        "rows",
        "problems_status",
    )
    hover = _step(report, "hover-installed")
    expect(
        "hover-installed",
        (hover.get("text") or "").startswith("x: [D]"),
        "hover on x in the installed file shows its type, x: [D]",
        "text",
    )
    if layers.read_text() != LAYERS:
        failures.append("the installed layers.ss changed on disk")
    written = sorted(p.name for p in layers.parent.iterdir()) != ["__init__.py", "layers.ss"]
    if written:
        failures.append(
            f"something was written into site-packages: {sorted(layers.parent.iterdir())}"
        )
    return failures


@pytest.fixture(scope="module")
def navigation_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, Path]:
    """The one VS Code run both halves are read from: its report, the installed layers.ss
    and the folder of the run."""
    reason = _missing_prerequisites()
    if reason:
        pytest.skip(reason)
    work = tmp_path_factory.mktemp("python-navigation")
    vsix, fake = package_extension(work), pack_fake_server(work)
    python, layers = make_environment(work)
    return run_probe(vsix, work, python, fake, layers), layers, work


@pytest.mark.parametrize("with_server", [True, False], ids=[WITH_SERVER, ALONE])
def test_going_between_python_and_shapescript(
    navigation_run: tuple[dict, Path, Path], with_server: bool
) -> None:
    whole, layers, work = navigation_run
    report = half(whole, WITH_SERVER if with_server else ALONE)
    failures = check_navigation(report, with_server)
    if not with_server:
        failures += check_installed(report, layers)
    if failures:
        pytest.fail(
            "going between app.py and model.ss isn't right:\n- "
            + "\n- ".join(failures)
            + f"\n\nprobe summary: {json.dumps(whole.get('summary'), indent=1)}"
            + f"\noutput channel:\n{_step(report, 'output-channel').get('text')}"
            + f"\nextension host log:\n{report.get('exthost_log_tail')}"
            + f"\nscreenshots: {report.get('out_dir')}, report: {work / 'report.json'}",
            pytrace=False,
        )
