"""One real VS Code for five tests: the end-to-end checks and the hover pictures
(test_vscode.py), the quick fix (test_vscode_fixes.py), the outline and rename
(test_vscode_names.py) and the notebook cell's error (test_vscode_notebook.py).

Each of them used to start its own code-server, Chromium and language server, which took
most of each test's time. Here one workspace holds their files, and one run of the probe's
drive.js opens broken.ss and goes through the probe's own steps in it (open, Problems,
hover, completion, go to definition, an edit), then opens typo.ss and applies the quick
fix, opens attention.ss for the outline and the rename, opens the notebook and reads the
Problems panel, then opens pictures.ss and hovers over each picture in the light theme VS
Code starts in and again in the dark one, in that order, ending with the probe's output
channel step. Each test reads its own steps from the one report (`tests/e2e/conftest.py`
makes it once per session).

The steps are those each test added to drive.js before, unchanged but for where they find
their file's text; the language server closes nothing in between, so every diagnostic each
step waits for is its own file's. broken.ss is opened first, so the status bar's count of
errors is still its own when the probe reads it."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from tests.e2e import test_vscode_fixes as fixes
from tests.e2e import test_vscode_names as names
from tests.e2e import test_vscode_notebook as notebook
from tests.e2e.test_vscode import (
    BROKEN,
    E2E_CONFIG,
    E2E_STEPS,
    PICTURE_SETTINGS,
    PICTURE_STEPS,
    PICTURES,
    PICTURES_FILE,
    PROBE_DIR,
    QUICK_OPEN_RACE,
    QUICK_OPEN_WAIT,
    REPO,
    package_extension,
    picture_config,
    run_vscode_probe,
)

DRIVE_COMMON = Path(__file__).with_name("drive_common.js")
ARTIFACTS = Path(__file__).with_name("artifacts")  # screenshots are copied here, editing-*
#: Where drive.js's last step (the output channel) starts: the added steps go before it.
ANCHOR = "\n  // the client's output channel"
FILE = "broken.ss"  # the probe's file: test_vscode.py's steps
QUICKFIX_FILE = "typo.ss"
NAMES_FILE = "attention.ss"
NOTEBOOK_FILE = "analysis.ipynb"
#: Each UI step's limit.
STEP_TIMEOUT_MS = 20000
#: The whole drive's limit: the probe gives 60 s and ten steps' time, and this drive has about
#: forty steps, most of them a few seconds long.
DRIVE_TIMEOUT_S = 480

#: Opens `file` with Quick Open once it is listed, and waits for the window's title to name it
#: and for `expect`, a text only that file has, to be shown.
OPEN_FILE = r"""
  async function openOther(file, expect) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input')
      .waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await page.keyboard.type(file);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: file })
      .first().waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await page.keyboard.press('Enter');
    // A notebook's cells are editors of their own: any editor on the page with the text.
    await page.waitForFunction(([f, text]) => document.title.startsWith(f)
      && [...document.querySelectorAll('.view-lines')]
        .some((e) => e.innerText.replace(/\u00a0/g, ' ').includes(text)),
      [file, expect], { timeout: cfg.timeout_ms });
    return { title: await page.title() };
  }
"""

#: The names test's steps, after attention.ss is opened.
NAMES_STEPS = r"""
  const namesText = fs.readFileSync(path.join(cfg.workspace, cfg.names_file), 'utf8');
  await step('open-names-file', async () => openOther(cfg.names_file, 'causal_attention'));
"""

#: The notebook test's step: the notebook opened, then Problems until its cell's error shows.
NOTEBOOK_STEP = r"""
  await step('notebook', async () => {
    const opened = await openOther(cfg.notebook_file, 'x + nope');
    await page.keyboard.press('Control+Shift+M');              // Problems panel
    const t = Date.now();
    let rows = [];
    while (since(t) < cfg.timeout_ms && !rows.some((r) => r.includes(cfg.notebook_expect))) {
      await page.waitForTimeout(100);
      rows = (await page.locator('.markers-panel .monaco-list-row').allInnerTexts())
        .map((r) => r.replace(/\s+/g, ' ').trim());
    }
    return { ...opened, problems: rows, ui_ms: since(t) };
  });
"""


def _replaced(text: str, old: str, new: str) -> str:
    """`text` with `old` replaced; fails when the text it changes is no longer there."""
    assert old in text, f"the text to change is no longer there: {old!r}"
    return text.replace(old, new)


def session_drive() -> str:
    """The probe's drive.js (with the runner's waits) and the quick fix, the names and the
    notebook steps added."""
    drive = _replaced((PROBE_DIR / "drive.js").read_text(), QUICK_OPEN_RACE, QUICK_OPEN_WAIT)
    name_steps = _replaced(names.STEPS, "locate(fileText, ", "locate(namesText, ")
    added = (
        OPEN_FILE + fixes.QUICK_FIX_STEP + NAMES_STEPS + name_steps + NOTEBOOK_STEP + PICTURE_STEPS
    )
    return _replaced(drive, ANCHOR, added + ANCHOR)


def make_workspace(root: Path) -> Path:
    """broken.ss, typo.ss, attention.ss with a mistake, and the notebook, in one workspace."""
    ws = root / "shapescript-editing"
    (ws / ".vscode").mkdir(parents=True)
    (ws / FILE).write_text(BROKEN, encoding="utf-8")
    (ws / QUICKFIX_FILE).write_text(fixes.TYPO, encoding="utf-8")
    text = (REPO / "examples" / "attention.ss").read_text(encoding="utf-8") + names.MISTAKE
    (ws / NAMES_FILE).write_text(text, encoding="utf-8")
    (ws / NOTEBOOK_FILE).write_text(notebook.notebook(), encoding="utf-8")
    (ws / PICTURES_FILE).write_text(PICTURES, encoding="utf-8")
    (ws / ".vscode" / "settings.json").write_text(
        json.dumps({"shapescript.python": sys.executable}, indent=2)
    )
    return ws


def run_session(work: Path) -> dict:
    """One VS Code through the three tests' steps; its report, with `_shots` added."""
    vsix = package_extension(work)
    ws = make_workspace(work)
    drive = work / "drive" / "session_drive.js"
    drive.parent.mkdir()
    drive.write_text(session_drive())
    shutil.copy(DRIVE_COMMON, drive.parent)  # the runner copies it from beside the drive
    config = {
        **E2E_CONFIG,
        "quickfix": {
            "file": QUICKFIX_FILE,
            "find": fixes.FIX_AT,
            "title": fixes.FIX_TITLE,
            "expect": "|> gelu",
        },
        "names_file": NAMES_FILE,
        "notebook_file": NOTEBOOK_FILE,
        "notebook_expect": "nope",
        **picture_config(),
    }
    report = run_vscode_probe(
        vsix,
        ws,
        FILE,
        work,
        probe_steps=E2E_STEPS,
        timeout_ms=STEP_TIMEOUT_MS,
        drive=drive,
        config=config,
        settings=PICTURE_SETTINGS,
        environment={"SS_E2E_DRIVE_TIMEOUT": str(DRIVE_TIMEOUT_S)},
    )
    (work / "report.json").write_text(json.dumps(report, indent=2))
    ARTIFACTS.mkdir(exist_ok=True)
    for shot in Path(report["_shots"]).glob("*.png"):
        shutil.copy(shot, ARTIFACTS / f"editing-{shot.name}")
    return report
