"""The user cache folder, and the rule for using it: private to its owner, or not at all.

`$SHAPESCRIPT_CACHE_DIR` names the folder, else it is `shapescript` in the platform's
user cache folder. `private_folder` makes a folder with mode 0700 and refuses one that
another user owns or that its group or others may write to, since whoever can write
there chooses what ShapeScript later reads from it; a refused folder is named once per
process on stderr. Nothing kept in such a folder may run code when read.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

CACHE_VARIABLE = "SHAPESCRIPT_CACHE_DIR"

_warned: set[str] = set()


def cache_root() -> Path:
    """`$SHAPESCRIPT_CACHE_DIR`, else `shapescript` in the platform's user cache folder."""
    chosen = os.environ.get(CACHE_VARIABLE)
    if chosen:
        return Path(chosen)
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "shapescript"


def private_folder(folder: Path) -> Path | None:
    """`folder`, made with mode 0700 if missing, when only this user can write to it;
    else None, with one warning per folder and process."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
        status = folder.stat()
    except OSError as error:
        _warn(folder, f"can't be made or read ({error.strerror or error})")
        return None
    problem = _why_unsafe(status)
    if problem is not None:
        _warn(folder, problem)
        return None
    return folder


def _why_unsafe(status: os.stat_result) -> str | None:
    """What makes a folder with this status unsafe to read back from, if anything."""
    if not stat.S_ISDIR(status.st_mode):
        return "is not a folder"
    if not hasattr(os, "geteuid"):
        return None
    if status.st_uid != os.geteuid():
        return f"belongs to another user (uid {status.st_uid})"
    if status.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"can be written by other users (mode {stat.S_IMODE(status.st_mode):04o})"
    return None


def _warn(folder: Path, problem: str) -> None:
    key = str(folder)
    if key in _warned:
        return
    _warned.add(key)
    print(
        f"shapescript: warning: not using the cache folder {folder}: it {problem}; "
        f"make it yours with mode 0700 (chmod 700), or set {CACHE_VARIABLE} to another folder",
        file=sys.stderr,
    )
