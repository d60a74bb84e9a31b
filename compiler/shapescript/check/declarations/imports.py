"""Imports of other `.ss` files: finding them, checking them, and naming what they declare.

Each imported file is checked on its own (see `import_session`, which keeps those checks),
and what it declares is added to the importing file's module scope under qualified names
(see `qualified` and `renaming`). Problems are reported at the import line: no such file
(E2301), files that import each other (E2302), an imported file with errors (E2303), an
import where none can be (E2306), and an installed package built by a newer compiler (E2901).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import ModelType
from shapescript.check.declarations import module_paths
from shapescript.check.declarations.import_session import ImportSession
from shapescript.check.declarations.module_exports import (
    Dependency,
    ImportInfo,
    ImportTable,
    ModuleExports,
    devices_of,
)
from shapescript.check.declarations.overloads import Overload, OverloadSet
from shapescript.check.declarations.overloads import python_name as overload_python_name
from shapescript.check.declarations.renaming import Renamer
from shapescript.check.declarations.symbols import CallTarget
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.records import field, record, replace
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile, Span
from shapescript.version import __version__

if TYPE_CHECKING:
    from shapescript.check.algebra.reporter import Reporter
    from shapescript.check.declarations.module_scope import ModuleScope
    from shapescript.check.declarations.signatures import Signature


def attach(
    module: ast.Module,
    scope: ModuleScope,
    reporter: Reporter,
    session: ImportSession,
    indexes: Sequence[int] | None = None,
) -> ImportTable:
    """Resolve and check the file's imports and add what they declare to its scope; with
    `indexes`, the imports are among the items at those indexes."""
    table = ImportTable()
    scope.imports = table
    names = table.names
    dependencies: list[Dependency] = []
    loaded: list[tuple[ImportInfo, ModuleExports]] = []
    items = module.items
    for index in range(len(items)) if indexes is None else indexes:
        item = items[index]
        if not isinstance(item, ast.ImportDecl):
            continue
        base = module.base_of(index)
        reporter.base = base
        bound = item.bound_name
        shown = module_paths.shown_name(item.parts)
        names.files.setdefault(bound, shown)
        info = ImportInfo(
            bound,
            ".".join(item.parts),
            None,
            _shift(item.span, base),
            _shift(item.parts_span, base),
            aliased=item.alias is not None,
        )
        table.infos.append(info)
        exports = _resolve(item, info, module, scope, reporter, session, dependencies)
        if exports is None:
            if bound not in names.prefixes:
                names.broken.add(bound)
            continue
        names.broken.discard(bound)
        loaded.append((info, exports))
        symbol = scope.symbols.get(bound)
        own_span = _shift(item.alias_span or item.parts_span, base)
        if symbol is not None and symbol.kind == "import" and symbol.span == own_span:
            scope.symbols[bound] = replace(symbol, detail=info.path or "")
    reporter.base = 0
    _name_files(table, loaded)
    for path, prefix in table.prefixes.items():
        _add_module(scope, table, table.modules[path], prefix, direct="." not in prefix)
    table.dependencies = tuple(dependencies)
    table.key = hash(table.dependencies)
    return table


def _resolve(
    item: ast.ImportDecl,
    info: ImportInfo,
    module: ast.Module,
    scope: ModuleScope,
    reporter: Reporter,
    session: ImportSession,
    dependencies: list[Dependency],
) -> ModuleExports | None:
    """The checked file an import line finds, after reporting what is wrong with it."""
    shown = module_paths.shown_name(item.parts)
    span = item.parts_span
    if module.notebook:
        reporter.report(
            "E2306",
            "`import` of a `.ss` file can't be used here",
            item.span,
            "import in a notebook cell",
            notes=["a notebook cell runs only its own code, so it can't import other files"],
            help="put what you import into the cell or the file",
        )
        return None
    path = session.find(item.parts, scope.path)
    dependencies.append(
        Dependency(
            scope.path, tuple(item.parts), path, session.read(path) if path is not None else None
        )
    )
    if path is None:
        where = (
            "next to this file, on the search path or in the standard library"
            if module_paths.is_file_path(scope.path)
            else "on the search path or in the standard library"
        )
        reporter.report(
            "E2301",
            f"no file `{shown}` {where}",
            span,
            "no such file",
            help="check the name, or put the folder that has the file on the Python path",
        )
        return None
    info.path = path
    built = module_paths.newer_build(path)
    if built is not None:
        dotted = ".".join(item.parts)
        reporter.report(
            "E2901",
            f"`{dotted}` was built by a newer compiler ({built})",
            span,
            "package built by a newer compiler",
            notes=[
                f"this is ShapeScript {__version__}; the package's "
                f"{module_paths.BUILD_RECORD} says it needs {_major_minor_text(built)} or later"
            ],
            help=f"upgrade: pip install --upgrade 'shapescript>={_major_minor_text(built)}'",
        )
        return None
    own = os.path.normpath(os.path.abspath(scope.path)) if scope.path else ""
    chain = session.cycle(path, own) if module_paths.is_file_path(scope.path) else None
    if chain is None and path in session.checking:
        chain = [path, own]
    if chain is not None:
        _report_cycle(item, chain, own, reporter)
        return None
    exports = session.load(path)
    dependencies.extend(exports.dependencies)
    if not _devices_agree(item, module, scope, exports, shown, reporter):
        return None
    errors = exports.errors
    if errors and not any(other.path == path for other in scope.imports.infos[:-1]):
        count = "an error" if len(errors) == 1 else f"{len(errors)} errors"
        reporter.report(
            "E2303",
            f"`{shown}` has {count}",
            span,
            "imported file with errors",
            notes=[note for error in errors for note in _notes(error, exports, shown)],
            help="fix the imported file; `shapescript check` on it shows the errors in full",
        )
    return exports


def _major_minor_text(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _devices_agree(
    item: ast.ImportDecl,
    module: ast.Module,
    scope: ModuleScope,
    exports: ModuleExports,
    shown: str,
    reporter: Reporter,
) -> bool:
    """E2306: a program on several devices can't import other files yet (each device's
    worker runs only its own file's code), and an imported file can't declare other
    devices than this one."""
    if scope.device_count > 1:
        reporter.report(
            "E2306",
            "`import` of a `.ss` file can't be used here",
            item.span,
            "import in a program on several devices",
            notes=["each device's worker runs only this file's code"],
            help="put what you import into this file",
        )
        return False
    own = devices_of(module)
    if exports.devices is not None and own is not None and exports.devices != own:
        reporter.report(
            "E2306",
            f"`{shown}` declares `devices {exports.devices}`, but this file declares "
            f"`devices {own}`",
            item.span,
            "imported file on other devices",
            help="declare the same devices in both files, or none in the imported one",
        )
        return False
    return True


def _report_cycle(item: ast.ImportDecl, chain: list[str], own: str, reporter: Reporter) -> None:
    names = [os.path.basename(path) for path in chain]
    first = module_paths.shown_name(item.parts)
    if len(chain) == 1:
        message = "this file imports itself"
    elif len(chain) == 2:
        message = f"`{first}` imports this file back"
    else:
        middle = ", ".join(f"`{name}`" for name in names[1:-1])
        message = f"`{first}` imports this file back, through {middle}"
    reporter.report(
        "E2302",
        message,
        item.parts_span,
        "part of an import cycle",
        notes=["the files import each other: " + " -> ".join([os.path.basename(own)] + names)],
        help="move what both need into a third file that both import",
    )


def _notes(error: Diagnostic, exports: ModuleExports, shown: str) -> list[str]:
    """An imported file's error as notes: where it is and what it says, then, for an error
    of a file it imports in turn, that error's notes."""
    source = SourceFile.from_text(exports.path, exports.text)
    position = source.position(error.span.start)
    where = f"{shown}:{position.line}:{position.column}"
    notes = [f"{where}: error[{error.code}]: {error.message}"]
    if error.code == "E2303":
        folder = os.path.dirname(shown)
        notes.extend(f"{folder}/{note}" if folder else note for note in error.notes)
    return notes


