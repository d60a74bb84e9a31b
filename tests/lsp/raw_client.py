"""A bare client for the server over stdio that can also send bytes no real client would.

It accepts every request the server sends (such as a progress token) with a null result.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

SERVER = [sys.executable, "-m", "shapescript_lsp"]
TIMEOUT_S = 60.0


class RawServer:
    """The real server in a subprocess (it inherits this environment, PYTHONPATH included)."""

    def __init__(self, log_file: Path | None = None, command: list[str] | None = None) -> None:
        """`command` starts the server some other way than `SERVER` (for a test's hooks)."""
        command = (command or SERVER) + (["--log-file", str(log_file)] if log_file else [])
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.notifications: list[dict[str, Any]] = []
        self.stderr = b""
        self.next_id = 0
        self.writing = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line == b"\r\n":
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(stream.read(length))
            if "id" in message and "method" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            self.messages.put(message)

    def _read_stderr(self) -> None:
        for line in self.process.stderr:
            self.stderr += line

    def logged(self, needle: bytes, timeout: float = 10.0) -> bool:
        """Whether the server's stderr has `needle`, waiting for its reader to catch up
        (it runs on its own thread, behind the answers on stdout)."""
        deadline = time.monotonic() + timeout
        while needle not in self.stderr and time.monotonic() < deadline:
            time.sleep(0.01)
        return needle in self.stderr

    def send_bytes(self, data: bytes) -> None:
        with self.writing:
            self.process.stdin.write(data)
            self.process.stdin.flush()

    def send(self, message: Any) -> None:
        body = json.dumps(message).encode("utf-8")
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        """Send a request and wait for its answer, whole (result or error)."""
        return self.call({"method": method, "params": params})

    def call(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send `message` as a request with a fresh id and wait for its answer."""
        identifier = self.request_id()
        self.send({"jsonrpc": "2.0", "id": identifier} | message)
        return self.answer(identifier)

    def answer(self, identifier: int | str | None) -> dict[str, Any]:
        """The next response with this id (null for errors about unreadable messages)."""
        while True:
            message = self.next_message()
            if "method" in message:
                self.notifications.append(message)
                continue
            if message.get("id") == identifier:
                return message

    def next_message(self) -> dict[str, Any]:
        try:
            return self.messages.get(timeout=TIMEOUT_S)
        except queue.Empty:
            raise AssertionError(
                f"no message from the server in {TIMEOUT_S} s; stderr: {self.stderr[-2000:]!r}"
            ) from None

    def wait_for(self, method: str, predicate=lambda params: True) -> dict[str, Any]:
        for message in self.notifications:
            if message.get("method") == method and predicate(message["params"]):
                self.notifications.remove(message)
                return message["params"]
        while True:
            message = self.next_message()
            if message.get("method") == method and predicate(message["params"]):
                return message["params"]
            if "method" in message:
                self.notifications.append(message)

    def initialize(self, root: Path, options: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {"window": {"workDoneProgress": True}},
                "initializationOptions": {"libraryDir": str(root / ".library"), "debounceMs": 0}
                | (options or {}),
            },
        )
        self.notify("initialized", {})
        return answer

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": "shapescript",
                    "version": version,
                    "text": text,
                }
            },
        )

    def hover(self, uri: str, line: int, character: int) -> dict[str, Any]:
        return self.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}},
        )

    def exit_status(self, timeout: float = TIMEOUT_S) -> int:
        return self.process.wait(timeout=timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.request("shutdown")
                self.notify("exit")
                self.process.wait(timeout=TIMEOUT_S)
            except (OSError, AssertionError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
