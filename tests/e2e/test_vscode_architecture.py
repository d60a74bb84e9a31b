"""VS Code end to end: the Architecture tab, in a real VS Code, driven like a person.

Packages `vscode-extension/` into a .vsix as test_vscode.py does, opens a workspace
holding examples/gpt.ss (its model parameter written `net`) with the shared probe
(`vscode_probe.py`) in the light theme, and runs `architecture_drive.js` in place of the
probe's own script: it clicks the model's name (the tab must not open by itself), opens
the tab from the code lens, reads the SVG inside its webview, clicks a box and reads the
editor's selection, presses Fit and measures the drawing against the tab, measures every
label at both levels, and takes screenshots in the light theme and then the dark one, all
in one VS Code, copied to tests/e2e/artifacts/. Skipped only when the probe's own install
is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shapescript.analysis import check
from shapescript.architecture import architecture
from shapescript.architecture.nodes import walk
from shapescript.syntax.source import SourceFile
from tests.e2e.test_vscode import (
    OUTPUT_CHANNEL,
    PROBE_DIR,
    PROBE_HOME,
    _missing_prerequisites,
    package_extension,
)

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
DRIVE = Path(__file__).with_name("architecture_drive.js")
ARTIFACTS = Path(__file__).with_name("artifacts")
GPT = REPO / "examples" / "gpt.ss"
#: A model with long names, whose labels must fit as well as the GPT's.
LONG_NAMES = REPO / "tests" / "architecture" / "data" / "long_names.ss"
BOX = "forward.6"  # the attention inside the transformer block
LIGHT_THEME = "Default Light Modern"
SCREENSHOTS = (
    "architecture-light.png",
    "architecture-fit-light.png",
    "architecture-operations-light.png",
    "architecture-operations-zoomed-light.png",
    "architecture-operations-dark.png",
    "architecture-operations-zoomed-dark.png",
    "architecture-dark.png",
    "architecture-long-names-dark.png",
)

RUNNER = """\
import json, subprocess, sys
from pathlib import Path

probe_dir, vsix, drive, channel, box, theme = sys.argv[1:7]
sys.argv = [str(Path(probe_dir) / "vscode_probe.py")] + sys.argv[7:]
sys.path.insert(0, probe_dir)
import vscode_probe as probe

probe.build_vsix = lambda node_modules, dest: Path(vsix)
probe.SETTINGS = {**probe.SETTINGS, "workbench.colorTheme": theme}
_run = subprocess.run


def run(cmd, *args, **kwargs):
    if isinstance(cmd, list) and len(cmd) == 3 and cmd[0] == "node" and cmd[1].endswith("drive.js"):
        cfg = Path(cmd[2])
        extra = {"output_channel": channel, "box": box, "long_names_file": "long_names.ss"}
        cfg.write_text(json.dumps({**json.loads(cfg.read_text()), **extra}))
        cmd = ["node", drive, cmd[2]]
    return _run(cmd, *args, **kwargs)


