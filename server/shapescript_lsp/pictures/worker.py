"""The torch worker: one long-lived subprocess that runs compiled functions on examples.

It is started the first time a picture is needed, with the Python the server was given,
and imports torch once. Requests go one at a time over its pipes. Each has a time limit,
enforced here, and a memory limit, which the child sets on its own address space; a
worker that exceeds either, crashes or closes its pipes is killed and started again on
the next request. Nothing here blocks the event loop, and a failure is logged once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import struct
from pathlib import Path
from typing import Any

log = logging.getLogger("shapescript_lsp.pictures")

CHILD = Path(__file__).with_name("child.py")
HEADER = struct.Struct(">I")
#: How long one request may run before the worker is killed.
DEFAULT_TIME_LIMIT_S = 10.0
#: How much the worker may grow beyond what importing torch took.
DEFAULT_MEMORY_LIMIT = 2 * 1024**3
#: How long starting the worker (importing torch) may take.
START_LIMIT_S = 120.0


class WorkerError(Exception):
    """A request that didn't answer: `kind` is time, memory, crash, start or error."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Worker:
    """The worker for one Python interpreter; `run` sends a request and awaits its reply."""

    def __init__(
        self,
        python: str,
        time_limit: float = DEFAULT_TIME_LIMIT_S,
        memory_limit: int = DEFAULT_MEMORY_LIMIT,
    ) -> None:
        self.python = python
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.process: asyncio.subprocess.Process | None = None
        self.starts = 0
        self._lock = asyncio.Lock()
        self._logged: set[str] = set()

    async def run(self, request: dict[str, Any]) -> Any:
        """The result of one request, or WorkerError; the worker is restarted if needed."""
        async with self._lock:
            process = await self._started()
            assert process.stdin is not None and process.stdout is not None
            data = json.dumps(request).encode("utf-8")
            try:
                process.stdin.write(HEADER.pack(len(data)) + data)
                await process.stdin.drain()
                reply = await asyncio.wait_for(_read(process.stdout), self.time_limit)
            except TimeoutError:
                await self._kill()
                raise self._failed("time", f"it ran longer than {self.time_limit:g} s") from None
            except (ConnectionError, asyncio.IncompleteReadError):
                await self._kill()
                raise self._failed("crash", "the worker stopped") from None
            except asyncio.CancelledError:
                # A reply may still come: a worker left half-way would answer the next
                # request with this one's reply.
                process.kill()
                self.process = None
                raise
            if reply.get("ok"):
                return reply.get("result")
            kind = reply.get("kind", "error")
            if kind == "memory":
                await self._kill()
            raise WorkerError(kind, str(reply.get("error", "")))

    async def close(self) -> None:
        await self._kill()

    async def _started(self) -> asyncio.subprocess.Process:
        if self.process is not None and self.process.returncode is None:
            return self.process
        self.starts += 1
        try:
            process = await asyncio.create_subprocess_exec(
                self.python,
                str(CHILD),
                str(self.memory_limit),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            raise self._failed("start", f"can't run {self.python}: {exc}") from None
        assert process.stdout is not None
        try:
            ready = await asyncio.wait_for(_read(process.stdout), START_LIMIT_S)
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError, ValueError):
            ready = {"ready": False, "error": "it didn't start"}
        if not ready.get("ready"):
            self.process = process
            await self._kill()
            raise self._failed("start", str(ready.get("error", "it didn't start")))
        self.process = process
        return process

    async def _kill(self) -> None:
        process, self.process = self.process, None
        if process is None or process.returncode is not None:
            return
        process.kill()
        await process.wait()

    def _failed(self, kind: str, message: str) -> WorkerError:
        """The error, logged the first time this kind of failure happens."""
        if kind not in self._logged:
            self._logged.add(kind)
            log.warning("the picture worker (%s): %s", self.python, message)
        return WorkerError(kind, message)


async def _read(stream: asyncio.StreamReader) -> dict[str, Any]:
    (length,) = HEADER.unpack(await stream.readexactly(HEADER.size))
    return json.loads((await stream.readexactly(length)).decode("utf-8"))
