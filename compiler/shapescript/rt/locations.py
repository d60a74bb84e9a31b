"""`where` strings, `path:line:col` of a `.ss` call (or `file.py:line` of a Python one),
as the fields of a `CheckFailure`."""

from __future__ import annotations

import sys
from typing import Any


def location(where: str | None, **extra: Any) -> dict[str, Any]:
    """`path`, `line` and `column` (as much as `where` gives) plus `extra`, for a CheckFailure."""
    fields: dict[str, Any] = dict(extra)
    if where is None:
        return fields
    parts = str(where).rsplit(":", 2)
    numbers: list[int] = []
    while len(parts) > 1 and parts[-1].isdigit() and len(numbers) < 2:
        numbers.insert(0, int(parts.pop()))
    fields["path"] = ":".join(parts)
    if numbers:
        fields["line"] = numbers[0]
    if len(numbers) > 1:
        fields["column"] = numbers[1]
    return fields


def caller(depth: int = 1) -> str:
    """`file.py:line` of the frame `depth` calls above the one that calls this."""
    frame = sys._getframe(depth + 1)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


__all__ = ["caller", "location"]
