"""Running recursive tree walks in a thread whose stack fits the deepest tree allowed.

The parser bounds how deep a syntax tree can be (`shapescript.syntax.limits`); the
passes over the tree recurse, a few Python frames per level. Python's default recursion
limit (1,000 frames) and the main thread's stack are far too small for that, so every
entry point that walks a tree (parsing, checking, code generation) runs its work through
`run_deep`: in a fresh thread with a large stack, while the recursion limit is raised.
"""

from __future__ import annotations

import contextvars
import sys
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from shapescript.syntax.limits import MAX_TREE_DEPTH

#: Python frames a walk may use per level of the tree, with room to spare (the deepest
#: pass measured, the parser on nested calls, uses about 7).
FRAMES_PER_LEVEL = 12
#: The recursion limit while a deep walk runs.
RECURSION_LIMIT = FRAMES_PER_LEVEL * (MAX_TREE_DEPTH + 1_000)
#: The walk thread's stack. It is reserved address space; only the pages used are memory.
STACK_BYTES = 1 << 30

P = ParamSpec("P")
T = TypeVar("T")

_lock = threading.Lock()
_running = 0
_saved_limit = 0
_inside = threading.local()


def _raise_limit() -> None:
    global _running, _saved_limit
    with _lock:
        if _running == 0:
            _saved_limit = sys.getrecursionlimit()
            if _saved_limit < RECURSION_LIMIT:
                sys.setrecursionlimit(RECURSION_LIMIT)
        _running += 1


def _restore_limit() -> None:
    global _running
    with _lock:
        _running -= 1
        if _running == 0 and _saved_limit < RECURSION_LIMIT:
            sys.setrecursionlimit(_saved_limit)


def run_deep(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Call `function` in a thread with a big stack and a raised recursion limit.

    Returns what it returns and raises what it raises. A call made from inside such a
    thread runs directly.
    """
    if getattr(_inside, "deep", False):
        return function(*args, **kwargs)
    outcome: list[T] = []
    failure: list[BaseException] = []
    # The thread sees the caller's context variables (a notebook's Python names).
    context = contextvars.copy_context()

    def body() -> None:
        _inside.deep = True
        try:
            outcome.append(context.run(function, *args, **kwargs))
        except BaseException as exc:
            failure.append(exc)

    _raise_limit()
    try:
        thread = _start(body)
        if thread is None:
            _inside.deep = True
            try:
                return function(*args, **kwargs)
            finally:
                _inside.deep = False
        thread.join()
    finally:
        _restore_limit()
    if failure:
        raise failure[0]
    return outcome[0]


def _start(body: Callable[[], None]) -> threading.Thread | None:
    """Start `body` in a thread with the biggest stack the system grants, down to a
    sixteenth of STACK_BYTES; None when it grants none of them."""
    with _lock:
        size = STACK_BYTES
        while size >= STACK_BYTES // 16:
            previous_size = threading.stack_size(size)
            try:
                thread = threading.Thread(target=body, name="shapescript-deep", daemon=True)
                thread.start()
                return thread
            except (RuntimeError, MemoryError):
                size //= 2
            finally:
                threading.stack_size(previous_size)
    return None
