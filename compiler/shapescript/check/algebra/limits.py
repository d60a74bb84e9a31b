"""How deep the checker follows functions whose return type it infers from their bodies."""

from __future__ import annotations

import sys

#: Functions without a return type whose inference may wait on one another, at most.
MAX_INFERENCE_DEPTH = 200


def _stack_deeper_than(frames: int) -> bool:
    try:
        sys._getframe(frames)
    except ValueError:
        return False
    return True


def inference_too_deep(inferring: int) -> bool:
    """Whether inferring one more function would go past the depth limit or use more than
    half the recursion limit (each function's body may itself be a deep tree)."""
    return inferring >= MAX_INFERENCE_DEPTH or _stack_deeper_than(sys.getrecursionlimit() // 2)
