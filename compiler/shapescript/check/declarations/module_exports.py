"""What a checked file offers the files that import it, and what a file's imports found.

A file's `ModuleExports` names everything as the file itself does; the importing file's
`ImportTable` holds it renamed under qualified names (see `imports`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from shapescript.check.algebra.sizes import Poly
from shapescript.check.declarations.qualified import QualifiedNames
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.declarations.signatures import Signature
    from shapescript.check.declarations.symbols import Symbol

#: The kinds of declaration another file can name with the file's import (not its own
#: imports, nor its `import python` modules).
EXPORTED_KINDS = frozenset({"dim", "alias", "domain", "fn", "extern", "model", "data", "logs"})


@record(frozen=True)
class Dependency:
    """One import, somewhere among a file's imports: which file it found, with what text."""

    importer: str
    parts: tuple[str, ...]
    path: str | None
    text: str | None


@record
class ImportInfo:
    """What one `import` line of the file resolved to, for the compiler and the editor."""

    #: The name it binds, and the module as written (`models.mlp`).
    name: str
    module: str
    #: The file found (absolute), or None after E2301, E2302 or E2306.
    path: str | None
    #: The import item's span (absolute) and its module name's.
    span: Span
    module_span: Span
    #: Whether it has `as`.
    aliased: bool = False
    #: The name the checker gives that file's declarations (`mlp` in `mlp.Model`).
    prefix: str | None = None


@record
class ModuleExports:
    """What a checked file declares, named as that file names it, and what it imports."""

    path: str
    text: str
    dims: dict[str, Poly] = field(default_factory=dict)
    domains: dict = field(default_factory=dict)
    aliases: dict[str, list] = field(default_factory=dict)
    #: Model name -> (its declaration, its `ModelInfo`).
    models: dict[str, tuple] = field(default_factory=dict)
    records: dict[str, ast.DataDecl | ast.LogsDecl] = field(default_factory=dict)
    #: Functions with their return types (inferred where not declared).
    functions: dict[str, Signature] = field(default_factory=dict)
    #: Every name another file may qualify: its top-level declarations.
    symbols: dict[str, Symbol] = field(default_factory=dict)
    #: For every file it imports, directly or not: the path's prefix in this file.
    prefixes: dict[str, str] = field(default_factory=dict)
    modules: dict[str, ModuleExports] = field(default_factory=dict)
    errors: list[Diagnostic] = field(default_factory=list)
    dependencies: tuple[Dependency, ...] = ()
    #: Its devices line's devices (`cuda[0 1]`), or None without one.
    devices: str | None = None
    #: For each fn, for each parameter whose type is a model, the params it reads
    #: (`Checked.param_reads`).
    param_reads: dict = field(default_factory=dict)
    #: Its logs records' checked metrics (`Checked.logs`).
    logs: dict = field(default_factory=dict)
    #: Its data records' checked fields (`Checked.data`).
    data: dict = field(default_factory=dict)
    #: Its padding facts (`Checked.padding`), so calls into it are followed.
    padding: object = None
    #: Functions that share a name, each taking another model first: by name, each one's
    #: signature by its model (`Checked.overloads`).
    overloads: dict[str, dict[str, Signature]] = field(default_factory=dict)
    #: Where each fn's item starts in its text (of an overloaded name, the first's), for
    #: the instances importing files make of its generic functions.
    bases: dict[str, int] = field(default_factory=dict)
    #: The names its own imports bind -> the prefix its declarations are known by.
    import_prefixes: dict[str, str] = field(default_factory=dict)
    #: Each fn's and extern fn's regularity summary (`regularity.Summary`), its steps
    #: placed in their files, so that calls into it are followed: a mapping that works
    #: each out when first asked for (`regularity_exports.ExportedSummaries`).
    regularity: Mapping = field(default_factory=dict)
    #: Its declarations as importing files name them, by the prefixes they give it
    #: (`imports._Renamed`).
    renamed: dict = field(default_factory=dict, repr=False, compare=False)


@record
class ImportTable:
    """A file's imports: each line's file, the qualified names, and the renamed declarations
    that aren't kept in the module scope's own tables (signatures, model infos, symbols)."""

    infos: list[ImportInfo] = field(default_factory=list)
    names: QualifiedNames = field(default_factory=QualifiedNames)
    #: Each imported file (directly or through others) -> its canonical prefix, and back.
    prefixes: dict[str, str] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)
    modules: dict[str, ModuleExports] = field(default_factory=dict)
    #: The declarations of directly imported files, by qualified name.
    symbols: dict[str, Symbol] = field(default_factory=dict)
    #: The declarations of files imported only through others (`lib.layers.f`).
    chained_symbols: dict[str, Symbol] = field(default_factory=dict)
    #: Every imported file's functions, by qualified name.
    signatures: dict[str, Signature] = field(default_factory=dict)
    model_infos: dict = field(default_factory=dict)
    #: Every imported fn's `param_reads`, by qualified name.
    param_reads: dict = field(default_factory=dict)
    #: Every imported file's regularity summaries (`ModuleExports.regularity`), by the
    #: file's canonical prefix.
    regularity: dict[str, Mapping] = field(default_factory=dict)
    #: Every imported logs record's metrics (`logs_info.LogsInfo`), by qualified name.
    logs_infos: dict = field(default_factory=dict)
    #: Every imported data record's fields (`data_info.DataInfo`), by qualified name.
    data_infos: dict = field(default_factory=dict)
    #: Every imported file's overloaded functions, by qualified name: each one's signature
    #: and its compiled function's qualified name (`attention._ss_forward__Mlp`), by its
    #: model as this file names it.
    overloads: dict[str, dict[str, tuple[Signature, str]]] = field(default_factory=dict)
    dependencies: tuple[Dependency, ...] = ()
    #: Changes whenever an imported file's text, or the file an import finds, does.
    key: int = 0

    def functions_of(self, prefix: str) -> dict[str, Signature]:
        """The functions of the file with this canonical prefix, by their own names."""
        start = prefix + "."
        return {
            name[len(start) :]: signature
            for name, signature in self.signatures.items()
            if name.startswith(start) and "." not in name[len(start) :]
        }


def functions_for_model(
    model: str, own: dict[str, Signature], table: ImportTable | None
) -> dict[str, Signature]:
    """The functions of the file that declares `model` (a checker's model name, such as
    `Mlp` or `attention.Mlp`), by their names in that file: `own` for the file's own
    models, else the imported file's, renamed as this file sees them."""
    prefix, dot, _ = model.rpartition(".")
    if not dot:
        return dict(own)
    if table is None:
        return {}
    return table.functions_of(prefix)


def devices_of(module: ast.Module) -> str | None:
    """The devices a file's devices line declares, as written without spaces."""
    for item in module.items:
        if isinstance(item, ast.DevicesDecl):
            numbers = item.numbers
            return item.device + ("" if numbers is None else f"[{' '.join(map(str, numbers))}]")
    return None