def _shift(span: Span, base: int) -> Span:
    return Span(span.start + base, span.end + base)


def _name_files(table: ImportTable, loaded: list[tuple[ImportInfo, ModuleExports]]) -> None:
    """Give every imported file its canonical prefix: the import without `as` that finds it,
    else the first that does; a file only imported through others gets the chain."""
    plain: set[str] = set()
    for info, exports in loaded:
        table.modules[exports.path] = exports
        if exports.path not in table.prefixes or (not info.aliased and exports.path not in plain):
            table.prefixes[exports.path] = info.name
        if not info.aliased:
            plain.add(exports.path)
    for _, exports in loaded:
        prefix = table.prefixes[exports.path]
        for path, inner in exports.prefixes.items():
            if path not in table.prefixes:
                table.prefixes[path] = f"{prefix}.{inner}"
                table.modules[path] = exports.modules[path]
    for info, exports in loaded:
        info.prefix = table.prefixes[exports.path]
        table.names.prefixes[info.name] = info.prefix
    for path, prefix in table.prefixes.items():
        table.paths[prefix] = path
        table.names.declared[prefix] = frozenset(table.modules[path].symbols)


def _renamer(table: ImportTable, exports: ModuleExports, prefix: str) -> Renamer:
    names: dict[str, str] = {}
    functions: dict[str, str] = {}

    def add(module: ModuleExports, old_prefix: str, new_prefix: str) -> None:
        for name, symbol in module.symbols.items():
            old = f"{old_prefix}.{name}" if old_prefix else name
            new = f"{new_prefix}.{name}"
            (functions if symbol.kind in ("fn", "extern") else names)[old] = new

    add(exports, "", prefix)
    for path, inner in exports.prefixes.items():
        add(exports.modules[path], inner, table.prefixes[path])
    return Renamer(names, functions)


