"""VS Code end to end: a quick fix applied from the light bulb, in a real VS Code.

The packaged extension runs in VS Code 1.100 (code-server in headless Chromium), driven
by the shared probe as `test_vscode.py` drives it. The probe's drive.js gets one more
step here: put the cursor on a misspelt name, click the light bulb that appears, choose
the quick fix, and read the editor's line and the Problems panel afterwards.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_vscode import (
    OUTPUT_CHANNEL,
    PROBE_DIR,
    PROBE_HOME,
    QUICK_OPEN_RACE,
    QUICK_OPEN_WAIT,
    _missing_prerequisites,
    package_extension,
)

pytestmark = pytest.mark.slow

TYPO = """\
dim D = 64

fn f(x: [b D]) -> [b D] = relu(x) |> gelo
"""
FIX_AT = "gelo"
FIX_TITLE = "Change `gelo` to `gelu`"

#: The step added to drive.js, before it opens the output channel.
QUICK_FIX_STEP = r"""
  if (cfg.quickfix) {
    await step('quick-fix', async () => {
      const at = locate(fileText, cfg.quickfix.find, 1, 1);
      await page.keyboard.press('Escape');
      await editor.click();
      await gotoPos(at.line, at.column);
      const t = Date.now();
      const bulb = page.locator('.lightBulbWidget:visible').first();
      let from = 'light bulb';
      try {
        await bulb.waitFor({ state: 'visible', timeout: 2 * cfg.timeout_ms });
        await bulb.click();
      } catch (e) {
        from = 'Ctrl+.';
        await page.keyboard.press('Control+.');
      }
      const rows = page.locator('.action-widget .monaco-list-row');
      await rows.first().waitFor({ state: 'visible', timeout: cfg.timeout_ms });
      const offered = (await rows.allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(cfg.out_dir, 'quick-fix-menu.png') });
      // The menu opens with its first fix focused, as a person sees it: Enter applies it.
      const focused = (await page.locator('.action-widget .monaco-list-row.focused').first()
        .innerText()).replace(/\s+/g, ' ').trim();
      await page.keyboard.press('Enter');
      const applied = Date.now();
      let line = '';
      while (since(applied) < cfg.timeout_ms && !line.includes(cfg.quickfix.expect)) {
        await page.waitForTimeout(100);
        line = (await page.evaluate(() => document.querySelector(
          '.editor-group-container.active .view-lines')?.innerText || '')).replace(/\u00a0/g, ' ');
      }
      let status = await statusText(page, 'status.problems');
      while (since(applied) < cfg.timeout_ms && !/No Problems|\b0\b/.test(status || '')) {
        await page.waitForTimeout(100);
        status = await statusText(page, 'status.problems');
      }
      return { from, offered, focused, text: line, problems_status: status, ui_ms: since(t) };
    });
  }

  // the client's output channel"""

RUNNER = """\
import json, shutil, subprocess, sys, tempfile
from pathlib import Path

probe_dir, vsix, channel, race, wait, step, quickfix = sys.argv[1:8]
sys.argv = [str(Path(probe_dir) / "vscode_probe.py")] + sys.argv[8:]
sys.path.insert(0, probe_dir)
import vscode_probe as probe

probe.build_vsix = lambda node_modules, dest: Path(vsix)
drive = (Path(probe_dir) / "drive.js").read_text()
marker = "\\n  // the client's output channel"
if marker not in drive:
    raise SystemExit("drive.js has no output-channel step to put the quick fix before")
drive = drive.replace(race, wait).replace(marker, step, 1)
patched = Path(tempfile.mkdtemp(prefix="vscode-probe-fixes-"))
(patched / "drive.js").write_text(drive)
probe.HERE = patched
_run = subprocess.run


def run(cmd, *args, **kwargs):
    if isinstance(cmd, list) and len(cmd) == 3 and cmd[0] == "node" and cmd[1].endswith("drive.js"):
        cfg = Path(cmd[2])
        extra = {"output_channel": channel, "quickfix": json.loads(quickfix)}
        cfg.write_text(json.dumps({**json.loads(cfg.read_text()), **extra}))
    return _run(cmd, *args, **kwargs)


probe.subprocess.run = run
try:
    sys.exit(probe.main())
finally:
    shutil.rmtree(patched, ignore_errors=True)
"""


def run_probe(vsix: Path, work: Path, theme: str | None = None) -> dict:
    """One probe run; `theme` (a VS Code color theme's name) is for pictures of it."""
    ws = work / "shapescript-fixes"
    (ws / ".vscode").mkdir(parents=True)
    (ws / "typo.ss").write_text(TYPO, encoding="utf-8")
    settings = {"shapescript.python": sys.executable}
    if theme is not None:
        settings["workbench.colorTheme"] = theme
    (ws / ".vscode" / "settings.json").write_text(json.dumps(settings, indent=2))
    runner = work / "run_probe.py"
    runner.write_text(RUNNER)
    quickfix = {"find": FIX_AT, "title": FIX_TITLE, "expect": "|> gelu"}
    cmd = [
        sys.executable, str(runner), str(PROBE_DIR), str(vsix), OUTPUT_CHANNEL,
        QUICK_OPEN_RACE, QUICK_OPEN_WAIT, QUICK_FIX_STEP, json.dumps(quickfix),
        "--workspace", str(ws), "--file", "typo.ss",
        "--server-cmd", f"{sys.executable} -m shapescript_lsp",
        "--home", str(PROBE_HOME), "--out", str(work / "shots"),
        "--hover", "", "--completion", "", "--definition", "", "--edit", "",
    ]  # fmt: skip
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(
            f"the probe printed no JSON (exit {proc.returncode}):\n"
            f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    report["_shots"] = str(work / "shots")
    return report


def _step(report: dict, name: str) -> dict:
    return next((s for s in report.get("steps", []) if s.get("name") == name), {})


def test_a_quick_fix_from_the_light_bulb(tmp_path: Path) -> None:
    reason = _missing_prerequisites()
    if reason:
        pytest.skip(reason)
    vsix = package_extension(tmp_path)
    work = tmp_path / "run"
    work.mkdir()
    report = run_probe(vsix, work)
    (tmp_path / "report.json").write_text(json.dumps(report, indent=2))
    diagnostics = _step(report, "diagnostics")
    assert any("E0301" in row for row in diagnostics.get("problems") or []), diagnostics
    fix = _step(report, "quick-fix")
    assert fix.get("ok"), (fix, report.get("error"), report.get("summary"))
    assert fix["from"] == "light bulb", fix
    assert any(FIX_TITLE.replace("`", "") in row.replace("`", "") for row in fix["offered"]), fix
    assert FIX_TITLE.replace("`", "") in fix["focused"].replace("`", ""), fix
    assert "relu(x) |> gelu" in fix["text"], fix
    assert "gelo" not in fix["text"], fix
    assert re.search(r"No Problems|\b0\b", fix["problems_status"] or ""), fix
