"""The error a program on several devices raises when one of its workers fails."""

from __future__ import annotations


class WorkerError(RuntimeError):
    """A worker process stopped, or didn't reach a collective within the timeout.

    What was on the devices is gone: make new models, or load a checkpoint, to go on.
    """
