"""VS Code end to end: a quick fix applied from the light bulb, in a real VS Code.

The packaged extension runs in VS Code 1.100 (code-server in headless Chromium), driven
by the shared probe as `test_vscode.py` drives it, in the VS Code this test shares with
the end-to-end, names and notebook tests (editing_session.py). The probe's drive.js gets
two more steps here: open typo.ss until Problems lists its misspelt name, then put the
cursor on that name, click the light bulb that appears, choose the quick fix, and read the
editor's line and the Problems panel afterwards (no row for typo.ss: the workspace's other
files keep errors of their own, so the status bar never says "No Problems" here).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

TYPO = """\
dim D = 64

fn f(x: [b D]) -> [b D] = relu(x) |> gelo
"""
FIX_AT = "gelo"
FILE = "typo.ss"
FIX_TITLE = "Change `gelo` to `gelu`"

#: The steps added to drive.js, before it opens the output channel (editing_session.py): the
#: file opened with `openOther` (editing_session.OPEN_FILE) until Problems lists its error,
#: then the fix.
QUICK_FIX_STEP = r"""
  if (cfg.quickfix) {
    const fixText = fs.readFileSync(path.join(cfg.workspace, cfg.quickfix.file), 'utf8');
    // The Problems panel's rows, the panel opened first if it isn't shown.
    const problemRows = async () => {
      if (!(await page.locator('.markers-panel').first().isVisible())) {
        await page.keyboard.press('Control+Shift+M');
      }
      return (await page.locator('.markers-panel .monaco-list-row').allInnerTexts())
        .map((r) => r.replace(/\s+/g, ' ').trim());
    };
    await step('open-quickfix-file', async () => {
      const opened = await openOther(cfg.quickfix.file, cfg.quickfix.find);
      const t = Date.now();
      let rows = await problemRows();
      while (since(t) < cfg.timeout_ms && !rows.some((r) => r.includes(cfg.quickfix.find))) {
        await page.waitForTimeout(100);
        rows = await problemRows();
      }
      return { ...opened, problems: rows, ui_ms: since(t) };
    });
    await step('quick-fix', async () => {
      const at = locate(fixText, cfg.quickfix.find, 1, 1);
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
      // Other files of the workspace have errors of their own: the file's row goes.
      const listed = (r) => r.includes(cfg.quickfix.find) || r.startsWith(cfg.quickfix.file);
      let problems = await problemRows();
      while (since(applied) < cfg.timeout_ms && problems.some(listed)) {
        await page.waitForTimeout(100);
        problems = await problemRows();
      }
      return { from, offered, focused, text: line, problems, ui_ms: since(t) };
    });
  }
"""


def _step(report: dict, name: str) -> dict:
    return next((s for s in report.get("steps", []) if s.get("name") == name), {})


def test_a_quick_fix_from_the_light_bulb(editing_session: dict) -> None:
    report = editing_session
    opened = _step(report, "open-quickfix-file")
    problems = opened.get("problems") or []
    assert any("E0301" in row and FIX_AT in row for row in problems), opened
    fix = _step(report, "quick-fix")
    assert fix.get("ok"), (fix, report.get("error"), report.get("summary"))
    assert fix["from"] == "light bulb", fix
    assert any(FIX_TITLE.replace("`", "") in row.replace("`", "") for row in fix["offered"]), fix
    assert FIX_TITLE.replace("`", "") in fix["focused"].replace("`", ""), fix
    assert "relu(x) |> gelu" in fix["text"], fix
    assert "gelo" not in fix["text"], fix
    assert not any(FIX_AT in row or row.startswith(FILE) for row in fix["problems"]), fix
