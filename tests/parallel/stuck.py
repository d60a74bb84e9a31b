"""An extern fn that never returns on worker 1 (for the tests of stuck workers)."""

from __future__ import annotations

import os
import time


def stall(x):
    if os.environ.get("SHAPESCRIPT_WORKER") == "1":
        while True:
            time.sleep(0.05)
    return x
