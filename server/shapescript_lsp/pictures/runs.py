"""The runs behind function pictures: one worker, answers kept by request, and a hover
that waits a while and leaves a late answer for the next hover."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import OrderedDict
from typing import Any

from shapescript_lsp.pictures.worker import Worker, WorkerError

#: How long a hover waits for its picture.
HOVER_WAIT_S = 4.0
#: How many answers are kept.
KEPT = 64


class Failed:
    """A request that didn't answer, kept so that it isn't sent again on every hover."""

    __slots__ = ("kind", "message")

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        self.message = message


class PictureRuns:
    """Sends requests to the worker of the server's Python and keeps the answers."""

    def __init__(self, wait: float = HOVER_WAIT_S, **limits: Any) -> None:
        self.wait = wait
        self.limits = limits
        self.worker: Worker | None = None
        self.answers: OrderedDict[str, Any] = OrderedDict()
        self.running: dict[str, asyncio.Task] = {}
        #: The examples built for recent hovers, by file, text and offset (None: no picture).
        self.examples: OrderedDict[tuple[str, str, int], Any] = OrderedDict()

    def keep_example(self, key: tuple[str, str, int], example: Any) -> None:
        """Keep a hover's example, so that hovering there again doesn't build it again."""
        self.examples[key] = example
        while len(self.examples) > KEPT:
            self.examples.popitem(last=False)

    async def answer(self, python: str, request: dict[str, Any]) -> Any:
        """The request's answer (a `Failed` if it failed), or None if it is still running
        after `wait` seconds: it is then kept for the next time it is asked."""
        if self.worker is None or self.worker.python != python:
            if self.worker is not None:
                await self.worker.close()
            self.worker = Worker(python, **self.limits)
            self.answers.clear()
        key = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()
        if key in self.answers:
            self.answers.move_to_end(key)
            return self.answers[key]
        task = self.running.get(key)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._run(self.worker, key, request))
            self.running[key] = task
        try:
            return await asyncio.wait_for(asyncio.shield(task), self.wait)
        except TimeoutError:
            return None

    async def close(self) -> None:
        if self.worker is not None:
            await self.worker.close()

    async def _run(self, worker: Worker, key: str, request: dict[str, Any]) -> Any:
        try:
            answer: Any = await worker.run(request)
        except WorkerError as exc:
            answer = Failed(exc.kind, str(exc))
        finally:
            self.running.pop(key, None)
        if worker is self.worker:
            self.answers[key] = answer
            while len(self.answers) > KEPT:
                self.answers.popitem(last=False)
        return answer
