"""The workspace index, built in the background with work done progress for the client."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from shapescript_lsp.workspace import WorkspaceIndex

log = logging.getLogger("shapescript_lsp.indexing")

#: Completion and references start a new walk at most this often.
REFRESH_SECONDS = 2.0
#: How long the first feature to ask waits for a walk before answering with what is indexed.
WAIT_S = 0.5
#: How long `workspace/symbol` waits for the first walk before answering with what is indexed.
SYMBOL_WAIT_S = 5.0
#: How many files between two progress reports.
REPORT_EVERY = 100
#: How long the client may take to accept a progress token.
CREATE_TIMEOUT_S = 5.0
_tokens = itertools.count(1)


class BackgroundIndexer:
    """Runs the index's walk off the event loop; features read whatever is indexed so far."""

    def __init__(self, server: LanguageServer, index: WorkspaceIndex) -> None:
        self.server = server
        self.index = index
        self.task: asyncio.Task | None = None
        self.started_at = -REFRESH_SECONDS
        self.warned = False
        self.asked = False
        #: Set once a walk has finished: from then on, a walk only refreshes the index.
        self.complete_once = False

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(self, report: bool = True) -> bool:
        """Index the workspace now unless a walk is running (`report` shows progress);
        whether a walk was started."""
        if self.running:
            return False
        self.started_at = time.monotonic()
        self.task = asyncio.get_running_loop().create_task(self._run(report))
        return True

    async def settled(self) -> bool:
        """Start a quiet walk in the background if the last began `REFRESH_SECONDS` ago;
        the first time, also give the walk running up to `WAIT_S` to finish. Indexed files
        stay in the index meanwhile. Whether the index is complete: False while the first
        indexing runs."""
        first = not self.asked
        if first or time.monotonic() - self.started_at >= REFRESH_SECONDS:
            self.asked = True
            self.start(report=False)
            if first and self.task is not None:
                await asyncio.wait({self.task}, timeout=WAIT_S)
        return not self.running or self.complete_once

    async def first_walk(self, token: types.ProgressToken | None, limit: float) -> bool:
        """Wait up to `limit` seconds for the first walk to finish, starting one if none
        runs, with work done progress on the request's `token` if the client gave one.
        Whether the index is complete."""
        if self.complete_once:
            return True
        progress = self.server.work_done_progress
        if token is not None:
            progress.begin(
                token,
                types.WorkDoneProgressBegin(
                    title="Waiting for the .ss files to be indexed",
                    message=f"{len(self.index.files)} files so far",
                ),
            )
        self.start()
        if self.task is not None:
            await asyncio.wait({self.task}, timeout=limit)
        if self.complete_once:
            message = f"{len(self.index.files)} files"
        else:
            message = (
                f"answered with the {len(self.index.files)} files indexed so far; indexing goes on"
            )
            log.info("workspace symbols %s", message)
        if token is not None:
            progress.end(token, types.WorkDoneProgressEnd(message=message))
        return self.complete_once

    async def _run(self, report: bool) -> None:
        try:
            candidates = await asyncio.to_thread(self.index.discover)
            token = await self._begin(len(candidates)) if report and candidates else None
            loop = asyncio.get_running_loop()

            def progress(done: int) -> None:
                if token is not None and (done % REPORT_EVERY == 0 or done == len(candidates)):
                    loop.call_soon_threadsafe(self._report, token, done, len(candidates))

            await asyncio.to_thread(self.index.index, candidates, progress)
            self.complete_once = True
            if token is not None:
                message = f"{len(self.index.files)} files"
                self.server.work_done_progress.end(
                    token, types.WorkDoneProgressEnd(message=message)
                )
            self._warn_if_truncated()
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.error("indexing the workspace failed: %r", error)

    async def _begin(self, total: int) -> str | None:
        """Create a progress token and begin it, if the client shows progress."""
        window = self.server.client_capabilities.window
        if window is None or not window.work_done_progress:
            return None
        token = f"shapescript-index-{next(_tokens)}"
        try:
            await asyncio.wait_for(
                self.server.work_done_progress.create_async(token), CREATE_TIMEOUT_S
            )
        except Exception as error:
            log.info("no progress for indexing: the client refused a token (%r)", error)
            return None
        self.server.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="Indexing .ss files", message=f"0/{total}", percentage=0
            ),
        )
        return token

    def _report(self, token: str, done: int, total: int) -> None:
        self.server.work_done_progress.report(
            token,
            types.WorkDoneProgressReport(message=f"{done}/{total}", percentage=done * 100 // total),
        )

    def _warn_if_truncated(self) -> None:
        if self.index.truncated is None or self.warned:
            return
        self.warned = True
        log.warning("%s", self.index.truncated)
        self.server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning, message=f"shapescript: {self.index.truncated}"
            )
        )
