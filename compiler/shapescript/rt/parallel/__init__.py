"""Several devices: a controller process and a worker per device on torch.distributed.

`devices cpu[0 1 2]` (Gloo, CPU workers) or `cuda[0 1 2]` (NCCL, a GPU per worker) runs the
same program with each batch split across the workers; see `controller.py` for the
controller's side and `worker.py` for a worker's, `collectives.py` for the all-reduces.
"""

from __future__ import annotations

from shapescript.rt.parallel.errors import WorkerError

__all__ = ["WorkerError", "collective_timeout"]


def collective_timeout(seconds: float | None = None) -> float:
    """The collective timeout in seconds, for workers started afterwards."""
    from shapescript.rt.parallel.controller import collective_timeout as timeout

    return timeout(seconds)