probe.subprocess.run = run
sys.exit(probe.main())
"""


def written_net() -> str:
    """examples/gpt.ss with its model parameter written `net` (the axis `m` kept), so
    that the labels of every operation show the name the code writes."""
    text = GPT.read_text(encoding="utf-8")
    text = text.replace("m: Gpt", "net: Gpt").replace("(m, ", "(net, ")
    return re.sub(r"\bm\.(?=[a-z])", "net.", text)


def expected_selection(text: str) -> str:
    """What the status bar says once the attention box's code is selected: the line the
    selection ends on (where the cursor is) and how many characters it holds."""
    checked = check(SourceFile.from_text("gpt.ss", text))
    found = architecture(checked, "Gpt", "layers")
    node = next(n for s in found.sections for n in walk(s.nodes) if n.id == BOX)
    assert node.kind == "attention"
    end = checked.source.position(node.span.end)
    return f"Ln {end.line}, Col {end.column} ({node.span.end - node.span.start} selected)"


def run_probe(vsix: Path, work: Path) -> dict:
    ws = work / "gpt-workspace"
    (ws / ".vscode").mkdir(parents=True)
    (ws / "gpt.ss").write_text(written_net(), encoding="utf-8")
    shutil.copy(LONG_NAMES, ws / LONG_NAMES.name)
    (ws / ".vscode" / "settings.json").write_text(
        json.dumps({"shapescript.python": sys.executable}, indent=2)
    )
    runner = work / "run_probe.py"
    runner.write_text(RUNNER)
    shots = work / "shots"
    env = dict(os.environ)
    paths = [str(REPO / "compiler"), str(REPO / "server")]
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    cmd = [
        sys.executable, str(runner), str(PROBE_DIR), str(vsix), str(DRIVE), OUTPUT_CHANNEL, BOX,
        LIGHT_THEME,
        "--workspace", str(ws), "--file", "gpt.ss",
        "--server-cmd", f"{sys.executable} -m shapescript_lsp",
        "--home", str(PROBE_HOME), "--out", str(shots), "--timeout-ms", "30000",
        "--hover", "", "--completion", "", "--definition", "", "--edit", "",
    ]  # fmt: skip
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL, env=env
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"the probe printed no JSON:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    ARTIFACTS.mkdir(exist_ok=True)
    for name in SCREENSHOTS:
        if (shots / name).is_file():
            shutil.copy(shots / name, ARTIFACTS / f"vscode-{name}")
    return report


def _step(report: dict, name: str) -> dict:
    return next((s for s in report.get("steps", []) if s.get("name") == name), {})


def test_architecture_tab_draws_the_gpt_and_selects_code(tmp_path: Path) -> None:
    reason = _missing_prerequisites()
    if reason:
        pytest.skip(reason)
    vsix = package_extension(tmp_path)
    report = run_probe(vsix, tmp_path)
    (tmp_path / "report.json").write_text(json.dumps(report, indent=2))
    where = f"report: {tmp_path / 'report.json'}; summary: {report.get('summary')}"
    clicked_name = _step(report, "click-model-name")
    assert clicked_name.get("ok"), f"clicking the model's name failed: {clicked_name}; {where}"
    assert clicked_name["opened_by_itself"] is False, "the tab opened without being asked"
    shown = _step(report, "open-from-code-lens")
    assert shown.get("ok"), f"the Architecture tab didn't show the drawing: {shown}; {where}"
    assert shown["tab"].startswith("Architecture: Gpt")
    texts = " | ".join(shown["texts"])
    for layer in (
        "Embedding V → D",
        "Transformer block × L = 6",
        "Multi-head attention · H heads · causal",
        "MLP D → Dff → D · GELU",
        "Linear D → V · tied to wte",
        "Cross-entropy over V",
    ):
        assert layer in texts, f"{layer!r} isn't in the tab's SVG: {texts}"
    assert "Transformer block × 6" in shown["summary"]
    assert shown["svg_has_data_nodes"] > 10
    assert shown["editor_kept_focus"], "following the cursor took the focus"
    assert shown["clipped"] == [], f"labels cut at the layers level: {shown['clipped']}"
    clicked = _step(report, "click-box")
    assert clicked.get("ok"), f"clicking a box failed: {clicked}; {where}"
    # The whole lines of the attention's operations, its `q, k, v = … |> split(…)` included.
    assert clicked["selection_after"] == expected_selection(written_net()), clicked
    fit = _step(report, "fit")
    assert fit.get("ok"), f"pressing Fit failed: {fit}; {where}"
    assert fit["zoomed"]["scrolls"], f"zoomed in, the drawing should overflow the tab: {fit}"
    assert fit["fitted"]["inside"], f"after Fit the drawing isn't inside the tab: {fit}"
    assert not fit["fitted"]["scrolls"], f"after Fit the tab still scrolls: {fit}"
    assert fit["fitted"]["fills"] > 0.9, f"Fit leaves the drawing smaller than the tab: {fit}"
    operations = _step(report, "operations")
    assert operations.get("ok"), f"switching to every operation failed: {operations}; {where}"
    beside = [text for text in operations["texts"] if text.startswith("←")]
    for label in ("← net.wte [V D]", "← net.w_qkv [D 3*D]", "← net.lnf_w [D]"):
        assert label in beside, f"{label!r} isn't beside its operation: {beside}"
    assert not [text for text in beside if text.startswith("← m.")], beside
    assert operations["clipped"] == [], f"labels cut: {operations['clipped']}"
    assert operations["fitted"]["inside"], operations["fitted"]
    dark = _step(report, "dark-theme")
    assert dark.get("ok"), f"switching to a dark theme failed: {dark}; {where}"
    assert dark["background"] != clicked["background"], "the tab didn't follow the theme"
    dark_layers = _step(report, "dark-layers")
    assert dark_layers.get("ok"), f"going back to the layers failed: {dark_layers}; {where}"
    assert dark_layers["fitted"]["inside"], dark_layers["fitted"]
    long_names = _step(report, "long-names")
    assert long_names.get("ok"), f"drawing the model with long names failed: {long_names}; {where}"
    assert "← language_model.token_embedding_table_weight [V D]" in long_names["operations"]
    assert long_names["clipped_layers"] == [], long_names["clipped_layers"]
    assert long_names["clipped_operations"] == [], long_names["clipped_operations"]
    assert report.get("server_crashes") == 0, _step(report, "output-channel")
