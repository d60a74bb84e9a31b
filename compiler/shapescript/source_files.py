"""The `.ss` files in a folder the command line names, found without leaving the folder.

A link inside the folder is followed only while it stays inside: a link to a file or a
folder elsewhere (a secret, `/dev/zero`) is skipped, and so are pipes, devices and
broken links, each with the reason, so the command line can say what it didn't read.
Nothing here opens a file that isn't a regular one: a pipe would block the reader.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from shapescript.records import record


@record(frozen=True)
class Skipped:
    """A `.ss` file or a folder the walk didn't read, and why."""

    path: str
    reason: str


@record(frozen=True)
class Walked:
    """What a folder holds: its `.ss` files (as the caller spelled the folder) and what
    was skipped."""

    files: list[str]
    skipped: list[Skipped]


def _inside(target: str, root: str) -> bool:
    return os.path.commonpath([target, root]) == root


def _not_regular(mode: int) -> str:
    """Why a file of this mode isn't read: `not a regular file (a pipe)`."""
    for test, name in (
        (stat.S_ISFIFO, "a pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return f"not a regular file ({name})"
    return "not a regular file"


def _shown(folder: str, path: str) -> tuple[tuple[str, ...], str]:
    """The sort key and the spelling of a path found under `folder`."""
    relative = os.path.normpath(os.path.relpath(path, folder))
    spelled = relative if os.path.normpath(folder) == "." else os.path.join(folder, relative)
    return Path(relative).parts, spelled


def walk_folder(folder: str) -> Walked:
    """The `.ss` files under `folder`, recursively and sorted, skipping hidden entries.

    Raises OSError for a folder that can't be listed (never skipped silently)."""
    root = os.path.realpath(folder)
    found: list[tuple[tuple[str, ...], str]] = []
    skipped: list[tuple[tuple[str, ...], Skipped]] = []
    pending = [folder]
    while pending:
        with os.scandir(pending.pop()) as listing:
            entries = list(listing)
        for entry in entries:
            if entry.name.startswith("."):
                continue
            key, spelled = _shown(folder, entry.path)
            wanted = entry.name.endswith(".ss")
            if entry.is_symlink():
                reason = _link_problem(entry.path, root, folder)
                if reason is not None:
                    if wanted or os.path.isdir(entry.path):
                        skipped.append((key, Skipped(spelled, reason)))
                    continue
                if os.path.isdir(entry.path):
                    continue  # its files are found where they are, inside the folder
            try:
                mode = os.stat(entry.path).st_mode
            except OSError as error:
                if wanted:
                    skipped.append((key, Skipped(spelled, error.strerror or str(error))))
                continue
            if stat.S_ISDIR(mode):
                if not entry.is_symlink():
                    pending.append(entry.path)
            elif wanted and stat.S_ISREG(mode):
                found.append((key, spelled))
            elif wanted:
                skipped.append((key, Skipped(spelled, _not_regular(mode))))
    return Walked(
        [spelled for _, spelled in sorted(found)],
        [skip for _, skip in sorted(skipped, key=lambda pair: pair[0])],
    )


def _link_problem(path: str, root: str, folder: str) -> str | None:
    """Why a link inside the folder isn't followed, or None when it is."""
    target = os.path.realpath(path)
    if not _inside(target, root):
        return f"it links outside `{folder}`"
    if not os.path.lexists(target) or not os.path.exists(path):
        return "a broken link"
    return None


def read_regular(
    path: str | os.PathLike[str], limit: int | None = None, follow: bool = True
) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; OSError for anything else (a
    pipe is never waited on, a larger file is EFBIG and never read whole, a link is ELOOP
    unless `follow`).

    The file is opened without blocking and checked once open, so one swapped for a pipe
    or a device after the walk still isn't read."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW)
    descriptor = os.open(path, flags)
    with os.fdopen(descriptor, "rb") as stream:
        status = os.fstat(stream.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, _not_regular(status.st_mode), os.fspath(path))
        if limit is None:
            return stream.read()
        data = b"" if status.st_size > limit else stream.read(limit + 1)
        if status.st_size > limit or len(data) > limit:
            raise OSError(errno.EFBIG, f"over the limit of {limit} bytes", os.fspath(path))
        return data
