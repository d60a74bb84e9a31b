"""Expected-output snapshots: compare text with a file, or rewrite the file when UPDATE_EXPECT=1."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

UPDATE_VARIABLE = "UPDATE_EXPECT"


def updating() -> bool:
    """Whether this run rewrites snapshots instead of comparing with them."""
    return os.environ.get(UPDATE_VARIABLE, "") not in ("", "0")


def _normalized(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as file:
        return file.read()


def assert_matches_snapshot(actual: str, path: Path) -> None:
    """Fail with a diff unless `actual` equals the file at `path` (one final newline is implied)."""
    __tracebackhide__ = True
    actual = _normalized(actual)
    if updating():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or _read(path) != actual:
            path.write_text(actual, encoding="utf-8", newline="")
        return
    if not path.is_file():
        raise AssertionError(
            f"no snapshot at {path}; run the tests with {UPDATE_VARIABLE}=1 to write it.\n"
            f"actual output:\n{actual}"
        )
    expected = _read(path)
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"{path} (expected)",
                tofile="actual",
            )
        )
        raise AssertionError(
            f"output differs from {path}; if the change is intended, "
            f"rerun with {UPDATE_VARIABLE}=1 and review the file.\n{diff}"
        )
