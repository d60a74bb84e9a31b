"""An extern fn that fails on worker 1 alone, a second after it is called (for the test of
an error that reaches the controller after its call returned)."""

from __future__ import annotations

import os
import time


def fail_later(x):
    if os.environ.get("SHAPESCRIPT_WORKER") == "1":
        time.sleep(1.0)
        raise RuntimeError("worker 1 ran out of something")
    return x