@record
class _Renamed:
    """One imported file's declarations renamed for one set of prefixes (kept with the
    file's check, so a file re-checked on every edit doesn't rename them again)."""

    aliases: dict = field(default_factory=dict)
    models: dict = field(default_factory=dict)
    records: dict = field(default_factory=dict)
    signatures: dict = field(default_factory=dict)
    symbols: dict = field(default_factory=dict)
    overloads: dict = field(default_factory=dict)
    logs: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)


def _renamed(table: ImportTable, exports: ModuleExports, prefix: str) -> _Renamed:
    key = (prefix, tuple((inner, table.prefixes[path]) for path, inner in exports.prefixes.items()))
    found = exports.renamed.get(key)
    if found is not None:
        return found
    renamer = _renamer(table, exports, prefix)
    found = _Renamed()
    for name, axes in exports.aliases.items():
        found.aliases[f"{prefix}.{name}"] = renamer.written_axes(axes)
    for name, (_, info) in exports.models.items():
        found.models[f"{prefix}.{name}"] = renamer.model(info)
    for name, decl in exports.records.items():
        qualified = f"{prefix}.{name}"
        found.records[qualified] = _renamed_record(decl, qualified, renamer)
    for name, signature in exports.functions.items():
        found.signatures[f"{prefix}.{name}"] = renamer.signature(signature, None)
    for name, symbol in exports.symbols.items():
        found.symbols[f"{prefix}.{name}"] = replace(symbol, name=f"{prefix}.{name}")
    for name, info in exports.logs.items():
        metrics = {
            key: replace(metric, type=renamer.type(metric.type))
            for key, metric in info.metrics.items()
        }
        found.logs[f"{prefix}.{name}"] = replace(info, name=f"{prefix}.{name}", metrics=metrics)
    for name, info in exports.data.items():
        fields = {
            key: replace(data_field, type=renamer.type(data_field.type))
            for key, data_field in info.fields.items()
        }
        found.data[f"{prefix}.{name}"] = replace(info, name=f"{prefix}.{name}", fields=fields)
    for name, members in exports.overloads.items():
        found.overloads[f"{prefix}.{name}"] = {
            renamer.name(model): (
                renamer.signature(signature, None),
                f"{prefix}.{overload_python_name(name, (model,))}",
            )
            for model, signature in members.items()
        }
    exports.renamed[key] = found
    return found


def _add_module(
    scope: ModuleScope, table: ImportTable, exports: ModuleExports, prefix: str, direct: bool
) -> None:
    """Put one imported file's declarations in the scope under their qualified names."""
    renamed = _renamed(table, exports, prefix)
    for name, value in exports.dims.items():
        qualified = f"{prefix}.{name}"
        scope.dims[qualified] = Poly.symbol(qualified)
        scope.dim_values[qualified] = value
    for name, interval in exports.domains.items():
        qualified = f"{prefix}.{name}"
        scope.domains.add(qualified)
        scope.domain_intervals[qualified] = interval
    scope.aliases.update(renamed.aliases)
    for name, (decl, _) in exports.models.items():
        qualified = f"{prefix}.{name}"
        scope.named_types.add(qualified)
        scope.models[qualified] = decl
    table.model_infos.update(renamed.models)
    scope.named_types.update(renamed.records)
    scope.records.update(renamed.records)
    scope.logs.update(
        name for name, decl in renamed.records.items() if isinstance(decl, ast.LogsDecl)
    )
    table.logs_infos.update(renamed.logs)
    scope.data_records.update(
        name for name, decl in renamed.records.items() if isinstance(decl, ast.DataDecl)
    )
    table.data_infos.update(renamed.data)
    table.signatures.update(renamed.signatures)
    table.overloads.update(renamed.overloads)
    for name, reads in exports.param_reads.items():
        table.param_reads[f"{prefix}.{name}"] = reads
    table.regularity[prefix] = exports.regularity
    if direct:
        table.symbols.update(renamed.symbols)
        scope.symbols.update(renamed.symbols)
    else:
        # Source can't write these names (`lib.layers.f`), but an instance of a generic
        # function of `lib` names them so.
        for name, symbol in renamed.symbols.items():
            table.chained_symbols.setdefault(name, symbol)
            scope.symbols.setdefault(name, symbol)


