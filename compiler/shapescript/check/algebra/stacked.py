"""Recursive walks run on an explicit stack, for walks whose depth the input sets (a chain
of functions calling each other can be as long as the file), which `run_deep` can't bound.

A walk is a generator. Where it needs another walk's answer, it yields that walk and is
sent back the answer; what it returns is its own answer. `run_stacked` keeps the walks
waiting on each other in a list, so only the list grows with the depth, never Python's
stack.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

T = TypeVar("T")

#: A walk answering T: yields the walks it needs answered, is sent their answers.
Walk = Generator["Walk[Any]", Any, T]


def run_stacked(walk: Walk[T]) -> T:
    """The answer of `walk`, with every walk it asks for run in turn on one list."""
    waiting: list[Walk[Any]] = [walk]
    answer: Any = None
    while True:
        try:
            needed = waiting[-1].send(answer)
        except StopIteration as done:
            waiting.pop()
            if not waiting:
                return done.value
            answer = done.value
        else:
            waiting.append(needed)
            answer = None
