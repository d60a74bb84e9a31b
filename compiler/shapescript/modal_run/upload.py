"""Which files of the program's folder go to the container, and the limit on their size."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence
from dataclasses import dataclass

from shapescript.commands.support import UsageError

#: Names never uploaded: version control, environments, build output and tools' caches.
ALWAYS_EXCLUDED = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "__pycache__",
    "*.pyc",
    "target",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    ".tox",
    ".nox",
    ".ipynb_checkpoints",
    ".cache",
)
DEFAULT_MAX_UPLOAD_MB = 500
_MB = 1024 * 1024
_LARGEST_SHOWN = 5


@dataclass(frozen=True, slots=True)
class Upload:
    """The files to upload, by path relative to the folder, and their total size in bytes."""

    folder: str
    files: tuple[str, ...]
    size: int


def excluded(relative: str, patterns: Sequence[str]) -> bool:
    """Whether a path in the folder (with / between parts) is left out: a pattern without /
    matches any file or folder name on the way, one with / the path from the folder."""
    parts = relative.split("/")
    for pattern in (*ALWAYS_EXCLUDED, *patterns):
        if "/" in pattern.strip("/"):
            anchored = pattern.strip("/")
            if any(
                fnmatch.fnmatchcase("/".join(parts[: end + 1]), anchored)
                for end in range(len(parts))
            ):
                return True
        elif any(fnmatch.fnmatchcase(part, pattern.strip("/")) for part in parts):
            return True
    return False


def select(folder: str, patterns: Sequence[str] = ()) -> Upload:
    """The files under `folder` to upload, walked without following links to folders."""
    files: list[str] = []
    size = 0
    pending = [""]
    while pending:
        relative_dir = pending.pop()
        try:
            entries = sorted(os.scandir(os.path.join(folder, relative_dir)), key=lambda e: e.name)
        except OSError as exc:
            raise UsageError(f"can't read the folder `{exc.filename}`: {exc.strerror}") from exc
        for entry in entries:
            relative = f"{relative_dir}/{entry.name}" if relative_dir else entry.name
            if excluded(relative, patterns):
                continue
            if entry.is_dir(follow_symlinks=False):
                pending.append(relative)
            elif entry.is_file():
                files.append(relative)
                size += entry.stat().st_size
    return Upload(folder, tuple(sorted(files)), size)


def _top_level_sizes(upload: Upload) -> list[tuple[int, str]]:
    """The size of each entry at the folder's top, largest first."""
    sizes: dict[str, int] = {}
    for relative in upload.files:
        top = relative.split("/", 1)[0] + ("/" if "/" in relative else "")
        sizes[top] = sizes.get(top, 0) + os.path.getsize(os.path.join(upload.folder, relative))
    return sorted(((size, name) for name, size in sizes.items()), reverse=True)


def _megabytes(size: int) -> str:
    return f"{size / _MB:.1f} MB"


def check_size(upload: Upload, max_upload_mb: float) -> None:
    """Refuse an upload over the limit, naming its largest entries."""
    if upload.size <= max_upload_mb * _MB:
        return
    largest = ", ".join(
        f"{name} ({_megabytes(size)})" for size, name in _top_level_sizes(upload)[:_LARGEST_SHOWN]
    )
    raise UsageError(
        f"the folder `{upload.folder}` to upload holds {_megabytes(upload.size)}, over "
        f"--max-upload {max_upload_mb:g} MB; its largest entries: {largest}. "
        "Leave some out with --exclude GLOB, or raise --max-upload"
    )
