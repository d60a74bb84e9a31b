"""A breakpoint in a `%%shapescript` cell stops there under ipykernel's debugger (the one
VS Code and JupyterLab drive): the debugger writes the cell to a file, and the cell's code
reports that file and the cell's lines."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CELL = "%%shapescript\ndevices cpu\ndim D = 2\nx = torch.ones(3, 2) as [3 D]\ny = x * 2\ny\n"


class KernelDebugger:
    """An ipykernel with a client that sends DAP requests on the control channel."""

    def __init__(self) -> None:
        from jupyter_client.manager import start_new_kernel

        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT / "compiler"), str(ROOT / "server"), env.get("PYTHONPATH", "")]
        )
        self.manager, self.client = start_new_kernel(kernel_name="python3", env=env)
        self.seq = 0

    def request(self, command: str, arguments: dict[str, Any] | None = None) -> dict:
        self.seq += 1
        content = {"type": "request", "seq": self.seq, "command": command}
        content["arguments"] = arguments or {}
        message = self.client.session.msg("debug_request", content)
        self.client.control_channel.send(message)
        while True:
            reply = self.client.control_channel.get_msg(timeout=60)
            if reply["parent_header"].get("msg_id") == message["header"]["msg_id"]:
                return reply["content"]

    def event(self, name: str) -> dict:
        while True:
            message = self.client.get_iopub_msg(timeout=60)
            if message["msg_type"] == "debug_event" and message["content"]["event"] == name:
                return message["content"]

    def run(self, code: str) -> dict:
        reply = self.client.execute_interactive(code, timeout=60)
        return reply["content"]

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@pytest.mark.slow
def test_a_breakpoint_in_a_cell_stops_on_its_line() -> None:
    pytest.importorskip("ipykernel")
    pytest.importorskip("debugpy")
    pytest.importorskip("torch")
    kernel = KernelDebugger()
    try:
        assert kernel.run("%load_ext shapescript\nimport torch")["status"] == "ok"
        # The checker and code generator imported before the debugger traces them.
        assert kernel.run("%%shapescript\nw = torch.ones(2) as [2]\n")["status"] == "ok"
        assert kernel.request(
            "initialize",
            {
                "clientID": "tests",
                "adapterID": "",
                "pathFormat": "path",
                "linesStartAt1": True,
                "columnsStartAt1": True,
                "supportsVariableType": True,
            },
        )["success"]
        assert kernel.request("attach")["success"]
        dumped = kernel.request("dumpCell", {"code": CELL})
        path = dumped["body"]["sourcePath"]
        placed = kernel.request(
            "setBreakpoints",
            {"breakpoints": [{"line": 5}], "source": {"path": path}, "sourceModified": False},
        )
        assert placed["body"]["breakpoints"][0]["verified"]
        kernel.request("configurationDone")
        message_id = kernel.client.execute(CELL)
        stopped = kernel.event("stopped")
        thread = stopped["body"]["threadId"]
        frames = kernel.request("stackTrace", {"threadId": thread})["body"]["stackFrames"]
        top = frames[0]
        assert (top["name"], top["source"]["path"], top["line"]) == ("In [3]", path, 5)
        scopes = kernel.request("scopes", {"frameId": top["id"]})["body"]["scopes"]
        local = kernel.request("variables", {"variablesReference": scopes[0]["variablesReference"]})
        variables = {variable["name"]: variable for variable in local["body"]["variables"]}
        assert not any(name.startswith("_ss_") for name in variables)
        assert variables["x"]["type"] == "[3 D]"
        assert variables["x"]["value"].startswith("[3 D=2] float32 tensor(")
        kernel.request("continue", {"threadId": thread})
        while True:
            reply = kernel.client.get_shell_msg(timeout=60)
            if reply["parent_header"].get("msg_id") == message_id:
                break
        assert reply["content"]["status"] == "ok"
    finally:
        kernel.close()
