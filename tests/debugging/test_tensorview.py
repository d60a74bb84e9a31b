"""The Tensor view against a real program under debugpy: stopped at a breakpoint in a `.ss`
file, View Tensor's evaluation (the expression the extension sends through DAP `evaluate`)
starts the view's server in the program, which is then driven over HTTP with its token."""

from __future__ import annotations

import ast
import json
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.debugging.dap import ROOT, DapClient

pytest.importorskip("debugpy")
pytest.importorskip("torch")

MODEL = """\
devices cpu

fn look(att: [b n m] Prob over m, img: [b 3 (gh 4) (gw 4)]) -> [b (gh gw) (4 4 3)]:
    w = att * 1.0
    t = rearrange(img, b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c))
    return t
"""

MAIN = """\
import math

import torch

import shapescript

shapescript.install(value_checks="never")  # so the broken Prob gets to the breakpoint
import model

att = torch.full((2, 3, 4), 0.25)
att[1, 2, 3] = math.nan
att[0, 1] = torch.tensor([0.5, 0.5, 0.5, 0.0])
img = torch.arange(2 * 3 * 8 * 12, dtype=torch.float32).reshape(2, 3, 8, 12) / 100
print("tokens", tuple(model.look(att, img).shape))
"""


def open_expression(expression: str) -> str:
    """What View Tensor evaluates, from the extension's own source (tensorViewModel.ts)."""
    script = (
        "const m = require(process.argv[1]);"
        "process.stdout.write(m.openExpression(process.argv[2]));"
    )
    compiled = ROOT / "vscode-extension" / "out" / "tensorViewModel.js"
    if compiled.exists():
        done = subprocess.run(
            ["node", "-e", script, str(compiled), expression], capture_output=True, text=True
        )
        if done.returncode == 0:
            return done.stdout
    # Without the compiled extension, the same text it writes.
    return (
        "__import__('json').dumps(__import__('shapescript._tensorview', fromlist=['open'])"
        f".open({expression}, expression={json.dumps(expression)}))"
    )


def get(opened: dict, path: str, token: str | None = None, **query: object) -> dict:
    parts = [f"id={opened['id']}"] + [f"{key}={value}" for key, value in query.items()]
    request = urllib.request.Request(
        f"{opened['url']}{path}?{'&'.join(parts)}",
        headers={"X-ShapeScript-Token": opened["token"] if token is None else token},
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


@pytest.mark.slow
def test_view_tensor_in_a_real_debug_session(tmp_path: Path) -> None:
    (tmp_path / "model.ss").write_text(MODEL)
    (tmp_path / "main.py").write_text(MAIN)
    client = DapClient([str(tmp_path / "main.py")], tmp_path)
    try:
        client.request("initialize", adapterID="python", pathFormat="path", linesStartAt1=True)
        attach = client.send("attach", justMyCode=True)
        client.event("initialized")
        client.request(
            "setBreakpoints",
            source={"path": str(tmp_path / "model.ss")},
            breakpoints=[{"line": 6}],
        )
        client.request("configurationDone")
        client.response(attach)
        thread = client.event("stopped")["threadId"]
        frames = client.request("stackTrace", threadId=thread)["stackFrames"]
        assert (Path(frames[0]["source"]["path"]).name, frames[0]["line"]) == ("model.ss", 6)

        def view(expression: str, frame: dict) -> dict:
            answer = client.request(
                "evaluate",
                expression=open_expression(expression),
                frameId=frame["id"],
                context="repl",
            )
            return json.loads(ast.literal_eval(answer["result"]))  # the repr of a str

        # The planted NaN and the Prob row that doesn't sum to 1, typed from the .ss frame.
        att = view("att", frames[0])
        assert att["url"].startswith("http://127.0.0.1:")
        summary = get(att, "/summary")
        assert (summary["type"], summary["axes"], summary["shape"]) == (
            "[b n m] Prob over m",
            ["b", "n", "m"],
            [2, 3, 4],
        )
        checks = {check["check"]: check for check in summary["checks"]}
        assert (checks["no NaN or ±∞"]["count"], checks["no NaN or ±∞"]["first"]) == (1, [1, 2, 3])
        rows = checks["each row sums to 1 over m"]
        assert (rows["ok"], rows["count"], rows["first"], rows["worst"]) == (
            False,
            2,
            [0, 1],
            [1, 2],
        )
        tile = get(att, "/tile", at="1")
        assert tile["nan"][2] == [0, 0, 0, 1]
        assert tile["bad_rows"] == [0, 0, 1]
        assert get(att, "/tile")["bad_rows"] == [0, 1, 0]

        # A wrong token, or none, is refused.
        for token in ("not-the-token", ""):
            with pytest.raises(urllib.error.HTTPError) as refused:
                get(att, "/summary", token=token)
            assert refused.value.code == 403

        # A grid of patches: the group's parts' sizes come from the frame (gh = 2, gw = 3).
        tokens = view("t", frames[0])
        patches = get(tokens, "/summary")
        # A patchify's result, as the checker types it; p1, p2 and c are no sizes of the frame.
        assert patches["type"] == "[b (gh gw) (p1 p2 c)]"
        assert patches["groups"] == {"1": [["gh", 2], ["gw", 3]]}
        grid = get(tokens, "/tile", split="1:2,3", rows=1, cols=2, reduce="3:norm", at="0")
        assert (grid["rows"], grid["cols"]) == (2, 3)
        assert grid["mean"][0][0] == pytest.approx(_patch_norm(0, 0, 0), rel=1e-6)
        assert grid["mean"][1][2] == pytest.approx(_patch_norm(0, 1, 2), rel=1e-6)

        # The same name in the Python frame below: its value, with no ShapeScript type.
        python = get(view("att", frames[1]), "/summary")
        assert (python["type"], python["axes"]) == (None, ["0", "1", "2"])
        assert python["stats"]["nan"] == 1

        # The view lets the values go when the program goes on.
        assert get(att, "/release") == {"released": True}
        client.request("continue", threadId=thread)
        client.event("terminated")
    finally:
        output = client.close()
    assert "tokens (2, 6, 48)" in output


def _patch_norm(b: int, gh: int, gw: int) -> float:
    """The norm of one 4 × 4 patch of the program's image, all 3 channels."""
    import torch

    img = torch.arange(2 * 3 * 8 * 12, dtype=torch.float64).reshape(2, 3, 8, 12) / 100
    return float(img[b, :, gh * 4 : gh * 4 + 4, gw * 4 : gw * 4 + 4].norm())
