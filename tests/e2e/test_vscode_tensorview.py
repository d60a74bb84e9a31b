"""The Tensor view's page in headless Chromium, in a light and a dark theme.

With the extension as the session's package compiled it (test_vscode.py's
`compiled_extension`), `tensorview_drive.js` renders the page that `tensorViewPage.ts`
builds, with a fake VS Code API answering tile requests as the server does: an attention
`[b H n m] Prob over m` (a causal softmax whose background above the diagonal is hatched)
with a NaN and a row that doesn't sum to 1, a 1500 × 1200 matrix it zooms into with the
wheel, a line of 3000 values and two `[b 3 h w] Unit` images, a grid of patches
`[b (gh gw) D]`, `Index[C]` labels with five classes and one out of range, and a matrix
whose few huge outliers leave the colors to the percentiles; tabs for several
expressions. Screenshots go to tests/e2e/artifacts/. Skipped only when the probe's
playwright-core or Chromium is missing.
"""

from __future__ import annotations

import json
import os
import shutil
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
    RUNNER,
    _missing_prerequisites,
    compiled_extension,
    package_extension,
)

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
DRIVE = Path(__file__).with_name("tensorview_drive.js")
ARTIFACTS = Path(__file__).with_name("artifacts")
PLAYWRIGHT = PROBE_HOME / "pw" / "node_modules" / "playwright-core"
CHROMIUM = os.environ.get("CHROMIUM_BIN") or shutil.which("chromium") or ""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    if not PLAYWRIGHT.is_dir() or not CHROMIUM or shutil.which("node") is None:
        pytest.skip("the vscode_probe install (playwright-core, chromium, node) is missing")
    # The page as the packaged extension has it: the session's package compiled it once.
    extension = compiled_extension()
    ARTIFACTS.mkdir(exist_ok=True)
    config = tmp_path_factory.mktemp("tensorview") / "config.json"
    config.write_text(
        json.dumps(
            {
                "playwright": str(PLAYWRIGHT),
                "chromium": CHROMIUM,
                "extension": str(extension),
                "out": str(ARTIFACTS),
            }
        )
    )
    done = subprocess.run(
        ["node", str(DRIVE), str(config)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_page_runs_without_errors_and_saves_both_themes(report: dict) -> None:
    assert report.get("errors") is None
    names = sorted(Path(shot).name for shot in report["shots"])
    for label in (
        "attention",
        "attention-show",
        "zoomed",
        "matrix",
        "line",
        "image",
        "patches",
        "index",
        "percentiles",
        "roles",
    ):
        for theme in ("light", "dark"):
            assert f"tensorview-{label}-{theme}.png" in names
            assert (ARTIFACTS / f"tensorview-{label}-{theme}.png").stat().st_size > 0


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_attention_is_small_multiples_over_heads_with_the_checks(report: dict, theme: str) -> None:
    att = report[f"att_{theme}"]
    # n on the rows, m on the columns, one heatmap per H, b on a slider at 0.
    assert sorted(request["at"] for request in att["requests"]) == ["0,0", "0,1", "0,2", "0,3"]
    assert {(request["rows"], request["cols"]) for request in att["requests"]} == {(2, 3)}
    assert att["sliders"] == ["b=0"]
    assert "✗ no NaN or ±∞ (1)" in att["checks"]
    assert "✗ each row sums to 1 over m (2)" in att["checks"]
    # A causal softmax's structure: its background, 0 above the diagonal, is there.
    assert "m > n is 0, as its structure promises" in att["checks"]
    assert report[f"att_tip_{theme}"].startswith("att[b=0, H=0, n=")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_wheel_zooms_a_large_matrix_down_to_single_values(report: dict, theme: str) -> None:
    zoom = report[f"w_{theme}"]
    assert {request["row_step"] for request in zoom["first"]} == {4}
    assert {request["row_step"] for request in zoom["last"]} == {1}
    assert zoom["tip"].startswith("m.w[n=") and " = " in zoom["tip"]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_one_axis_is_a_line_and_an_axis_of_three_is_the_color_channels(
    report: dict, theme: str
) -> None:
    line = report[f"loss_{theme}"]
    assert {(request["rows"], request["cols"], request["at"]) for request in line} == {(0, 1, "")}
    assert sorted(request["col"] for request in line) == [0, 2048]
    image = report[f"img_{theme}"]
    assert sorted(request["at"] for request in image) == ["0,0", "0,1", "0,2", "1,0", "1,1", "1,2"]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_show_zooms_to_the_first_row_that_does_not_sum_to_one(report: dict, theme: str) -> None:
    view = report[f"att_show_{theme}"]
    assert view["scale"] == 48
    assert view["row"] <= 5 < view["row"] + view["height"] / view["scale"]  # att[0, 1, 5]
    assert view["index"] == {"0": 0}


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_grid_of_patches_is_drawn_as_its_tokens_norms(report: dict, theme: str) -> None:
    tokens = report[f"tokens_{theme}"]
    # gh on the rows, gw on the columns, the norm over D, one heatmap per b.
    assert {(r["rows"], r["cols"], r["split"], r["reduce"]) for r in tokens["requests"]} == {
        (1, 2, "1:4,6", "3:norm")
    }
    assert sorted(r["at"] for r in tokens["requests"]) == ["0", "1"]
    assert report[f"tokens_tip_{theme}"].startswith("tokens[b=0, gh=")
    assert " (norm over D) = " in report[f"tokens_tip_{theme}"]
    assert tokens["tabs"] == ["att×", "tokens×", "labels×"]
    assert tokens["selected"] == "tokens×"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_index_values_have_categorical_colors_and_a_value_out_of_range_is_flagged(
    report: dict, theme: str
) -> None:
    labels = report[f"labels_{theme}"]
    assert labels["colors"] == "categorical"
    assert "✗ every value is a whole number in [0, 5) (1)" in labels["checks"]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_percentiles_span_the_colors_of_single_elements(report: dict, theme: str) -> None:
    acts = report[f"acts_{theme}"]
    assert acts["range"] == [-1.98, 1.98]
    assert acts["legend"] == "-1.98 … 1.98"
    assert report[f"stale_{theme}"]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_tabs_and_the_expression_box_tell_the_extension(report: dict, theme: str) -> None:
    assert report[f"sent_{theme}"] == [
        {"type": "select", "index": 2},
        {"type": "remove", "index": 0},
        {"type": "change", "expression": "tokens[0]"},
    ]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_legend_sets_the_range_and_an_axis_can_be_reduced(report: dict, theme: str) -> None:
    legend = report[f"legend_{theme}"]
    low, high = legend["dragged"]
    assert low == pytest.approx(-1.98) and abs(high) < 0.1  # dragged to the legend's middle
    assert legend["reset"] is None
    roles = report[f"roles_{theme}"]
    assert roles["requests"]
    assert {(r["reduce"], r["at"]) for r in roles["requests"]} == {
        ("0:mean", "0"),
        ("0:mean", "1"),
        ("0:mean", "2"),
        ("0:mean", "3"),
    }
    assert roles["sliders"] == []


# ------------------------------------------------------------ a real debugging session

DEBUG_DRIVE = Path(__file__).with_name("tensorview_debug_drive.js")


def test_view_tensor_in_real_vs_code_debugging(tmp_path: Path) -> None:
    """code-server with the packaged extension (and no Python Debugger extension, so the
    extension runs debugpy's adapter itself): F9 on a .ss line, F5, View Tensor from the
    palette for two expressions, another frame selected in Call Stack and back, and the
    Tensor view's page read in its webview."""
    missing = _missing_prerequisites()
    if missing:
        pytest.skip(missing)
    from tests.debugging.test_tensorview import MAIN, MODEL

    ws = tmp_path / "debug-ws"
    (ws / ".vscode").mkdir(parents=True)
    (ws / "model.ss").write_text(MODEL)
    (ws / "main.py").write_text(MAIN)
    path = os.pathsep.join([str(REPO / "compiler"), str(REPO / "server")])
    launch = {
        "type": "shapescript",
        "request": "launch",
        "name": "main",
        "program": "${workspaceFolder}/main.py",
        "python": sys.executable,
        "console": "internalConsole",
        "env": {"PYTHONPATH": path},
    }
    (ws / ".vscode" / "launch.json").write_text(json.dumps({"configurations": [launch]}))
    (ws / ".vscode" / "settings.json").write_text(
        json.dumps({"shapescript.python": sys.executable})
    )
    vsix = package_extension(tmp_path)
    runner = tmp_path / "run_probe.py"
    runner.write_text(RUNNER)
    shots = tmp_path / "shots"
    env = dict(os.environ)
    env["PYTHONPATH"] = path
    env["SS_E2E_DRIVE"] = str(DEBUG_DRIVE)
    env["SS_E2E_CONFIG"] = json.dumps(
        {
            # On `return t`, where every value the view is asked for is bound.
            "breakpoint_line": MODEL.splitlines().index("    return t") + 1,
            "expressions": [["att", "each row sums to 1 over m"], ["t", "no NaN"]],
            "follow": "att",
            "shot_prefix": "tensorview-vscode-",
        }
    )
    cmd = [
        sys.executable, str(runner), str(PROBE_DIR), str(vsix), OUTPUT_CHANNEL,
        QUICK_OPEN_RACE, QUICK_OPEN_WAIT,
        "--workspace", str(ws), "--file", "model.ss",
        "--server-cmd", f"{sys.executable} -m shapescript_lsp",
        "--home", str(PROBE_HOME), "--out", str(shots), "--timeout-ms", "20000",
        "--hover", "", "--completion", "", "--definition", "", "--edit", "",
    ]  # fmt: skip
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL, env=env
    )
    ARTIFACTS.mkdir(exist_ok=True)
    for shot in shots.glob("*.png"):
        shutil.copy(shot, ARTIFACTS / shot.name)
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"the probe printed no JSON (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    steps = {step["name"]: step for step in report.get("steps", [])}
    summary = "\n".join(report.get("summary", [])) + f"\n{report.get('exthost_log_tail')}"
    assert steps.get("stop-at-breakpoint", {}).get("ok"), summary
    att = steps["view-att"]
    assert att.get("ok"), summary
    assert att["title"].startswith("att: [b n m] Prob over m")
    assert "✗ no NaN or ±∞ (1)" in att["checks"]
    assert "✗ each row sums to 1 over m (2)" in att["checks"]
    follow = steps["follow-frame"]
    assert follow.get("ok"), summary
    assert follow["python"] == "att: [2 3 4] float32"  # main.py's att: no ShapeScript type
    assert follow["back"].startswith("att: [b n m] Prob over m")
    patches = steps["view-t"]
    assert patches.get("ok"), summary
    assert patches["title"].startswith("t: [b (gh gw) (p1 p2 c)]")
    assert patches["tabs"] == ["att×", "t×"]
    assert patches["roles"] == ["multiples", "rows", "cols", "norm"]