def _renamed_record(decl, name: str, renamer: Renamer):
    """A data or logs record with its fields' written types in this file's names."""
    parts = "fields" if isinstance(decl, ast.DataDecl) else "metrics"
    renamed = [replace(part, type=renamer.written(part.type)) for part in getattr(decl, parts)]
    return replace(decl, name=name, **{parts: renamed})


def finish(scope: ModuleScope) -> None:
    """After the file's own models, logs and data records are checked: add the imported
    ones'."""
    table = scope.imports
    if table is not None:
        scope.model_infos.update(table.model_infos)
        scope.logs_infos.update(table.logs_infos)
        scope.data_infos.update(table.data_infos)


def param_reads(scope: ModuleScope, name: str, index: int) -> tuple[str, ...] | None:
    """Which params of the model given to parameter `index` of the imported fn `name` it
    reads, as its own file found; None when that may be any."""
    table = scope.imports
    signature = signature_of(scope, name)
    if table is None or signature is None or index >= len(signature.params):
        return None
    return table.param_reads.get(name, {}).get(signature.params[index].name)


def functions_in(scope: ModuleScope, prefix: str, name: str) -> dict[str, Signature]:
    """The functions `name` of the imported file with this prefix that take a model first,
    by the model (as this file names it)."""
    table = scope.imports
    if table is None:
        return {}
    qualified = f"{prefix}.{name}" if prefix else name
    members = table.overloads.get(qualified)
    if members is not None:
        return {model: signature for model, (signature, _) in members.items()}
    signature = table.signatures.get(qualified)
    if signature is None or signature.extern or signature.is_generic or not signature.params:
        return {}
    first = signature.params[0].type
    return {first.name: signature} if isinstance(first, ModelType) else {}


def overload_set(scope: ModuleScope, name: str) -> OverloadSet | None:
    """An imported file's overloaded function, by its qualified name, as the calls of this
    file choose among them."""
    table = scope.imports
    members = table.overloads.get(name) if table is not None and "." in name else None
    if members is None:
        return None
    found = OverloadSet(name)
    for model, (signature, _) in members.items():
        found.members[model] = Overload(model, signature.decl, 0, signature)
    return found


def call_target(scope: ModuleScope, chosen: Signature, model: str) -> CallTarget | None:
    """What a call means when it picked another file's function: that file's function, or
    its overload for the model; None for a function of this file."""
    table = scope.imports
    if table is None or chosen.origin != "import":
        return None
    members = table.overloads.get(chosen.name)
    python = chosen.name if members is None else members[model][1]
    return CallTarget(chosen.name, (model,), python)


@record
class ForeignGeneric:
    """Another file's generic function, as a calling file checks its instances: its own
    declaration (body included) and where that starts in its file, and the names to put
    in the body (`instance_decls`): that file's declarations as this file names them, and
    its imports' bound names with the prefixes those names are known by."""

    prefix: str
    exports: ModuleExports
    decl: ast.FnDecl
    base: int
    names: dict[str, str]
    modules: dict[str, str]


def foreign_generic(scope: ModuleScope, signature: Signature) -> ForeignGeneric | None:
    """The generic function an imported signature (`std.fit`) stands for; None for this
    file's own functions."""
    table = scope.imports
    if table is None or signature.origin != "import" or "." not in signature.name:
        return None
    prefix, _, plain = signature.name.rpartition(".")
    path = table.paths.get(prefix)
    exports = table.modules.get(path) if path is not None else None
    original = exports.functions.get(plain) if exports is not None else None
    if original is None or not isinstance(original.decl, ast.FnDecl):
        return None
    key = ("names", prefix, tuple(sorted(table.prefixes.items())))
    names = exports.renamed.get(key)
    if names is None:
        renamer = _renamer(table, exports, prefix)
        names = exports.renamed[key] = {**renamer.names, **renamer.functions}
    base = exports.bases.get(plain, 0)
    return ForeignGeneric(prefix, exports, original.decl, base, names, exports.import_prefixes)


def signature_of(scope: ModuleScope, name: str) -> Signature | None:
    """An imported function's signature, by its qualified name."""
    table = scope.imports
    return table.signatures.get(name) if table is not None and "." in name else None


def imported_dim(scope: ModuleScope, expr: ast.SizeName, reporter: Reporter) -> Poly | None:
    """Another file's dim in a dim's value, `dim H = 2 * attention.D`: its value."""
    from shapescript.check.declarations.qualified import BadName

    table = scope.imports
    if table is None:
        reporter.report("E0301", f"unknown name `{expr.name}`", expr.span, "not a dim")
        return None
    try:
        name = table.names.resolve(expr.name, expr.span, reporter.report)
    except BadName:
        return None
    value = scope.dim_values.get(name)
    if value is None or name not in scope.dims:
        reporter.report(
            "E0303",
            f"`{expr.name}` isn't a dim",
            expr.span,
            "a dim's value may only use numbers and dims",
        )
        return None
    return value
