"""An extern fn that counts its calls in each worker and fails on the third (for the tests
of a loop's steps posted before the last one's answer is read)."""

from __future__ import annotations

calls = 0


def counted(x):
    global calls
    calls += 1
    if calls == 3:
        raise RuntimeError("the third call fails")
    return x * 0 + calls


def live_models(x):
    """How many models named `Lin` this process holds, after a collection."""
    import gc

    gc.collect()
    found = sum(type(each).__name__ == "Lin" for each in gc.get_objects())
    return x * 0 + found
