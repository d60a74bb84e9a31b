"""debugpy stops at a breakpoint in a `.ss` file and shows its values with their
ShapeScript types and named sizes, without the names the compiler made up."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.debugging.dap import DapClient

pytest.importorskip("debugpy")
pytest.importorskip("torch")

MODEL = """\
devices cpu
dim D = 4

fn scale(x: [b D]) -> [b D]:
    y = x * 2
    z = y + 1
    return z

model Lin:
    param w: [D D] = normal(0, 1)

fn apply(m: Lin, v: [D]) -> [D]:
    out = m.w @ v
    return out

model Id:
    param s: [D] = normal(0, 1)

fn apply(m: Id, v: [D]) -> [D] = v
"""

MAIN = """\
import torch

import shapescript

shapescript.install()
import model

print("result", model.scale(torch.ones(2, 4)).sum().item())
print("applied", model.apply(model.Lin.init(seed=0), torch.ones(4)).shape)
"""


def start(tmp_path: Path, breakpoints: dict[str, list[int]]) -> DapClient:
    (tmp_path / "model.ss").write_text(MODEL)
    (tmp_path / "main.py").write_text(MAIN)
    client = DapClient([str(tmp_path / "main.py")], tmp_path)
    client.request(
        "initialize",
        adapterID="python",
        clientID="test",
        pathFormat="path",
        linesStartAt1=True,
        columnsStartAt1=True,
    )
    attach = client.send("attach", justMyCode=True)
    client.event("initialized")
    for name, lines in breakpoints.items():
        answer = client.request(
            "setBreakpoints",
            source={"path": str(tmp_path / name)},
            breakpoints=[{"line": line} for line in lines],
        )
        assert all(found["verified"] for found in answer["breakpoints"]), answer
    client.request("configurationDone")
    client.response(attach)
    return client


def variables(client: DapClient, frame_id: int) -> dict[str, dict]:
    scopes = client.request("scopes", frameId=frame_id)["scopes"]
    local = next(scope for scope in scopes if scope["name"] == "Locals")
    found = client.request("variables", variablesReference=local["variablesReference"])
    return {item["name"]: item for item in found["variables"]}


@pytest.mark.slow
def test_a_breakpoint_in_a_ss_file_stops_and_shows_typed_values(tmp_path: Path) -> None:
    client = start(tmp_path, {"model.ss": [6]})
    try:
        stopped = client.event("stopped")
        frames = client.request("stackTrace", threadId=stopped["threadId"])["stackFrames"]
        top = frames[0]
        assert (Path(top["source"]["path"]).name, top["line"]) == ("model.ss", 6)
        assert Path(frames[1]["source"]["path"]).name == "main.py"
        shown = variables(client, top["id"])
        assert not [name for name in shown if name.startswith("_ss_")]
        assert set(shown) >= {"x", "y"}
        assert shown["x"]["type"] == "[b D]"
        assert shown["x"]["value"].startswith("[b=2 D=4] float32 tensor([[1., 1., 1., 1.]")
        assert shown["y"]["type"] == "[b D]"
        assert shown["y"]["value"].startswith("[b=2 D=4] float32 tensor([[2., 2., 2., 2.]")
        client.request("continue", threadId=stopped["threadId"])
        client.event("terminated")
    finally:
        output = client.close()
    assert "result 24.0" in output


@pytest.mark.slow
def test_stepping_goes_from_python_into_shapescript_and_back(tmp_path: Path) -> None:
    client = start(tmp_path, {"main.py": [8]})
    try:
        thread = client.event("stopped")["threadId"]

        def where() -> tuple[str, int]:
            top = client.request("stackTrace", threadId=thread)["stackFrames"][0]
            return Path(top["source"]["path"]).name, top["line"]

        assert where() == ("main.py", 8)
        client.request("stepIn", threadId=thread)
        client.event("stopped")
        assert where() == ("model.ss", 4)
        client.request("next", threadId=thread)
        client.event("stopped")
        assert where() == ("model.ss", 5)
        client.request("stepOut", threadId=thread)
        client.event("stopped")
        assert where() == ("main.py", 8)
        client.request("continue", threadId=thread)
        client.event("terminated")
    finally:
        output = client.close()
    assert "result 24.0" in output


@pytest.mark.slow
def test_a_model_s_fields_show_their_types(tmp_path: Path) -> None:
    client = start(tmp_path, {"model.ss": [13]})
    try:
        stopped = client.event("stopped")
        top = client.request("stackTrace", threadId=stopped["threadId"])["stackFrames"][0]
        assert top["line"] == 13
        assert top["name"] == "apply"  # an overload, `_ss_apply__Lin` in Python
        shown = variables(client, top["id"])
        assert shown["m"]["type"] == "Lin"
        fields = client.request("variables", variablesReference=shown["m"]["variablesReference"])[
            "variables"
        ]
        w = next(item for item in fields if item["name"] == "w")
        assert w["type"] == "[D D]"
        assert w["value"].startswith("[D=4 D=4] float32 ")
        client.request("continue", threadId=stopped["threadId"])
        client.event("terminated")
    finally:
        output = client.close()
    assert "applied torch.Size([4])" in output
