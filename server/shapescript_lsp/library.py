"""The library folder: read-only copies of builtins.ss, prelude.ss and nn.ss to jump into."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from lsprotocol import types

from shapescript import __version__, atomic_write
from shapescript.cache_folder import cache_root, private_folder
from shapescript.check.declarations.builtin_table import builtins_ss
from shapescript.check.declarations.prelude import load_prelude
from shapescript.check.declarations.symbols import Symbol
from shapescript.syntax.source import SourceFile
from shapescript_lsp.positions import range_of

LIBRARY_FILES = {"<builtins>": "builtins.ss", "<prelude>": "prelude.ss", "<nn>": "nn.ss"}


def default_library_dir() -> Path:
    """`lsp-<version>` in the user's cache folder."""
    return cache_root() / f"lsp-{__version__}"


class Library:
    """Writes the library files once and maps their symbols to locations."""

    def __init__(self, folder: Path | None = None) -> None:
        self.chosen = folder is not None
        self.folder = folder or default_library_dir()
        self.texts: dict[str, str] = {}
        self.sources: dict[str, SourceFile] = {}

    def _usable(self) -> bool:
        """Whether the folder, and the cache folder holding the default one, are private."""
        if not self.chosen and private_folder(self.folder.parent) is None:
            return False
        return private_folder(self.folder) is not None

    def write(self) -> None:
        """Write the files, unless the folder is one another user could change."""
        if not self._usable():
            return
        prelude = load_prelude()
        contents = {
            "builtins.ss": builtins_ss(),
            "prelude.ss": prelude.texts["prelude"],
            "nn.ss": prelude.texts["nn"],
        }
        for name, text in contents.items():
            path = self.folder / name
            self.texts[name] = text
            self.sources[name] = SourceFile(str(path), text)
            if _holds(path, text):
                continue
            _write_read_only(path, text)

    def uri(self, file_name: str) -> str:
        return (self.folder / file_name).as_uri()

    def is_library_uri(self, uri: str) -> bool:
        return uri.startswith(self.folder.as_uri())

    def location(self, symbol: Symbol) -> types.Location | None:
        """Where a built-in or prelude symbol is declared in the library folder."""
        file_name = LIBRARY_FILES.get(symbol.path)
        if file_name is None:
            return None
        if not self.sources:
            self.write()
        if not self.sources:
            return None
        source = self.sources[file_name]
        if symbol.path == "<builtins>":
            match = re.search(rf"^fn {re.escape(symbol.name)}\(", source.text, re.M)
            if match is None:
                return None
            start = match.start() + 3
            span = (start, start + len(symbol.name))
            from shapescript.syntax.source import Span

            return types.Location(uri=self.uri(file_name), range=range_of(source, Span(*span)))
        return types.Location(uri=self.uri(file_name), range=range_of(source, symbol.span))


def _holds(path: Path, text: str) -> bool:
    """Whether `path` is a regular file (not a link) whose text is `text`."""
    data = text.encode("utf-8")
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    with os.fdopen(descriptor, "rb") as stream:
        status = os.fstat(stream.fileno())
        if not stat.S_ISREG(status.st_mode) or status.st_size != len(data):
            return False
        return stream.read(len(data) + 1) == data


def _write_read_only(path: Path, text: str) -> None:
    """Write a read-only file atomically (`shapescript.atomic_write`): the new file replaces
    whatever `path` was, a link included, and is never written through it."""
    atomic_write.write_text(path, text, mode=stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
