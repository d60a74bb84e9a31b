"""The workspace's other `.ss` files: their top-level names, the files they import and
their functions as written, for completion and references.

Reading the workspace is defensive: only regular files are read (never a pipe or a
device), with a size limit, without following a link that leaves the workspace folders,
and each file on its own, so that one file that breaks the parser is logged and skipped.
The limits are documented in docs/architecture.md.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from shapescript.check.declarations.type_exprs import is_type_variable_name
from shapescript.check.declarations.type_variables import declared_type_names
from shapescript.records import record
from shapescript.source_files import read_regular
from shapescript.syntax import ast
from shapescript.syntax.parser import parse_text
from shapescript_lsp.features.imported import header

log = logging.getLogger("shapescript_lsp.workspace")

#: A file bigger than this is skipped (one log line).
MAX_FILE_BYTES = 4 * 1024 * 1024
#: At most this many files are indexed; past it, the rest are skipped with a message.
MAX_FILES = 20_000
#: At most this much text is kept in all; past it, the rest are skipped with a message.
MAX_TOTAL_BYTES = 256 * 1024 * 1024
SKIPPED = {"node_modules", "__pycache__", ".git", ".venv", "venv"}
_DECLARATIONS = (
    ast.FnDecl
    | ast.ExternFnDecl
    | ast.DimDecl
    | ast.AliasDecl
    | ast.ModelDecl
    | ast.DataDecl
    | ast.LogsDecl
    | ast.DomainDecl
)


@record(frozen=True)
class ParamSummary:
    name: str
    mut: bool
    has_default: bool


@record(frozen=True)
class FunctionSummary:
    """A function as written in its file, for offering it after `m.` in another file.

    `first_type` is its first parameter's type when that is one name (`Mlp`,
    `attention.Mlp`, `M`); `generic` says that name is a type variable.
    """

    name: str
    params: tuple[ParamSummary, ...]
    first_type: str | None
    generic: bool
    header: str


@dataclass(slots=True)
class IndexedFile:
    path: Path
    module: str
    mtime: float
    text: str
    names: dict[str, str] = field(default_factory=dict)
    #: Its `import` lines (not `import python`): the module's parts and the alias.
    imports: tuple[tuple[tuple[str, ...], str | None], ...] = ()
    functions: tuple[FunctionSummary, ...] = ()


@dataclass(frozen=True, slots=True)
class Candidate:
    """A `.ss` file found under a root: its path in the workspace and its module name."""

    path: Path
    module: str


class WorkspaceIndex:
    """Top-level declarations of every `.ss` file under the workspace folders."""

    def __init__(self) -> None:
        self.roots: list[Path] = []
        self.files: dict[Path, IndexedFile] = {}
        #: The library folder, whose read-only copies aren't the workspace's files.
        self.excluded: Path | None = None
        #: Why the last walk stopped short of the whole workspace, if it did.
        self.truncated: str | None = None
        self._skipped: dict[Path, float] = {}
        self._lock = threading.Lock()

    def set_roots(self, roots: list[Path]) -> None:
        self.roots = list(roots)

    def snapshot(self) -> list[IndexedFile]:
        """The files indexed so far (indexing may still be running)."""
        with self._lock:
            return list(self.files.values())

    def discover(self) -> list[Candidate]:
        """Every `.ss` file under the roots that may be read, up to `MAX_FILES`."""
        found: list[Candidate] = []
        seen: set[Path] = set()
        self.truncated = None
        real_roots = [Path(os.path.realpath(root)) for root in self.roots]
        for root in self.roots:
            if not root.is_dir():
                continue
            for folder, folders, names in os.walk(root):
                folders[:] = [f for f in folders if f not in SKIPPED and not f.startswith(".")]
                for name in names:
                    if not name.endswith(".ss"):
                        continue
                    path = Path(folder) / name
                    if path in seen or self._is_excluded(path):
                        continue
                    if not _readable_inside(path, real_roots):
                        continue
                    if len(found) >= MAX_FILES:
                        self.truncated = (
                            f"the workspace has more than {MAX_FILES} .ss files; "
                            "only the first are offered in completion"
                        )
                        return found
                    seen.add(path)
                    module = ".".join(path.relative_to(root).with_suffix("").parts)
                    found.append(Candidate(path, module))
        return found

    def _is_excluded(self, path: Path) -> bool:
        return self.excluded is not None and path.is_relative_to(self.excluded)

    def index(
        self, candidates: list[Candidate], progress: Callable[[int], None] | None = None
    ) -> None:
        """Index these files (each in isolation) and forget files no longer there."""
        wanted = {candidate.path for candidate in candidates}
        with self._lock:
            for path in [path for path in self.files if path not in wanted]:
                del self.files[path]
        total = sum(len(indexed.text) for indexed in self.snapshot())
        for done, candidate in enumerate(candidates, 1):
            total += self._index_one(candidate, total)
            if progress is not None:
                progress(done)

    def _index_one(self, candidate: Candidate, total: int) -> int:
        """Index one file if it changed; the number of characters it added."""
        path = candidate.path
        try:
            mtime = path.stat().st_mtime
        except OSError:
            return 0
        known = self.files.get(path)
        if (known is not None and known.mtime == mtime) or self._skipped.get(path) == mtime:
            return 0
        text = _read_regular(path)
        if text is None:
            self._skipped[path] = mtime
            return 0
        if total + len(text) > MAX_TOTAL_BYTES:
            if self.truncated is None:
                self.truncated = (
                    f"the workspace's .ss files hold more than {MAX_TOTAL_BYTES} bytes; "
                    "the rest are not offered in completion"
                )
            return 0
        try:
            names, imports, functions = _summary(text, str(path))
        except Exception as error:
            log.warning("skipping %s: reading its declarations failed (%r)", path, error)
            self._skipped[path] = mtime
            return 0
        indexed = IndexedFile(path, candidate.module, mtime, text, names, imports, functions)
        with self._lock:
            self.files[path] = indexed
        return len(text) - (len(known.text) if known is not None else 0)

    def refresh(self) -> list[IndexedFile]:
        """Walk and index the whole workspace now (in a thread: it reads files)."""
        self.index(self.discover())
        return self.snapshot()


def _summary(text: str, path: str):
    """A file's top-level names with their kinds, its imports and its functions."""
    module = parse_text(text, path).module
    declared = declared_type_names(module)
    names: dict[str, str] = {}
    imports = []
    functions = []
    for index, item in enumerate(module.items):
        if isinstance(item, ast.ImportDecl):
            imports.append((tuple(item.parts), item.alias))
            continue
        name = getattr(item, "name", None)
        if name and isinstance(item, _DECLARATIONS):
            names[name] = type(item).__name__.removesuffix("Decl").lower()
        if isinstance(item, ast.FnDecl) and item.params:
            functions.append(_function(item, text, module.base_of(index), declared))
    return names, tuple(imports), tuple(functions)


