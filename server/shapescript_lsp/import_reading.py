"""How the server's checks find and read the other `.ss` files a document imports.

The search path is the workspace's folders, then the folders of $PYTHONPATH (the checker
itself looks next to the file first and in the standard library last). A file that is
open in the editor is read as the editor has it, saved or not; any other from disk.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from shapescript.check.declarations.import_session import read_from_disk
from shapescript.check.declarations.module_paths import environment_search_path


def normalized(path: str | os.PathLike) -> str:
    """A path as the checker names files: absolute and normalized (links kept)."""
    return os.path.normpath(os.path.abspath(path))


def search_path(roots: Sequence[Path], environ: Mapping[str, str] | None = None) -> list[str]:
    """Where imports are looked for after the importing file's folder."""
    folders = [str(root) for root in roots]
    for folder in environment_search_path(dict(environ) if environ is not None else None):
        if folder not in folders:
            folders.append(folder)
    return folders


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
