"""VS Code end to end, between Python and ShapeScript, in a real VS Code with the packaged
extension (code-server in headless Chromium, driven by the shared probe like a person).

app.py imports `double` from model.ss through its generated module model.py. Two runs, one
VS Code each: with a stand-in for Pylance (fake_python_server/, a few lines that answer go to
definition in Python files with the generated module's declaration, installed beside the
extension), and without a Python language server. In both, F12 on `double` in app.py lands
on its declaration in model.ss, never in model.py; Go Back returns to app.py where F12 was
pressed and Go Forward to model.ss; model.py opened on purpose stays open, and F12 or
Ctrl-click on its own `def double` opens model.ss. With the stand-in, Peek Definition still
shows its answer, model.py.

python_drive.js replaces the probe's drive.js (same packaging, same skip when the probe's
own install is missing); each step reports the window's title (the file shown), the cursor
and the tabs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from shapescript.cli import main as shapescript_main
from tests.e2e.test_vscode import (
    OUTPUT_CHANNEL,
    PROBE_DIR,
    PROBE_HOME,
    QUICK_OPEN_RACE,
    QUICK_OPEN_WAIT,
    RUNNER,
    _missing_prerequisites,
    _step,
    package_extension,
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


def make_workspace(root: Path) -> Path:
    ws = root / "python-e2e"
    (ws / ".vscode").mkdir(parents=True)
    (ws / "model.ss").write_text(MODEL)
    (ws / "app.py").write_text(APP)
    assert shapescript_main(["pymodules", str(ws / "model.ss")]) == 0  # model.py, generated
    (ws / ".vscode" / "settings.json").write_text(
        json.dumps({"shapescript.python": sys.executable}, indent=2)
    )
    return ws


def run_probe(vsix: Path, work: Path, more_vsix: Path | None) -> dict:
    runner = work / "run_probe.py"
    runner.write_text(PYTHON_RUNNER)
    ws = make_workspace(work)
    cmd = [
        sys.executable, str(runner), str(PROBE_DIR), str(vsix), OUTPUT_CHANNEL,
        QUICK_OPEN_RACE, QUICK_OPEN_WAIT,
        "--workspace", str(ws), "--file", "app.py",
        "--server-cmd", f"{sys.executable} -m shapescript_lsp",
        "--home", str(PROBE_HOME), "--out", str(work / "shots"),
        "--hover", "", "--completion", "", "--edit", "", "--definition", "",
    ]  # fmt: skip
    environment = dict(os.environ)
    # The server is this checkout's, whatever the installed package points at.
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "compiler"), str(REPO / "server"), environment.get("PYTHONPATH", "")]
    )
    environment["SS_E2E_DRIVE"] = str(DRIVE)
    if more_vsix is not None:
        environment["SS_E2E_MORE_VSIX"] = str(more_vsix)
    else:
        environment.pop("SS_E2E_MORE_VSIX", None)
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env=environment,
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(
            f"the probe printed no JSON (exit {proc.returncode}):\n"
            f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    (work / "report.json").write_text(json.dumps(report, indent=2))
    return report


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


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The packaged extension and the stand-in Python server, once for both runs."""
    reason = _missing_prerequisites()
    if reason:
        pytest.skip(reason)
    work = tmp_path_factory.mktemp("packed")
    return package_extension(work), pack_fake_server(work)


@pytest.mark.parametrize("with_server", [True, False], ids=["python-server", "alone"])
def test_going_between_python_and_shapescript(
    packed: tuple[Path, Path], with_server: bool, tmp_path: Path
) -> None:
    vsix, fake = packed
    report = run_probe(vsix, tmp_path, fake if with_server else None)
    failures = check_navigation(report, with_server)
    if failures:
        pytest.fail(
            "going between app.py and model.ss isn't right:\n- "
            + "\n- ".join(failures)
            + f"\n\nprobe summary: {json.dumps(report.get('summary'), indent=1)}"
            + f"\noutput channel:\n{_step(report, 'output-channel').get('text')}"
            + f"\nextension host log:\n{report.get('exthost_log_tail')}"
            + f"\nscreenshots: {report.get('out_dir')}, report: {tmp_path / 'report.json'}",
            pytrace=False,
        )
