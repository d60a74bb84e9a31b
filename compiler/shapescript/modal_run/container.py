"""The container's side of a run: the program as a child process, its output and the files
it wrote sent back as events, which `launch.play` reads here.

An event is a tuple: ("stdout", bytes), ("stderr", bytes), ("file", path, bytes) with a
path relative to the synced folder, and last ("exit", status).
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import IO

from shapescript.modal_run.sync import changed_files, snapshot

Event = tuple
_CHUNK = 65536


def _pump(stream: IO[bytes], name: str, events: queue.Queue[tuple[str, bytes] | None]) -> None:
    """Send what a stream of the child gives as it gives it; None when it ends."""
    try:
        while chunk := os.read(stream.fileno(), _CHUNK):
            events.put((name, chunk))
    finally:
        events.put(None)


def run_in_container(
    argv: Sequence[str], cwd: str, sync_root: str, environment: dict[str, str]
) -> Iterator[Event]:
    """Run `python -m shapescript ARGV` in `cwd` (see `entry`); yield its output, then the files it
    created or changed under `sync_root`, then its exit status."""
    os.makedirs(cwd, exist_ok=True)
    before = snapshot(sync_root)
    child = subprocess.Popen(
        [sys.executable, "-m", "shapescript.modal_run.entry", *argv],
        cwd=cwd,
        env={**os.environ, **environment},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    events: queue.Queue[tuple[str, bytes] | None] = queue.Queue()
    pumps = [
        threading.Thread(target=_pump, args=(stream, name, events), daemon=True)
        for stream, name in ((child.stdout, "stdout"), (child.stderr, "stderr"))
    ]
    for pump in pumps:
        pump.start()
    try:
        open_streams = len(pumps)
        while open_streams:
            event = events.get()
            if event is None:
                open_streams -= 1
            else:
                yield event
        status = child.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    for changed in changed_files(sync_root, before):
        yield ("file", changed.path, changed.data)
    yield ("exit", 128 - status if status < 0 else status)
