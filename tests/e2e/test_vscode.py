"""VS Code end to end: the packaged extension in a real VS Code, driven like a person.

Packages `vscode-extension/` (npm ci, compile, vsce package) into a .vsix,
installs it into VS Code 1.100 (code-server in headless Chromium) with the
shared probe, `vscode_probe.py`, opens a file with one deliberate error,
broken.ss, and checks what is on the screen: the language mode, the Problems
panel, a hover, completion, go to definition, and Problems after typing.

Those steps run first in the VS Code the editing tests share
(editing_session.py), whose workspace also holds their files; if what they see
isn't right, they run once more in a VS Code of their own, in a workspace with
broken.ss and a copy of examples/attention.ss, and the test fails only if that
run sees something wrong too. The hover-pictures test below reads its steps
from the same VS Code: pictures.ss hovered in the light theme the session
starts in, then in the dark one.

The server runs as `<this Python> -m shapescript_lsp` (the workspace's
`shapescript.python` setting). The probe lives outside the repository, in
$SHAPESCRIPT_CLIENTS (default: <repo>/../shared/clients), and needs its own
one-time install (`bash vscode_probe/install.sh`): the test is skipped only
when that install (code-server, playwright-core, Chromium) or the probe is
missing, and fails on anything else, packaging included.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest

from tests.e2e.clients import clients_dir

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "vscode-extension"
CLIENTS = clients_dir()
PROBE_DIR = CLIENTS / "vscode_probe"
PROBE = PROBE_DIR / "vscode_probe.py"
PROBE_HOME = Path(
    os.environ.get("VSCODE_PROBE_HOME") or Path(tempfile.gettempdir()) / "vscode-probe-home"
)
OUTPUT_CHANNEL = "ShapeScript"  # the extension's output channel (server stderr, client log)

# The file opened in VS Code: one deliberate error (E0401, on line 11), and the
# names the steps below act on.
BROKEN = """\
# A file with one deliberate mistake, for the VS Code end-to-end test.

dim D = 64
dim V = 1000

## Vocabulary logits for each token.
fn logits(x: [b n D], w: [D V]) -> [b n V] = x @ w

## The same, with the weight the wrong way round: one error, on the call.
fn scores(x: [b n D], w: [V D]) -> [b n V]:
    h = logits(x, w)
    return h
