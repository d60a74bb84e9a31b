"""The workspace's other `.ss` files: their top-level names, for completion and references."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from shapescript.syntax import ast
from shapescript.syntax.parser import parse_text

MAX_FILES = 2000
REFRESH_SECONDS = 2.0
SKIPPED = {"node_modules", "__pycache__", ".git", ".venv", "venv"}


@dataclass(slots=True)
class IndexedFile:
    path: Path
    module: str
    mtime: float
    text: str
    names: dict[str, str] = field(default_factory=dict)


class WorkspaceIndex:
    """Top-level declarations of every `.ss` file under the workspace folders."""

    def __init__(self) -> None:
        self.roots: list[Path] = []
        self.files: dict[Path, IndexedFile] = {}
        #: The library folder, whose read-only copies aren't the workspace's files.
        self.excluded: Path | None = None
        self._last_refresh = -REFRESH_SECONDS

    def set_roots(self, roots: list[Path]) -> None:
        self.roots = list(roots)

    def refresh(self) -> list[IndexedFile]:
        """Re-read the workspace, at most once per `REFRESH_SECONDS` (completion asks often)."""
        now = time.monotonic()
        if now - self._last_refresh < REFRESH_SECONDS:
            return list(self.files.values())
        self._last_refresh = now
        seen = set()
        for root in self.roots:
            if not root.is_dir():
                continue
            for folder, folders, names in os.walk(root):
                folders[:] = [f for f in folders if f not in SKIPPED and not f.startswith(".")]
                for name in names:
                    if not name.endswith(".ss") or len(seen) >= MAX_FILES:
                        continue
                    path = Path(folder) / name
                    if self.excluded is not None and path.is_relative_to(self.excluded):
                        continue
                    seen.add(path)
                    self._index(root, path)
        for path in list(self.files):
            if path not in seen:
                del self.files[path]
        return list(self.files.values())

    def _index(self, root: Path, path: Path) -> None:
        try:
            mtime = path.stat().st_mtime
        except OSError:
            return
        known = self.files.get(path)
        if known is not None and known.mtime == mtime:
            return
        text = path.read_text(encoding="utf-8", errors="replace")
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        indexed = IndexedFile(path, module, mtime, text)
        for item in parse_text(text, str(path)).module.items:
            name = getattr(item, "name", None)
            if name and isinstance(
                item,
                ast.FnDecl
                | ast.ExternFnDecl
                | ast.DimDecl
                | ast.AliasDecl
                | ast.ModelDecl
                | ast.DataDecl
                | ast.LogsDecl
                | ast.DomainDecl,
            ):
                indexed.names[name] = type(item).__name__.removesuffix("Decl").lower()
        self.files[path] = indexed

    def uses_of(self, module: str, name: str) -> list[tuple[Path, int, int]]:
        """Where other files write `module.name` (path, start and end offsets)."""
        pattern = re.compile(rf"\b{re.escape(module)}\.{re.escape(name)}\b")
        found = []
        for indexed in self.files.values():
            for match in pattern.finditer(indexed.text):
                found.append((indexed.path, match.start() + len(module) + 1, match.end()))
        return found
