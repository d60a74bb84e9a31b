"""VS Code end to end, between Python and ShapeScript: in a real VS Code with the packaged
extension (and no Python language server), F12 on a name a Python file imports from a
`.ss` module lands on its declaration in the `.ss` file, never in the generated module.

Driven by the shared probe like tests/e2e/test_vscode.py (same packaging, same skip when
the probe's own install is missing); its definition step is made to also report the
window's title, which names the file the editor shows.
"""

from __future__ import annotations

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

MODEL = """\
## Twice the input.
fn double(x: [n]) -> [n] = x * 2
"""
APP = """\
from model import double

print(double)
"""
DECLARATION_LINE = 2  # fn double, in model.ss
# drive.js's definition step, which reports only the cursor: it also reports the window's
# title (the file shown), a moment after the cursor moved.
DEFINITION_RETURN = (
    "return { at: defAt, ok: after !== before, cursor_before: before, cursor_after: after, "
    "ui_ms: since(t) };"
)
DEFINITION_RETURN_TITLED = (
    "await page.waitForTimeout(1500); "
    "return { at: defAt, ok: after !== before, cursor_before: before, cursor_after: after, "
    "ui_ms: since(t), title: await page.title() };"
)


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


def run_probe(vsix: Path, ws: Path, work: Path) -> dict:
    runner = work / "run_probe.py"
    old = "else drive.replace(race, wait)\n"
    assert old in RUNNER, "test_vscode's runner no longer builds drive.js this way"
    runner.write_text(
        RUNNER.replace(
            old,
            "else drive.replace(race, wait)"
            f".replace({DEFINITION_RETURN!r}, {DEFINITION_RETURN_TITLED!r})\n",
        )
    )
    cmd = [
        sys.executable, str(runner), str(PROBE_DIR), str(vsix), OUTPUT_CHANNEL,
        QUICK_OPEN_RACE, QUICK_OPEN_WAIT,
        "--workspace", str(ws), "--file", "app.py",
        "--server-cmd", f"{sys.executable} -m shapescript_lsp",
        "--home", str(PROBE_HOME), "--out", str(work / "shots"),
        "--hover", "", "--completion", "", "--edit", "",
        "--definition", "double#2+2",
    ]  # fmt: skip
    # The server is this checkout's, whatever the installed package points at.
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "compiler"), str(REPO / "server"), environment.get("PYTHONPATH", "")]
    )
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env=environment,
    )
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(
            f"the probe printed no JSON (exit {proc.returncode}):\n"
            f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )


def test_f12_in_python_lands_in_the_ss_file(tmp_path: Path) -> None:
    reason = _missing_prerequisites()
    if reason:
        pytest.skip(reason)
    vsix = package_extension(tmp_path)
    work = tmp_path / "run"
    work.mkdir()
    ws = make_workspace(work)
    report = run_probe(vsix, ws, work)
    (tmp_path / "report.json").write_text(json.dumps(report, indent=2))
    definition = _step(report, "definition")
    seen = {
        "definition": definition,
        "summary": report.get("summary"),
        "output": _step(report, "output-channel").get("text"),
        "report": str(tmp_path / "report.json"),
    }
    assert definition.get("ok"), seen
    assert "model.ss" in (definition.get("title") or ""), seen
    assert "model.py" not in (definition.get("title") or ""), seen
    assert re.match(rf"Ln {DECLARATION_LINE}\b", definition.get("cursor_after") or ""), seen
