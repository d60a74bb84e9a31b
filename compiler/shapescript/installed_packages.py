"""Where installed packages are: the folders of a Python interpreter's sys.path.

The command line asks `--python`, else the active virtual environment's Python
($VIRTUAL_ENV), else $SHAPESCRIPT_PYTHON, else the Python the `shapescript` command runs
on (elsewhere: `python3`, `python` on Windows). The answer is kept as JSON in the user
cache folder until the interpreter or a folder of its path changes (its modification
time), as installing a package or a `.pth` file does.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from shapescript import atomic_write
from shapescript.cache_folder import cache_root, private_folder
from shapescript.check.declarations.module_paths import SearchPath, environment_search_path

#: The environment variable that names the interpreter when nothing more specific does.
PYTHON_VARIABLE = "SHAPESCRIPT_PYTHON"
_CACHE_NAME = "interpreters.json"
_ASK = "import json, sys; print(json.dumps(sys.path))"
#: Answers already found in this process, by interpreter (checked like the cached ones).
_asked: dict[str, dict] = {}


def chosen_interpreter(
    python: str | None = None,
    environ: Mapping[str, str] | None = None,
    fallback: str | None = None,
) -> str:
    """The interpreter whose packages imports find, by the order the module docstring
    gives; `fallback` (the command line's own Python) comes before `python3`."""
    env = os.environ if environ is None else environ
    if python:
        return python
    venv = env.get("VIRTUAL_ENV")
    if venv:
        scripts = "Scripts" if sys.platform == "win32" else "bin"
        name = "python.exe" if sys.platform == "win32" else "python"
        return os.path.join(venv, scripts, name)
    if env.get(PYTHON_VARIABLE):
        return env[PYTHON_VARIABLE]
    if fallback:
        return fallback
    return "python" if sys.platform == "win32" else "python3"


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _cache_file() -> Path | None:
    folder = private_folder(cache_root())
    return None if folder is None else folder / _CACHE_NAME


def _read_cache(path: Path | None) -> dict[str, dict]:
    if path is None:
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _still_valid(entry: object) -> list[str] | None:
    """The cached folders, when the interpreter and every folder have their recorded times."""
    if not isinstance(entry, dict):
        return None
    folders = entry.get("folders")
    times = entry.get("mtimes")
    if not isinstance(folders, list) or not isinstance(times, dict):
        return None
    if _mtime(str(entry.get("executable", ""))) != entry.get("executable_mtime"):
        return None
    for folder in folders:
        if not isinstance(folder, str) or _mtime(folder) != times.get(folder):
            return None
    return folders


def _ask(executable: str) -> list[str]:
    """The folders of the interpreter's sys.path; none when it can't be run."""
    environ = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    try:
        done = subprocess.run(
            [executable, "-c", _ASK],
            capture_output=True,
            text=True,
            timeout=30,
            env=environ,
            check=False,
        )
        found = json.loads(done.stdout) if done.returncode == 0 else []
    except (OSError, ValueError, subprocess.SubprocessError):
        return []
    return [folder for folder in found if isinstance(folder, str) and os.path.isdir(folder)]


def interpreter_folders(python: str | None = None, fallback: str | None = None) -> list[str]:
    """The folders of the chosen interpreter's sys.path, from the cache when still valid."""
    chosen = chosen_interpreter(python, fallback=fallback)
    executable = shutil.which(chosen) or chosen
    executable = os.path.abspath(executable)
    folders = _still_valid(_asked.get(executable))
    if folders is not None:
        return folders
    cache_file = _cache_file()
    entries = _read_cache(cache_file)
    folders = _still_valid(entries.get(executable))
    if folders is None:
        folders = _ask(executable)
        entries[executable] = {
            "executable": executable,
            "executable_mtime": _mtime(executable),
            "folders": folders,
            "mtimes": {folder: _mtime(folder) for folder in folders},
        }
        if cache_file is not None:
            with contextlib.suppress(OSError):
                atomic_write.write_text(cache_file, json.dumps(entries, indent=1, sort_keys=True))
    _asked[executable] = entries[executable]
    return folders


def command_line_search_path(python: str | None = None) -> SearchPath:
    """The command line's search path: $PYTHONPATH, then (asked for only when needed) the
    chosen interpreter's folders."""
    return SearchPath(
        environment_search_path(), lambda: interpreter_folders(python, fallback=sys.executable)
    )


def running_search_path() -> SearchPath:
    """The search path from Python: sys.path, which already holds the installed packages."""
    return SearchPath(list(sys.path))
