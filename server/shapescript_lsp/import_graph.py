"""The workspace's files as completion sees them from one file: which import which (as
their import lines find files now), which would make a cycle if imported, and the module
name an `import` line of the file would write to find another file."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from shapescript.check.declarations import module_paths
from shapescript_lsp.import_reading import normalized
from shapescript_lsp.workspace import IndexedFile


class WorkspaceView:
    """The indexed files other than `own`, seen from `own` (all paths normalized)."""

    def __init__(
        self,
        own: str,
        files: Iterable[IndexedFile],
        search_path: Sequence[str],
    ) -> None:
        self.own = normalized(own) if os.path.isabs(own) else own
        self.search_path = (
            search_path if isinstance(search_path, module_paths.SearchPath) else tuple(search_path)
        )
        self.files = {
            path: indexed for indexed in files if (path := normalized(indexed.path)) != self.own
        }
        self._targets: dict[str, dict[str, str]] = {}
        self._importers: frozenset[str] | None = None

    def find(self, parts: Sequence[str], importer: str) -> str | None:
        return module_paths.find(parts, importer, self.search_path)

    def targets(self, path: str) -> dict[str, str]:
        """The files an indexed file's imports find, by the name each import binds."""
        found = self._targets.get(path)
        if found is None:
            found = {}
            indexed = self.files.get(path)
            for parts, alias in indexed.imports if indexed is not None else ():
                target = self.find(parts, path)
                if target is not None:
                    found[alias or parts[-1]] = target
            self._targets[path] = found
        return found

    def importers_of_own(self) -> frozenset[str]:
        """The files that import the document, directly or through others: importing
        any of them from it would be a cycle."""
        if self._importers is None:
            importers: dict[str, list[str]] = {}
            for path in self.files:
                for target in set(self.targets(path).values()):
                    importers.setdefault(target, []).append(path)
            reached = {self.own}
            pending = [self.own]
            while pending:
                for importer in importers.get(pending.pop(), ()):
                    if importer not in reached:
                        reached.add(importer)
                        pending.append(importer)
            self._importers = frozenset(reached - {self.own})
        return self._importers

    def importable(self, path: str) -> bool:
        """Whether the document may import the file (it isn't the file, nor an importer)."""
        return path != self.own and path not in self.importers_of_own()

    def module_name(self, path: str) -> str | None:
        """How the document's `import` writes the file: from its own folder, else from a
        folder of the search path; None when no name finds that very file."""
        folders = ([os.path.dirname(self.own)] if os.path.isabs(self.own) else []) + list(
            self.search_path
        )
        installed = getattr(self.search_path, "installed", None)
        if installed is not None:
            folders += list(installed())
        for folder in folders:
            relative = os.path.relpath(path, folder)
            if relative.startswith(os.pardir) or not relative.endswith(".ss"):
                continue
            parts = relative[: -len(".ss")].split(os.sep)
            if all(part.isidentifier() for part in parts) and self.find(parts, self.own) == path:
                return ".".join(parts)
        return None
