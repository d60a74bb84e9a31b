"""The one way ShapeScript writes a file: a new file beside the target, then a rename.

Every file the project writes (generated modules, formatted sources, `build -o` and
`export -o` output, the import hook's cache, checkpoints and sinks) goes through this
module:

- the new file is made by `tempfile.mkstemp` (``O_CREAT | O_EXCL``) in the target's
  folder, so a link planted at a guessable name is never opened, let alone written
  through;
- it is written, flushed and synced to disk, then renamed over the target with
  `os.replace`, so a reader sees the old file or the new one, never half of one, and a
  failed write (a full disk, `ulimit -f`, a kill, Ctrl-C) leaves the old file whole;
- a link *at the target* is replaced by the new file, not written through, unless the
  caller says the user named that link (``through_link=True``); then the file the link
  points to is the one replaced, in its own folder;
- the temporary file's name holds the host and the process id, so a later write into
  the same folder can remove the ones a killed process left behind (on this host only:
  on a shared disk another host's process can't be asked whether it is alive).

`open_stream` is the same for a file that grows while a program runs (a CSV sink): the
new file is put in place at once, and later rows are appended to it through the same
descriptor.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import tempfile
from collections.abc import Iterator
from functools import cache
from typing import IO

#: What marks our temporary files: `.<target>.sstmp-<host>-<pid>-<random>`.
TEMPORARY_MARK = ".sstmp-"


@cache
def _host() -> str:
    """This machine's name, reduced to characters that are safe in a file name."""
    return re.sub(r"[^A-Za-z0-9_]", "_", socket.gethostname())[:40] or "host"


def target_of(path: str | os.PathLike[str], *, through_link: bool = False) -> str:
    """The file a write of `path` replaces: `path` itself, or with `through_link`, the file
    its chain of links ends at."""
    text = os.fspath(path)
    return os.path.realpath(text) if through_link else os.path.abspath(text)


def _prefix(name: str) -> str:
    return f".{name[:80]}{TEMPORARY_MARK}{_host()}-{os.getpid()}-"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def remove_stale_temporaries(folder: str) -> list[str]:
    """Remove the temporary files of this host's processes that are gone; their names."""
    pattern = re.compile(
        rf"\..+{re.escape(TEMPORARY_MARK)}{re.escape(_host())}-(\d+)-[A-Za-z0-9_]+\.tmp"
    )
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        found = pattern.fullmatch(entry.name)
        if found is None or _alive(int(found.group(1))):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(entry.name)
    return removed


def _sync_folder(folder: str) -> None:
    """Make the rename itself durable, where the system can sync a folder."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _new_temporary(target: str, mode: int | None) -> tuple[int, str]:
    folder, name = os.path.split(target)
    remove_stale_temporaries(folder)
    descriptor, temporary = tempfile.mkstemp(prefix=_prefix(name), suffix=".tmp", dir=folder)
    try:
        if mode is None:
            mode = _existing_mode(target)
        if mode is not None:
            os.fchmod(descriptor, mode)
    except BaseException:
        os.close(descriptor)
        os.unlink(temporary)
        raise
    return descriptor, temporary


def _existing_mode(target: str) -> int | None:
    """The permission bits of the file being replaced, else those a new file would get."""
    try:
        return os.lstat(target).st_mode & 0o7777 if os.path.isfile(target) else _default_mode()
    except OSError:
        return _default_mode()


@cache
def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def atomic_writer(
    path: str | os.PathLike[str],
    *,
    binary: bool = False,
    encoding: str = "utf-8",
    newline: str | None = None,
    through_link: bool = False,
    mode: int | None = None,
) -> Iterator[IO]:
    """A file to write the new contents of `path` to; it replaces `path` when the block
    ends normally, and is removed when it raises (the old file is then untouched).

    `mode` is the new file's permission bits (default: the replaced file's, else what a
    new file gets under the umask)."""
    target = target_of(path, through_link=through_link)
    descriptor, temporary = _new_temporary(target, mode)
    try:
        if binary:
            handle = os.fdopen(descriptor, "wb")
        else:
            handle = os.fdopen(descriptor, "w", encoding=encoding, newline=newline)
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(os.path.dirname(target))


@contextlib.contextmanager
def temporary_path(
    path: str | os.PathLike[str], *, through_link: bool = False, mode: int | None = None
) -> Iterator[str]:
    """For a library that insists on opening a file by name itself (a GGUF writer): the
    name of a new, empty file made by the same rules beside the target, for the library
    to write; it replaces `path` when the block ends normally, after a sync, and is
    removed when it raises."""
    target = target_of(path, through_link=through_link)
    descriptor, temporary = _new_temporary(target, mode)
    os.close(descriptor)
    try:
        yield temporary
        descriptor = os.open(temporary, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(os.path.dirname(target))


def write_bytes(path: str | os.PathLike[str], data: bytes, **options) -> None:
    """Replace `path` with `data` atomically (see `atomic_writer` for the options)."""
    with atomic_writer(path, binary=True, **options) as handle:
        handle.write(data)


def write_text(
    path: str | os.PathLike[str],
    text: str,
    *,
    encoding: str = "utf-8",
    newline: str | None = None,
    **options,
) -> None:
    """Replace `path` with `text` atomically (see `atomic_writer` for the options)."""
    with atomic_writer(path, encoding=encoding, newline=newline, **options) as handle:
        handle.write(text)


def open_stream(
    path: str | os.PathLike[str],
    *,
    encoding: str = "utf-8",
    newline: str | None = None,
    through_link: bool = False,
) -> IO[str]:
    """A new, empty text file put in place of `path` at once, open for appending: what is
    written later goes to the file at `path` (a log that grows while a program runs)."""
    target = target_of(path, through_link=through_link)
    descriptor, temporary = _new_temporary(target, None)
    try:
        os.fsync(descriptor)
        os.replace(temporary, target)
    except BaseException:
        os.close(descriptor)
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(os.path.dirname(target))
    return os.fdopen(descriptor, "w", encoding=encoding, newline=newline)
