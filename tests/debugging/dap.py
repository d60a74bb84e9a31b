"""A small Debug Adapter Protocol client: debugpy over a socket, as an editor drives it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class DapClient:
    """debugpy running `args`, and a connection to it that sends requests and keeps events."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        port = free_port()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT / "compiler"), str(ROOT / "server"), env.get("PYTHONPATH", "")]
        )
        self.process = subprocess.Popen(
            [sys.executable, "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "--wait-for-client"]
            + args,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        self.socket = self._connect(port)
        self.buffer = b""
        self.seq = 0
        self.events: list[dict[str, Any]] = []
        self.responses: dict[int, dict[str, Any]] = {}

    def _connect(self, port: int) -> socket.socket:
        deadline = time.monotonic() + 60
        while True:
            try:
                return socket.create_connection(("127.0.0.1", port), timeout=60)
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(0.1)

    def send(self, command: str, **arguments: Any) -> int:
        self.seq += 1
        body = json.dumps(
            {"seq": self.seq, "type": "request", "command": command, "arguments": arguments}
        ).encode()
        self.socket.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return self.seq

    def _read(self) -> dict[str, Any]:
        while b"\r\n\r\n" not in self.buffer:
            self._more()
        header, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        length = int(header.split(b":")[1])
        while len(self.buffer) < length:
            self._more()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return json.loads(body)

    def _more(self) -> None:
        chunk = self.socket.recv(65536)
        if not chunk:
            raise ConnectionError("debugpy closed the connection")
        self.buffer += chunk

    def _pump(self) -> None:
        message = self._read()
        if message["type"] == "event":
            self.events.append(message)
        elif message["type"] == "response":
            self.responses[message["request_seq"]] = message

    def response(self, seq: int) -> dict[str, Any]:
        while seq not in self.responses:
            self._pump()
        found = self.responses.pop(seq)
        assert found["success"], found
        return found.get("body", {})

    def request(self, command: str, **arguments: Any) -> dict[str, Any]:
        return self.response(self.send(command, **arguments))

    def event(self, name: str) -> dict[str, Any]:
        while True:
            for index, event in enumerate(self.events):
                if event["event"] == name:
                    return self.events.pop(index).get("body", {})
            self._pump()

    def close(self) -> str:
        try:
            self.socket.close()
        finally:
            try:
                out, _ = self.process.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                out, _ = self.process.communicate()
        return out.decode(errors="replace")