"""
ERROR_CODE = "E0401"  # `logits` can't take this as `w`: [V D] where [D V] is expected
DEFINITION_LINE = 7  # fn logits
# Where the probe acts, as TEXT#OCCURRENCE+OFFSET (the 2nd "logits(x" is the call on line 11).
HOVER_AT = "logits(x#2+7"  # on x
COMPLETION_AT = "logits(x#2+2"  # after "lo" of logits
DEFINITION_AT = "logits(x#2+2"  # on logits
EDIT_AT = "logits(x#2+8|5"  # type "5" after x: x5 is an unknown name
EDIT_CODE = "E0301"
#: The token colours the grammar gives the opened file at least.
MIN_TOKEN_CLASSES = 5

# The probe builds and installs its own demo extension; this runs it with the
# packaged .vsix instead, and points drive.js at our output channel. Both are
# plain module attributes of vscode_probe.py, patched in this process only.
#
# drive.js presses Enter 500 ms after typing the file name into Quick Open. On
# a busy machine the file results come later ("No search provider registered
# for scheme: vscode-remote, waiting"), Enter lands on an empty list, and no
# editor ever opens, so every later step fails. The runner uses a copy of
# drive.js that waits for the file in the list first (if the text it changes
# is still there; otherwise drive.js runs as it is).
QUICK_OPEN_RACE = """    await page.keyboard.type(cfg.file);
    await page.waitForTimeout(500);
    await page.keyboard.press('Enter');"""
QUICK_OPEN_WAIT = """    await page.keyboard.type(cfg.file);
    await page.waitForTimeout(500);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: path.basename(cfg.file) })
      .first().waitFor({ state: 'visible', timeout: cfg.timeout_ms });
    await page.keyboard.press('Enter');"""

# drive.js counts the token colours as soon as the status bar names the language; the
# grammar colours the text a moment later, and on a busy machine the count can come
# first. The copy waits, up to 10 s, for the number of colours the config's
# `min_token_classes` asks for (none unless given).
TOKEN_COUNT_RACE = (
    "    const tokens = await editor.locator('.view-lines span[class*=\"mtk\"]').evaluateAll(\n"
    "      (els) => [...new Set(els.map((e) => e.className))].length);"
)
TOKEN_COUNT_WAIT = """    let tokens = 0;
    for (let i = 0; i < 40; i++) {
      tokens = await editor.locator('.view-lines span[class*="mtk"]').evaluateAll(
        (els) => [...new Set(els.map((e) => e.className))].length);
      if (tokens >= (cfg.min_token_classes || 0)) break;
      await page.waitForTimeout(250);
    }"""

# drive.js reads the Problems panel at its first change after typing. The panel redraws
# in steps: the file's count and the moved old row can show a frame before the new row,
# so the first change can miss the new diagnostic. The copy waits, up to the step's
# timeout, for a row with the config's `edit_expect` text (the first change, as before,
# when none is given).
EDIT_RACE = (
    "      while (since(t) < cfg.timeout_ms && JSON.stringify(rows) === JSON.stringify(before)) {"
)
EDIT_WAIT = """      const settled = (r) => JSON.stringify(r) !== JSON.stringify(before)
        && (!cfg.edit_expect || r.some((row) => row.includes(cfg.edit_expect)));
      while (since(t) < cfg.timeout_ms && !settled(rows)) {"""

RUNNER = (
    f"TOKEN_RACE = {TOKEN_COUNT_RACE!r}\nTOKEN_WAIT = {TOKEN_COUNT_WAIT!r}\n"
    f"EDIT_RACE = {EDIT_RACE!r}\nEDIT_WAIT = {EDIT_WAIT!r}\n"
    + """\
import json, os, shutil, subprocess, sys, tempfile
from pathlib import Path

probe_dir, vsix, channel, race, wait = sys.argv[1:6]
sys.argv = [str(Path(probe_dir) / "vscode_probe.py")] + sys.argv[6:]
sys.path.insert(0, probe_dir)
import vscode_probe as probe

probe.build_vsix = lambda node_modules, dest: Path(vsix)
# Optional: VS Code settings added to the probe's, a drive script that replaces drive.js,
# and entries added to drive.js's config.
probe.SETTINGS = {**probe.SETTINGS, **json.loads(os.environ.get("SS_E2E_SETTINGS") or "{}")}
extra = json.loads(os.environ.get("SS_E2E_CONFIG") or "{}")
drive = (Path(probe_dir) / "drive.js").read_text()
replacement = os.environ.get("SS_E2E_DRIVE")
patched = None
if replacement or any(r in drive for r in (race, TOKEN_RACE, EDIT_RACE)):
    patched = Path(tempfile.mkdtemp(prefix="vscode-probe-drive-"))
    text = Path(replacement).read_text() if replacement else drive.replace(race, wait)
    text = text.replace(TOKEN_RACE, TOKEN_WAIT).replace(EDIT_RACE, EDIT_WAIT)
    (patched / "drive.js").write_text(text)
    if replacement:  # the replacements share drive_common.js, found beside them
        shutil.copy(Path(replacement).with_name("drive_common.js"), patched)
    probe.HERE = patched  # only drive.js is read through HERE after import
_run = subprocess.run


def run(cmd, *args, **kwargs):
    if isinstance(cmd, list) and len(cmd) == 3 and cmd[0] == "node" and cmd[1].endswith("drive.js"):
        cfg = Path(cmd[2])
        config = {**json.loads(cfg.read_text()), "output_channel": channel, **extra}
        cfg.write_text(json.dumps(config))
        # The probe gives drive.js 60 s and ten steps' time; a drive of more steps asks for more.
        if os.environ.get("SS_E2E_DRIVE_TIMEOUT"):
            kwargs["timeout"] = float(os.environ["SS_E2E_DRIVE_TIMEOUT"])
    return _run(cmd, *args, **kwargs)


probe.subprocess.run = run
try:
    sys.exit(probe.main())
finally:
    if patched is not None:
        shutil.rmtree(patched, ignore_errors=True)
"""
)


def _missing_prerequisites() -> str | None:
    """Why the probe can't run here, if its own install is missing; None if it can."""
    chromium = os.environ.get("CHROMIUM_BIN") or "chromium"
    missing = []
    if not PROBE.is_file():
        missing.append(f"the probe {PROBE} (set SHAPESCRIPT_CLIENTS)")
    if not (PROBE_HOME / "cs" / "node_modules" / ".bin" / "code-server").exists():
        missing.append(f"code-server under {PROBE_HOME}/cs")
    if not (PROBE_HOME / "pw" / "node_modules" / "playwright-core").is_dir():
        missing.append(f"playwright-core under {PROBE_HOME}/pw")
    if not shutil.which(chromium):
        missing.append(f"chromium ({chromium})")
    for tool in ("node", "npm"):
        if not shutil.which(tool):
            missing.append(tool)
    if missing:
        return (
            "VS Code probe prerequisites missing: "
            + ", ".join(missing)
            + f"; install them with `bash {PROBE_DIR / 'install.sh'}`"
        )
    return None


def _run(cmd: list[str], cwd: Path, timeout: int) -> None:
    proc = subprocess.run(
        cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    if proc.returncode != 0:
        pytest.fail(
            f"`{' '.join(cmd)}` failed in {cwd} (exit {proc.returncode}):\n"
            f"{(proc.stdout + proc.stderr)[-4000:]}"
        )


_PACKAGED: dict[str, Path] = {}


def package_extension(work: Path) -> Path:
    """The extension packaged as a .vsix, built once per test session and copied into `work`.

    Packaging (npm ci, compile, vsce package) takes about a minute, and every real-VS Code
    test needs the same package; a failed build fails each test that asks for it.
    """
    vsix = work / "shapescript.vsix"
    shutil.copyfile(_packaged() / "shapescript.vsix", vsix)
    return vsix


def compiled_extension() -> Path:
    """The copy of vscode-extension/ that was packaged, with its compiled out/ folder."""
    return _packaged() / "vscode-extension"


def _packaged() -> Path:
    """The folder of the session's package: the .vsix and the extension it was built from."""
    if "build" not in _PACKAGED:
        build = Path(tempfile.mkdtemp(prefix="shapescript-vsix-"))
        atexit.register(shutil.rmtree, build, ignore_errors=True)
        _build_package(build)
        _PACKAGED["build"] = build
    return _PACKAGED["build"]


def _build_package(work: Path) -> Path:
    """npm ci (or a link to the installed packages) and vsce package, which compiles, in a
    copy of vscode-extension/ in `work`; returns the .vsix."""
    src = work / "vscode-extension"
    shutil.copytree(
        EXTENSION,
        src,
        ignore=shutil.ignore_patterns("node_modules", "out", "*.vsix", ".vscode-test"),
    )
    installed = EXTENSION / "node_modules"
    if _same_lockfile(installed):
        # scripts/install-editors.sh ran `npm ci` in vscode-extension/ from the same lockfile:
        # linking its packages saves the test run a second install (half a minute or more).
        (src / "node_modules").symlink_to(installed, target_is_directory=True)
    else:
        _run(["npm", "ci", "--no-audit", "--no-fund"], src, timeout=600)
    vsix = work / "shapescript.vsix"
    # vsce compiles first: package.json's `vscode:prepublish` runs `npm run compile`.
    _run(["npx", "--no-install", "vsce", "package", "--out", str(vsix)], src, timeout=300)
    assert vsix.is_file(), "vsce package wrote no .vsix"
    return vsix


def _same_lockfile(node_modules: Path) -> bool:
    """Whether `node_modules` was installed from vscode-extension/'s current package-lock.json
    (npm writes what it installed to node_modules/.package-lock.json; optional packages for
    other platforms are left out)."""
    try:
        installed = json.loads((node_modules / ".package-lock.json").read_text())
        wanted = json.loads((EXTENSION / "package-lock.json").read_text())
    except (OSError, ValueError):
        return False
    have = installed.get("packages", {})
    for path, entry in wanted.get("packages", {}).items():
        if path and have.get(path) != entry and not (path not in have and entry.get("optional")):
            return False
    return bool(have)


def make_workspace(root: Path) -> Path:
    ws = root / "shapescript-e2e"
    (ws / ".vscode").mkdir(parents=True)
    shutil.copy(REPO / "examples" / "attention.ss", ws / "attention.ss")
    (ws / "broken.ss").write_text(BROKEN)
    (ws / ".vscode" / "settings.json").write_text(
        json.dumps({"shapescript.python": sys.executable}, indent=2)
    )
    return ws


#: The probe's own steps after opening the file, each TEXT#OCCURRENCE+OFFSET; "" skips one.
NO_PROBE_STEPS = {"hover": "", "completion": "", "definition": "", "edit": ""}


def run_vscode_probe(
    vsix: Path,
    workspace: Path,
    file: str,
    work: Path,
    *,
    probe_steps: dict[str, str] = NO_PROBE_STEPS,
    timeout_ms: int | None = None,
    drive: Path | None = None,
    config: dict | None = None,
    settings: dict | None = None,
    environment: dict[str, str] | None = None,
    runner: str = RUNNER,
) -> dict:
    """One run of the shared probe through `runner` (RUNNER, or a copy that adds to it): VS
    Code with the packaged `vsix`, opening `file` in `workspace`, screenshots in work/shots.

    `drive` replaces the probe's drive.js, `config` is added to drive.js's config and
    `settings` to VS Code's; `environment` is added to this process's for the probe. Returns
    the probe's report, with `_shots`, `_exit` and `_stderr` added; fails the test when the
    probe printed no report."""
    script = work / "run_probe.py"
    script.write_text(runner)
    shots = work / "shots"
    cmd = [
        sys.executable, str(script), str(PROBE_DIR), str(vsix), OUTPUT_CHANNEL,
        QUICK_OPEN_RACE, QUICK_OPEN_WAIT,
        "--workspace", str(workspace), "--file", file,
        "--server-cmd", f"{sys.executable} -m shapescript_lsp",
        "--home", str(PROBE_HOME), "--out", str(shots),
    ]  # fmt: skip
    if timeout_ms is not None:
        cmd += ["--timeout-ms", str(timeout_ms)]
    for name, spot in {**NO_PROBE_STEPS, **probe_steps}.items():
        cmd += [f"--{name}", spot]
    env = {**os.environ, **(environment or {})}
    for variable, value in (
        ("SS_E2E_DRIVE", str(drive) if drive else None),
        ("SS_E2E_CONFIG", json.dumps(config) if config else None),
        ("SS_E2E_SETTINGS", json.dumps(settings) if settings else None),
    ):
        if value is None:
            env.pop(variable, None)
        else:
            env[variable] = value
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL, env=env
    )
    report = probe_report(proc)
    report["_shots"] = str(shots)
    report["_exit"] = proc.returncode
    report["_stderr"] = proc.stderr[-2000:]
    return report


def probe_report(proc: subprocess.CompletedProcess[str]) -> dict:
    """The JSON report a probe run printed; fails the test, with the run's output, if none."""
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        report = None
    if not isinstance(report, dict):
        pytest.fail(
            f"the VS Code probe printed no JSON report (exit {proc.returncode}):\n"
            f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    return report


#: The probe's steps in BROKEN, and what they add to drive.js's config.
E2E_STEPS = {
    "hover": HOVER_AT,
    "completion": COMPLETION_AT,
    "definition": DEFINITION_AT,
    "edit": EDIT_AT,
}
E2E_CONFIG = {"min_token_classes": MIN_TOKEN_CLASSES, "edit_expect": EDIT_CODE}
#: The probe's own steps, which check_report reads: the editing session adds others.
E2E_STEP_NAMES = (
    "open-workbench",
    "open-file",
    "diagnostics",
    "hover",
    "completion",
    "definition",
    "edit",
    "output-channel",
)


def run_probe(vsix: Path, ws: Path, file: str, work: Path) -> dict:
    """The probe's own drive.js in `ws`, with the hover, completion, definition and edit steps
    at this file's spots."""
    return run_vscode_probe(
        vsix, ws, file, work, probe_steps=E2E_STEPS, config=E2E_CONFIG, timeout_ms=20000
    )


def _step(report: dict, name: str) -> dict:
    return next((s for s in report.get("steps", []) if s.get("name") == name), {})


def _error_count(problems_status: str | None) -> int | None:
    """The number of errors in the status bar's Problems item, e.g. 'Errors: 1, Warnings: 0'."""
    m = re.search(r"(\d+)\s*errors?|errors?:?\s*(\d+)", problems_status or "", re.I)
    return int(m.group(1) or m.group(2)) if m else None


def check_report(report: dict) -> list[str]:
    """Everything a person would see, each failure as one line."""
    failures: list[str] = []

    def expect(ok: bool, what: str, seen: object) -> None:
        if not ok:
            failures.append(f"{what}; saw {json.dumps(seen)[:600]}")

    if report.get("error"):
        failures.append(f"the probe stopped: {report['error'][:1000]}")
    install = report.get("install_extension", {})
    expect(install.get("ok"), "the .vsix installs into VS Code", install.get("output"))

    opened = _step(report, "open-file")
    expect(
        "ShapeScript" in (opened.get("language_mode") or ""),
        "the status bar's language mode is ShapeScript",
        opened.get("language_mode"),
    )
    expect(
        (opened.get("distinct_token_classes") or 0) >= MIN_TOKEN_CLASSES,
        "the grammar colours the file (>= 5 token colours)",
        opened.get("distinct_token_classes"),
    )

    diags = _step(report, "diagnostics")
    rows = diags.get("problems") or []
    expect(
        diags.get("ok") and any(ERROR_CODE in r for r in rows),
        f"the Problems panel lists the deliberate error with its code {ERROR_CODE}",
        {"status": diags.get("problems_status"), "rows": rows, "error": diags.get("error")},
    )
    expect(
        _error_count(diags.get("problems_status")) == 1,
        "the status bar counts exactly one error",
        diags.get("problems_status"),
    )

    hover = _step(report, "hover")
    expect(
        "[b n D]" in (hover.get("text") or ""),
        "hover on x in `logits(x, w)` shows its type [b n D]",
        {"text": hover.get("text"), "error": hover.get("error")},
    )

    completion = _step(report, "completion")
    expect(
        "logits" in (completion.get("labels") or []),
        "Ctrl+Space after `lo` offers the name logits",
        {"labels": (completion.get("labels") or [])[:20], "error": completion.get("error")},
    )

    definition = _step(report, "definition")
    after = definition.get("cursor_after") or ""
    expect(
        definition.get("ok") and re.match(rf"Ln {DEFINITION_LINE}\b", after),
        f"F12 on the call of logits moves the cursor to its definition on line {DEFINITION_LINE}",
        {
            "before": definition.get("cursor_before"),
            "after": after,
            "error": definition.get("error"),
        },
    )

    edit = _step(report, "edit")
    expect(
        edit.get("ok") and any(EDIT_CODE in r for r in edit.get("problems_after") or []),
        f"typing x5 (an unknown name) puts {EDIT_CODE} in the Problems panel",
        {"problems_after": edit.get("problems_after"), "error": edit.get("error")},
    )

    expect(
        report.get("server_crashes") == 0,
        "the language server never crashed",
        _step(report, "output-channel").get("text"),
    )
    failed_steps = [
        s for s in report.get("summary", []) if ": FAIL" in s and s.split(":")[0] in E2E_STEP_NAMES
    ]
    expect(not failed_steps, "every probe step succeeded", failed_steps)
    return failures


def test_vscode_extension_end_to_end(editing_session: dict, tmp_path: Path) -> None:
    """The probe's steps in broken.ss, read from the VS Code the editing tests share
    (editing_session.py), which opens broken.ss first."""
    report = editing_session
    (tmp_path / "report.json").write_text(json.dumps(report, indent=2))
    failures = check_report(report)
    if failures:
        # A real editor driven through its UI: the Problems panel can be read a moment
        # before it updates. One more run, a VS Code of its own in a fresh workspace, tells
        # a slow panel from a wrong one; the test fails only if both runs see something wrong.
        warnings.warn(f"VS Code run 1 saw: {failures}; running it again", stacklevel=1)
        vsix = package_extension(tmp_path)
        work = tmp_path / "run2"
        work.mkdir()
        report = run_probe(vsix, make_workspace(work), "broken.ss", work)
        (tmp_path / "report.json").write_text(json.dumps(report, indent=2))
        failures = check_report(report)
    if failures:
        channel = _step(report, "output-channel").get("text")
        pytest.fail(
            "what VS Code showed isn't right:\n- "
            + "\n- ".join(failures)
            + f"\n\nprobe summary: {json.dumps(report.get('summary'), indent=1)}"
            + f"\noutput channel ({OUTPUT_CHANNEL}):\n{channel}"
            + f"\nextension host log:\n{report.get('exthost_log_tail')}"
            + f"\nscreenshots: {report.get('out_dir')}, whole report: {tmp_path / 'report.json'}",
            pytrace=False,
        )


# ---------------------------------------------------------------------- hover pictures

ARTIFACTS = REPO / "tests" / "e2e" / "artifacts"
PICTURES_FILE = "pictures.ss"
PICTURES = """\
dim D = 64
dim H = 4
## The head size $D_h = \\frac{D}{H}$: each $q_i \\cdot k_j$ sums $D_h$ products.
dim Dh = D / H

# Scores are scaled by $\\frac{1}{\\sqrt{Dh}}$ before the softmax.
fn shrink(x: [b n]) -> [b n]:
    return x * 0.001 - 0.0005

fn patchify(img: [b 3 32 32]) -> [b 16 192]:
    patches = img |> rearrange(b c (h p1) (w p2) -> b (h w) (p1 p2 c), p1=8, p2=8)
    return patches

fn attend(x: [b n D], w_qkv: [D 3*D]) -> [b H n n]:
    q, k, v = x @ w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    hidden = x |> gelu
    scores = einsum(q, k: b H n Dh, b H m Dh -> b H n m)
        |> softmax(over=m)
    return scores

fn classify(x: [b n D], g: [D], z: [b D]) -> [b D] Prob over D:
    h = layer_norm(x, over=D, weight=g)
    return softmax(z, over=D)
"""
#: What is hovered, where (as drive.js's TEXT#OCCURRENCE+OFFSET, offsets 0-based), and a
#: piece of the hover's text that says it is the right hover.
HOVERS = [
    ("function-picture", {"find": "fn shrink", "offset": 4}, "fn shrink(x: [b n]) -> [b n]"),
    ("comment-math", {"find": "\\frac", "occurrence": 2, "offset": 2}, "1/√Dh"),
    ("doc-math", {"find": "dim Dh", "offset": 4}, "The head size"),
    ("tensor", {"find": "hidden =", "offset": 1}, "hidden: [b n D]"),
    ("softmax-stage", {"find": "|> softmax", "offset": 0}, "Prob over m"),
    ("patchify", {"find": "-> b (h w)", "offset": 0}, "[b 3 32 32]  →  [b (h w) (p1 p2 c)]"),
    ("activation", {"find": "gelu", "offset": 1}, "gelu"),
    ("softmax-call", {"find": "softmax(z", "offset": 2}, "softmax(z: [b D], over=D) -> [b D]"),
    (
        "layer-norm-call",
        {"find": "layer_norm(", "offset": 2},
        "layer_norm(x: [b n D], over=D, weight=g: [D]) -> [b n D]",
    ),
    ("gelu-stage", {"find": "|> gelu", "offset": 0}, "Values: (−∞, ∞) → [−0.17, ∞)"),
]
THEMES = {"light": "Default Light Modern", "dark": "Default Dark Modern"}
#: Each theme of THEMES as the colour theme picker (Ctrl+K Ctrl+T) names it, and the class
#: VS Code's workbench has in it.
THEME_LABELS = {"light": "Light Modern", "dark": "Dark Modern"}
WORKBENCH_KINDS = {"light": "vs", "dark": "vs-dark"}
#: A label is visible when pixels of a colour this far from the background (WCAG contrast
#: ratio) make up at least this share of the image.
LABEL_CONTRAST = 4.5
LABEL_SHARE = 0.003


def luminance(pixel: tuple[int, int, int]) -> float:
    """WCAG relative luminance."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in pixel[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def legibility(path: Path) -> dict:
    """What an image shown in a hover looks like: its background (the commonest colour), how
    many colours it has, and the share of pixels that contrast with the background as text
    must (its labels), with the best contrast among the colours that make up at least 0.1%."""
    from PIL import Image

    image = Image.open(path).convert("RGB")
    colours = image.getcolors(maxcolors=image.width * image.height)
    total = image.width * image.height
    background = max(colours)[1]
    legible = sum(
        count for count, colour in colours if contrast(colour, background) >= LABEL_CONTRAST
    )
    common = [colour for count, colour in colours if count >= total / 1000]
    return {
        "size": image.size,
        "background": background,
        "background_luminance": round(luminance(background), 3),
        "colours": len(colours),
        "label_share": round(legible / total, 4),
        "best_contrast": round(max(contrast(c, background) for c in common), 2),
    }


def worker_picture(alt: str) -> bool:
    """Whether an image is a picture of what a function does, drawn from the torch worker's
    run: its alt text names the values drawn with their types (`stage_input: [b n]`). Those
    are only checked for legible labels here; the pictures the server draws itself (shapes,
    patterns, curves, math) must also be on the theme's background."""
    return ": [" in alt


#: The steps added to drive.js in the editing session (editing_session.py), after the others:
#: pictures.ss opened (`openOther`, editing_session.OPEN_FILE) and the Problems panel closed,
#: for the hovers' room. Then, for each theme in cfg.pictures.themes ({prefix, theme, label,
#: kind}; VS Code starts in the first, from its settings), a switch to that theme with
#: Ctrl+K Ctrl+T (after the first) and, for each hover in cfg.pictures.hovers, the cursor put
#: there, the hover asked for (Ctrl+K Ctrl+I) until its images have loaded, and screenshots
#: of the hover box and of each image as it is shown, named after the theme's prefix. One
#: VS Code serves both themes, so the pictures also show that the server follows a theme
#: changed while it runs.
PICTURE_STEPS = r"""
  if (cfg.pictures) {
    const common = require('./drive_common');
    const picturesText = fs.readFileSync(path.join(cfg.workspace, cfg.pictures.file), 'utf8');
    const workbenchClass = () => page.locator('.monaco-workbench').first().getAttribute('class');
    const opened = await step('open-pictures-file', async () => {
      const shown = await openOther(cfg.pictures.file, cfg.pictures.expect);
      const panel = page.locator('[id="workbench.parts.panel"]');
      if (await panel.isVisible()) {
        await page.keyboard.press('Control+J');                // View: Toggle Panel
        await panel.waitFor({ state: 'hidden', timeout: cfg.timeout_ms });
      }
      return { ...shown, workbench_class: await workbenchClass() };
    });
    async function hoverPictures(prefix) {
      for (const hover of cfg.pictures.hovers) {
        const at = locate(picturesText, hover.find, hover.occurrence || 1, hover.offset || 0);
        await step(`${prefix}-hover-${hover.name}`, async () => {
          // The worker may still be starting: ask again until the hover shows an image.
          let images = [];
          let text = '';
          const t = Date.now();
          while (since(t) < cfg.timeout_ms * 2) {
            await page.keyboard.press('Escape');
            await editor.click();
            await common.goToLine(page, `${at.line}:${at.column}`);
            await page.keyboard.press('Control+K');
            await page.keyboard.press('Control+I');
            const widget = page.locator('.monaco-hover:not(.hidden) .monaco-hover-content').first();
            try {
              await widget.waitFor({ state: 'visible', timeout: 5000 });
              await page.waitForFunction(() => {
                const el = document.querySelector(
                  '.monaco-hover:not(.hidden) .monaco-hover-content');
                if (!el || /Loading/.test(el.innerText)) return false;
                const imgs = [...el.querySelectorAll('img')];
                return imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth > 0);
              }, null, { timeout: 5000 });
            } catch (e) {
              await page.waitForTimeout(500);
              continue;
            }
            await common.hoverSettled(page);              // the fade-in, for the screenshots
            text = (await widget.innerText()).trim();
            // The whole hover too, from its top, to see how its parts sit together at the size
            // shown: the box VS Code draws, so that taking it scrolls nothing.
            await widget.evaluate((e) => {
              for (let p = e; p; p = p.parentElement) p.scrollTop = 0;
            });
            const box = page.locator('.monaco-hover:not(.hidden)').first();
            const boxShot = `${prefix}-${hover.name}-hover.png`;
            await box.screenshot({ path: path.join(cfg.out_dir, boxShot) });
            const found = widget.locator('img');
            const count = await found.count();
            images = [];
            for (let i = 0; i < count; i++) {
              const img = found.nth(i);
              const file = `${prefix}-${hover.name}-image${i}.png`;
              await img.screenshot({ path: path.join(cfg.out_dir, file) });
              images.push({
                file,
                ...(await img.evaluate((e) => ({
                  natural: [e.naturalWidth, e.naturalHeight],
                  shown: [e.getBoundingClientRect().width, e.getBoundingClientRect().height],
                  alt: e.alt,
                }))),
              });
            }
            break;
          }
          return { at, ok: images.length > 0, text, images, ui_ms: since(t) };
        });
      }
    }

    for (const [index, { prefix, theme, label, kind }] of cfg.pictures.themes.entries()) {
      if (!opened.ok) break;
      const switched = await step(`theme-${prefix}`, async () => {
        if (index > 0) {
          await page.keyboard.press('Escape');
          await page.keyboard.press('Control+K');
          await page.keyboard.press('Control+T');               // Preferences: Color Theme
          await common.quickPick(page, label, label);           // the picker's name for it
        }
        // The workbench's class names the kind of theme applied (vs, vs-dark).
        await page.waitForFunction(
          (k) => document.querySelector('.monaco-workbench')?.classList.contains(k),
          kind, { timeout: cfg.timeout_ms });
        return { theme, workbench_class: await workbenchClass() };
      });
      if (switched.ok) await hoverPictures(prefix);
    }
    await page.keyboard.press('Escape');
  }
"""


def picture_config() -> dict:
    """What PICTURE_STEPS read from drive.js's config (`pictures`), and the page's size."""
    hovers = [{"name": name, **spot} for name, spot, _ in HOVERS]
    themes = [
        {
            "prefix": theme,
            "theme": name,
            "label": THEME_LABELS[theme],
            "kind": WORKBENCH_KINDS[theme],
        }
        for theme, name in THEMES.items()
    ]
    pictures = {"file": PICTURES_FILE, "expect": "fn shrink", "hovers": hovers, "themes": themes}
    return {"pictures": pictures, "width": 1400, "height": 900}


#: VS Code starts in the first theme of THEMES.
PICTURE_SETTINGS = {"workbench.colorTheme": next(iter(THEMES.values()))}


def check_pictures(report: dict, theme: str) -> list[str]:
    """Each hover in `theme` holds an image drawn on the theme's background, with legible
    labels."""
    failures: list[str] = []
    switched = _step(report, f"theme-{theme}")
    workbench = switched.get("workbench_class") or ""
    if not switched.get("ok") or ("vs-dark" in workbench) != (theme == "dark"):
        failures.append(
            f"VS Code isn't in the {theme} theme ({switched.get('error')}): "
            f"workbench class {workbench!r}"
        )
    shots = Path(report["_shots"])
    for name, _, expected in HOVERS:
        step = _step(report, f"{theme}-hover-{name}")
        if not step.get("ok"):
            failures.append(f"hover {name}: no image ({step.get('error')}): {step.get('text')!r}")
            continue
        if expected not in (step.get("text") or ""):
            failures.append(f"hover {name}: {expected!r} not in {step.get('text')!r}")
        for image in step.get("images", []):
            seen = legibility(shots / image["file"])
            image["seen"] = seen
            dark = seen["background_luminance"] < 0.2
            light = seen["background_luminance"] > 0.7
            if (theme == "dark" and not dark) or (theme == "light" and not light):
                what = f"hover {name}: the image's background isn't {theme}: {seen}"
                if worker_picture(image["alt"]):
                    warnings.warn(what, stacklevel=1)
                else:
                    failures.append(what)
            if seen["colours"] < 8:
                failures.append(f"hover {name}: the image is almost one colour: {seen}")
            if seen["label_share"] < LABEL_SHARE or seen["best_contrast"] < LABEL_CONTRAST:
                failures.append(f"hover {name}: its labels don't stand out: {seen}")
            natural, shown = image["natural"], image["shown"]
            if natural[0] < 1.9 * shown[0]:
                failures.append(f"hover {name}: the image isn't drawn at 2x: {image}")
    return failures


def test_hover_pictures_are_legible_in_the_light_and_dark_themes(editing_session: dict) -> None:
    """The hovers in pictures.ss, in the VS Code the editing tests share (editing_session.py),
    after their steps."""
    report = editing_session
    shots = Path(report["_shots"])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for theme in THEMES:
        for shot in shots.glob(f"{theme}-*.png"):
            shutil.copy(shot, ARTIFACTS / shot.name)
    failures: list[str] = []
    if report.get("error"):
        failures.append(f"the probe stopped: {report['error'][:1000]}")
    for theme in THEMES:
        failures.extend(f"{theme}: {failure}" for failure in check_pictures(report, theme))
    (ARTIFACTS / "hover-pictures-report.json").write_text(json.dumps(report, indent=2))
    if failures:
        pytest.fail(
            "the hover pictures VS Code showed aren't right:\n- "
            + "\n- ".join(failures)
            + f"\nscreenshots and reports: {ARTIFACTS}",
            pytrace=False,
        )
