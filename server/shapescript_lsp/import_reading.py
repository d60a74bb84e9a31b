"""How the server's checks find and read the other `.ss` files a document imports.

The search path is the workspace's folders, then the folders of $PYTHONPATH (the checker
itself looks next to the file first and in the standard library then), then installed
packages: the sys.path of the server's Python option (`shapescript/setPython`), else the
server's own. A file that is
open in the editor is read as the editor has it, saved or not; any other from disk.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from shapescript.check.declarations.import_session import read_from_disk
from shapescript.check.declarations.module_paths import SearchPath, environment_search_path


def normalized(path: str | os.PathLike) -> str:
    """A path as the checker names files: absolute and normalized (links kept)."""
    return os.path.normpath(os.path.abspath(path))


def search_path(
    roots: Sequence[Path],
    environ: Mapping[str, str] | None = None,
    python: Callable[[], str | None] | None = None,
) -> SearchPath:
    """Where imports are looked for after the importing file's folder; `python` gives the
    interpreter whose packages are installed ones (None: the server's own)."""
    folders = [str(root) for root in roots]
    for folder in environment_search_path(dict(environ) if environ is not None else None):
        if folder not in folders:
            folders.append(folder)
    return SearchPath(folders, lambda: installed_folders(python() if python else None))


def installed_folders(python: str | None) -> list[str]:
    """The folders of `python`'s sys.path, or of the server's own when it is None."""
    if python:
        from shapescript.installed_packages import interpreter_folders

        return interpreter_folders(python)
    return [folder for folder in sys.path if folder and os.path.isdir(folder)]


class Texted(Protocol):
    text: str


class OpenFirstReader:
    """The checker's reader: an open document's current text by its path, else the file's.

    Called from analysis threads; `open_documents` maps each open document's normalized
    path to the document (anything with a `text`), and the server keeps it up to date.
    """

    def __init__(self, open_documents: Mapping[str, Texted]) -> None:
        self.open_documents = open_documents

    def __call__(self, path: str) -> str | None:
        document = self.open_documents.get(normalized(path))
        if document is not None:
            return document.text
        return read_from_disk(path)
