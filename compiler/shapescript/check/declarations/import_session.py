"""One check's imports: how files are found and read, and the checks of imported files
kept between checks (by path and text, while every file they import is unchanged)."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

from shapescript.cancellation import IsCancelled
from shapescript.check.declarations import module_paths
from shapescript.check.declarations.module_exports import ModuleExports
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile

#: What a reader callback gives for a path: the file's text, or None if it can't be read.
Reader = Callable[[str], "str | None"]
#: How a session checks an imported file: `checker.check_module`, handed down by the
#: checker so that this layer needn't import the layers above it.
ModuleCheck = Callable[[SourceFile, "ImportSession"], ModuleExports]


def read_from_disk(path: str) -> str | None:
    """A file's text as `shapescript check` reads it; None when it can't be read."""
    from shapescript.syntax.encoding import decode

    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    return decode(data).text


_CACHE_SIZE = 64
#: Checked imported files, by (path, text).
_CHECKED: OrderedDict[tuple[str, str], ModuleExports] = OrderedDict()
#: The import lines of files, by (path, text), for finding cycles without checking.
_LINES: OrderedDict[tuple[str, str], tuple[tuple[str, ...], ...]] = OrderedDict()


#: The language server checks on several threads, which share these caches.
_LOCK = threading.Lock()


def _remember(cache: OrderedDict, key, value) -> None:
    with _LOCK:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > _CACHE_SIZE:
            cache.popitem(last=False)


def _recall(cache: OrderedDict, key):
    """The cached value for `key`, marked as recently used; None if there is none."""
    with _LOCK:
        value = cache.get(key)
        if value is not None:
            cache.move_to_end(key)
        return value


def clear_cache() -> None:
    with _LOCK:
        _CHECKED.clear()
        _LINES.clear()


class ImportSession:
    """One check of a file and of everything it imports: the search path, how files are
    read (each once per session), and the files being checked."""

    def __init__(
        self,
        search_path: Sequence[str] = (),
        read: Reader | None = None,
        cancelled: IsCancelled | None = None,
        *,
        check_module: ModuleCheck,
    ) -> None:
        self.search_path = (
            search_path if isinstance(search_path, module_paths.SearchPath) else tuple(search_path)
        )
        self.check_module = check_module
        self.reader = read or read_from_disk
        self.cancelled = cancelled
        self.texts: dict[str, str | None] = {}
        self.found: dict[tuple[tuple[str, ...], str], str | None] = {}
        self.checking: list[str] = []

    def read(self, path: str) -> str | None:
        if path not in self.texts:
            self.texts[path] = self.reader(path)
        return self.texts[path]

    def find(self, parts: Sequence[str], importer: str) -> str | None:
        key = (tuple(parts), os.path.dirname(importer) if importer else "")
        if key not in self.found:
            self.found[key] = module_paths.find(parts, importer, self.search_path)
        return self.found[key]

    def still_valid(self, exports: ModuleExports) -> bool:
        """Whether every import of a cached check still finds the same file and text."""
        for dependency in exports.dependencies:
            path = self.find(dependency.parts, dependency.importer)
            if path != dependency.path:
                return False
            if path is not None and self.read(path) != dependency.text:
                return False
        return True

    def import_lines(self, path: str) -> tuple[tuple[str, ...], ...]:
        """The modules a file imports, as written (parsed, not checked)."""
        text = self.read(path)
        if text is None:
            return ()
        key = (path, text)
        found = _recall(_LINES, key)
        if found is None:
            from shapescript.syntax.parser import parse

            module = parse(SourceFile.from_text(path, text)).module
            found = tuple(
                tuple(item.parts) for item in module.items if isinstance(item, ast.ImportDecl)
            )
            _remember(_LINES, key, found)
        return found

    def cycle(self, start: str, back_to: str) -> list[str] | None:
        """A chain of files from `start` through imports to `back_to`, if there is one."""
        if start == back_to:
            return [start]
        seen = {start}
        stack: list[tuple[str, list[str]]] = [(start, [start])]
        while stack:
            path, chain = stack.pop()
            for parts in reversed(self.import_lines(path)):
                found = self.find(parts, path)
                if found is None or found in seen:
                    continue
                if found == back_to:
                    return chain + [found]
                seen.add(found)
                stack.append((found, chain + [found]))
        return None

    def load(self, path: str) -> ModuleExports:
        """The check of an imported file: from the cache while it is current."""
        text = self.read(path) or ""
        key = (path, text)
        cached = _recall(_CHECKED, key)
        if cached is not None and self.still_valid(cached):
            return cached
        self.checking.append(path)
        try:
            exports = self.check_module(SourceFile.from_text(path, text), self)
        finally:
            self.checking.pop()
        _remember(_CHECKED, key, exports)
        return exports
