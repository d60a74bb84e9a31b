"""VS Code end to end: a quick fix applied from the light bulb, in a real VS Code.

The packaged extension runs in VS Code 1.100 (code-server in headless Chromium), driven
by the shared probe as `test_vscode.py` drives it, in the VS Code this test shares with
the names and notebook tests (editing_session.py). The probe's drive.js gets one more
step here: put the cursor on a misspelt name, click the light bulb that appears, choose
the quick fix, and read the editor's line and the Problems panel afterwards.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.slow

TYPO = """\
dim D = 64

fn f(x: [b D]) -> [b D] = relu(x) |> gelo
"""
FIX_AT = "gelo"
FIX_TITLE = "Change `gelo` to `gelu`"

#: The step added to drive.js, before it opens the output channel (editing_session.py).
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
"""


def _step(report: dict, name: str) -> dict:
    return next((s for s in report.get("steps", []) if s.get("name") == name), {})


def test_a_quick_fix_from_the_light_bulb(editing_session: dict) -> None:
    report = editing_session
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
