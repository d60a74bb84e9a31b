"""Cooperative cancellation: a long analysis asks between items whether it is still wanted."""

from __future__ import annotations

from collections.abc import Callable

#: Answers True once the caller no longer wants the result.
IsCancelled = Callable[[], bool]


class Cancelled(Exception):
    """Raised between items when the caller's `cancelled` callable answered True."""


def stop_if(cancelled: IsCancelled | None) -> None:
    """Raise `Cancelled` if the caller gave up."""
    if cancelled is not None and cancelled():
        raise Cancelled
