"""The example a function's picture runs: built by `shapescript.small_examples`, which
`shapescript verify` shares."""

from __future__ import annotations

from shapescript.small_examples import (
    CHANGE,
    DTYPES,
    FIRST_AXIS,
    NOT_RUN,
    OTHER_AXES,
    SEED,
    SMALL_DIMS,
    Argument,
    Example,
    example,
    sizes_of,
    small_file,
    why_not_run,
)

__all__ = [
    "CHANGE",
    "DTYPES",
    "FIRST_AXIS",
    "NOT_RUN",
    "OTHER_AXES",
    "SEED",
    "SMALL_DIMS",
    "Argument",
    "Example",
    "example",
    "sizes_of",
    "small_file",
    "why_not_run",
]
