"""The files a run created or changed, found in the container and written back here."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from shapescript.atomic_write import write_bytes
from shapescript.modal_run.upload import excluded

Snapshot = Mapping[str, tuple[int, int]]


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """A file the program created or changed, by path relative to the synced folder."""

    path: str
    data: bytes


def snapshot(folder: str) -> dict[str, tuple[int, int]]:
    """Each file under `folder` (not in excluded folders) with its size and change time."""
    found: dict[str, tuple[int, int]] = {}
    pending = [""]
    while pending:
        relative_dir = pending.pop()
        try:
            entries = list(os.scandir(os.path.join(folder, relative_dir)))
        except OSError:
            continue
        for entry in entries:
            relative = f"{relative_dir}/{entry.name}" if relative_dir else entry.name
            if excluded(relative, ()):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(relative)
                elif entry.is_file(follow_symlinks=False):
                    status = entry.stat(follow_symlinks=False)
                    found[relative] = (status.st_size, status.st_mtime_ns)
            except OSError:
                continue
    return found


def changed_files(folder: str, before: Snapshot) -> list[ChangedFile]:
    """The files under `folder` that are new or differ from `before` (deleted ones aren't)."""
    changed = []
    for relative, stamp in sorted(snapshot(folder).items()):
        if before.get(relative) == stamp:
            continue
        try:
            with open(os.path.join(folder, relative), "rb") as handle:
                changed.append(ChangedFile(relative, handle.read()))
        except OSError:
            continue
    return changed


def _inside(folder: str, relative: str) -> str:
    """The local path of a file that came back, refusing one that would leave the folder."""
    root = os.path.realpath(folder)
    target = os.path.realpath(os.path.join(root, relative))
    if os.path.isabs(relative) or os.path.commonpath([root, target]) != root:
        raise ValueError(f"a file that came back, `{relative}`, is outside `{folder}`")
    return os.path.join(root, relative)


def apply(folder: str, files: Iterable[ChangedFile]) -> list[str]:
    """Write the files that came back into `folder`, each atomically; their paths."""
    written = []
    for changed in files:
        target = _inside(folder, changed.path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        write_bytes(target, changed.data)
        written.append(target)
    return written