def _function(item: ast.FnDecl, text: str, base: int, declared: set[str]) -> FunctionSummary:
    first = item.params[0].type
    first_type = None
    if first is not None and first.shape is None and len(first.words) == 1:
        word = first.words[0]
        first_type = word.name if word.arg is None else None
    generic = (
        first_type is not None and is_type_variable_name(first_type) and first_type not in declared
    )
    params = tuple(
        ParamSummary(param.name, param.mut, param.default is not None) for param in item.params
    )
    return FunctionSummary(item.name, params, first_type, generic, header(text, item, base))


def _readable_inside(path: Path, real_roots: list[Path]) -> bool:
    """Whether `path` is a regular file, or a link to one inside a workspace folder."""
    try:
        status = os.lstat(path)
    except OSError:
        return False
    if stat.S_ISREG(status.st_mode):
        return True
    if not stat.S_ISLNK(status.st_mode):
        return False
    target = Path(os.path.realpath(path))
    if not any(target.is_relative_to(root) for root in real_roots):
        log.info("not following %s: it links outside the workspace, to %s", path, target)
        return False
    try:
        return stat.S_ISREG(os.stat(target).st_mode)
    except OSError:
        return False


def _read_regular(path: Path) -> str | None:
    """The text of a regular file of at most `MAX_FILE_BYTES`, else None (logged once)."""
    try:
        data = read_regular(os.path.realpath(path), limit=MAX_FILE_BYTES, follow=False)
    except OSError as error:
        level = logging.WARNING if error.errno == errno.EFBIG else logging.INFO
        log.log(level, "skipping %s: %s", path, error.strerror)
        return None
    return data.decode("utf-8", errors="replace")
