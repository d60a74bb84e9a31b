"""Imports of other `.ss` files: finding them, checking them, and naming what they declare.

Each imported file is checked on its own (once per text: checks are cached by path and
text, and reused while every file it imports still resolves to the same text), and what
it declares is added to the importing file's module scope under qualified names (see
`qualified` and `renaming`). Problems are reported at the import line: no such file
(E2301), files that import each other (E2302), an imported file with errors (E2303), and
an import where none can be (E2306).
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from shapescript.cancellation import IsCancelled
from shapescript.check import module_paths
from shapescript.check.qualified import QualifiedNames, report_undeclared
from shapescript.check.renaming import Renamer
from shapescript.check.sizes import Poly
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.records import field, record, replace
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile, Span

if TYPE_CHECKING:
    from shapescript.check.bodies import BodyChecker
    from shapescript.check.module_scope import ModuleScope
    from shapescript.check.program import Checked, Symbol
    from shapescript.check.reporter import Reporter
    from shapescript.check.signatures import Signature

#: What a reader callback gives for a path: the file's text, or None if it can't be read.
Reader = Callable[[str], "str | None"]

#: The kinds of declaration another file can name with the file's import (not its own
#: imports, nor its `import python` modules).
EXPORTED_KINDS = frozenset({"dim", "alias", "domain", "fn", "extern", "model", "data", "logs"})
TYPE_KINDS = frozenset({"dim", "alias", "domain", "model", "data", "logs"})


def read_from_disk(path: str) -> str | None:
    """A file's text as `shapescript check` reads it; None when it can't be read."""
    from shapescript.syntax.encoding import decode

    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    return decode(data).text


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

    def type_names(self) -> list[str]:
        return [name for name, symbol in self.symbols.items() if symbol.kind in TYPE_KINDS]


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
    #: Every imported file's functions, by qualified name.
    signatures: dict[str, Signature] = field(default_factory=dict)
    model_infos: dict = field(default_factory=dict)
    #: Every imported fn's `param_reads`, by qualified name.
    param_reads: dict = field(default_factory=dict)
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


# ---------------------------------------------------------------------- a check's imports

_CACHE_SIZE = 64
#: Checked imported files, by (path, text).
_CHECKED: OrderedDict[tuple[str, str], ModuleExports] = OrderedDict()
#: The import lines of files, by (path, text), for finding cycles without checking.
_LINES: OrderedDict[tuple[str, str], tuple[tuple[str, ...], ...]] = OrderedDict()


def _remember(cache: OrderedDict, key, value) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)


def clear_cache() -> None:
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
    ) -> None:
        self.search_path = tuple(search_path)
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
        found = _LINES.get(key)
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
        cached = _CHECKED.get(key)
        if cached is not None and self.still_valid(cached):
            _CHECKED.move_to_end(key)
            return cached
        from shapescript.check.checker import check_module

        self.checking.append(path)
        try:
            exports = check_module(SourceFile.from_text(path, text), self)
        finally:
            self.checking.pop()
        _remember(_CHECKED, key, exports)
        return exports


# ---------------------------------------------------------------------- the import lines


def attach(module: ast.Module, scope: ModuleScope, reporter: Reporter, session: ImportSession):
    """Resolve and check the file's imports and add what they declare to its scope."""
    table = ImportTable()
    scope.imports = table
    names = table.names
    dependencies: list[Dependency] = []
    loaded: list[tuple[ImportInfo, ModuleExports]] = []
    for index, item in enumerate(module.items):
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


def devices_of(module: ast.Module) -> str | None:
    """The devices a file's devices line declares, as written without spaces."""
    for item in module.items:
        if isinstance(item, ast.DevicesDecl):
            numbers = item.numbers
            return item.device + ("" if numbers is None else f"[{' '.join(map(str, numbers))}]")
    return None


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


def _add_module(
    scope: ModuleScope, table: ImportTable, exports: ModuleExports, prefix: str, direct: bool
) -> None:
    """Put one imported file's declarations in the scope under their qualified names."""
    renamer = _renamer(table, exports, prefix)
    for name, value in exports.dims.items():
        qualified = f"{prefix}.{name}"
        scope.dims[qualified] = Poly.symbol(qualified)
        scope.dim_values[qualified] = value
    for name, interval in exports.domains.items():
        qualified = f"{prefix}.{name}"
        scope.domains.add(qualified)
        scope.domain_intervals[qualified] = interval
    for name, axes in exports.aliases.items():
        scope.aliases[f"{prefix}.{name}"] = renamer.written_axes(axes)
    for name, (decl, info) in exports.models.items():
        qualified = f"{prefix}.{name}"
        scope.named_types.add(qualified)
        scope.models[qualified] = decl
        table.model_infos[qualified] = renamer.model(info)
    for name, decl in exports.records.items():
        qualified = f"{prefix}.{name}"
        scope.named_types.add(qualified)
        scope.records[qualified] = _renamed_record(decl, qualified, renamer)
    for name, signature in exports.functions.items():
        table.signatures[f"{prefix}.{name}"] = renamer.signature(signature, None)
    for name, reads in exports.param_reads.items():
        table.param_reads[f"{prefix}.{name}"] = reads
    if direct:
        for name, symbol in exports.symbols.items():
            qualified = f"{prefix}.{name}"
            table.symbols[qualified] = replace(symbol, name=qualified)
            scope.symbols[qualified] = table.symbols[qualified]


def _renamed_record(decl, name: str, renamer: Renamer):
    """A data or logs record with its fields' written types in this file's names."""
    parts = "fields" if isinstance(decl, ast.DataDecl) else "metrics"
    renamed = [replace(part, type=renamer.written(part.type)) for part in getattr(decl, parts)]
    return replace(decl, name=name, **{parts: renamed})


def finish(scope: ModuleScope) -> None:
    """After the file's own models are checked: add the imported models' fields."""
    table = scope.imports
    if table is not None:
        scope.model_infos.update(table.model_infos)


def param_reads(scope: ModuleScope, name: str, index: int) -> tuple[str, ...] | None:
    """Which params of the model given to parameter `index` of the imported fn `name` it
    reads, as its own file found; None when that may be any."""
    table = scope.imports
    signature = signature_of(scope, name)
    if table is None or signature is None or index >= len(signature.params):
        return None
    return table.param_reads.get(name, {}).get(signature.params[index].name)


def signature_of(scope: ModuleScope, name: str) -> Signature | None:
    """An imported function's signature, by its qualified name."""
    table = scope.imports
    return table.signatures.get(name) if table is not None and "." in name else None


# ---------------------------------------------------------------------- a checked file


def exports_of(checked: Checked, scope: ModuleScope) -> ModuleExports:
    """What a checked file offers the files that import it."""
    exports = ModuleExports(checked.source.path, checked.source.text)
    exports.devices = devices_of(checked.module)
    inferred = {
        id(item.item): item.body.inferred for item in checked.items if item.body is not None
    }
    for name, symbol in checked.module_symbols.items():
        kind = symbol.kind
        if kind not in EXPORTED_KINDS:
            continue
        exports.symbols[name] = symbol
        if kind == "dim" and name in scope.dim_values:
            exports.dims[name] = scope.dim_values[name]
        elif kind == "domain" and name in scope.domain_intervals:
            exports.domains[name] = scope.domain_intervals[name]
        elif kind == "alias" and name in scope.aliases:
            exports.aliases[name] = scope.aliases[name]
        elif kind == "model" and name in scope.models and name in scope.model_infos:
            exports.models[name] = (scope.models[name], scope.model_infos[name])
        elif kind in ("data", "logs") and name in scope.records:
            exports.records[name] = scope.records[name]
        elif kind in ("fn", "extern") and name in scope.signatures:
            signature = scope.signatures[name]
            if signature.return_type is None:
                from shapescript.check.types import UNKNOWN

                returned = inferred.get(id(signature.decl), UNKNOWN)
                signature = replace(signature, return_type=returned)
            exports.functions[name] = signature
    table = scope.imports
    if table is not None:
        exports.prefixes = dict(table.prefixes)
        exports.modules = dict(table.modules)
        exports.dependencies = table.dependencies
    exports.errors = [error for error in checked.errors]
    exports.param_reads = dict(checked.param_reads)
    return exports


# ---------------------------------------------------------------------- in function bodies


def qualified_member(checker: BodyChecker, node: ast.Member) -> ast.Name | bool | None:
    """`attention.f` in a body: None when it isn't another file's name; False after E2304
    (or when the import itself failed); else the name as the checker calls it, at the
    member's span (the compiler finds it in `Facts.qualified`)."""
    target = node.target
    if not isinstance(target, ast.Name):
        return None
    bound = target.name
    table = checker.scope.imports
    if table is None or not table.names.is_import(bound):
        return None
    if bound in checker.env.values or bound in checker.env.axes:
        return None
    symbol = checker.scope.symbols.get(bound)
    if symbol is None or symbol.kind != "import":
        return None
    checker.refer(target.span, symbol)
    if bound in table.names.broken:
        return False
    canonical = table.names.canonical(bound, node.name)
    if canonical is None:
        report_undeclared(
            checker.reporter.report,
            table.names.files.get(bound, bound),
            bound,
            node.name,
            node.name_span,
        )
        return False
    checker.facts.qualified[node.span] = canonical
    return ast.Name(canonical, node.span)


def as_name(checker: BodyChecker, node):
    """An expression, with another file's `attention.D` as the name `attention.D`."""
    if isinstance(node, ast.Member):
        found = qualified_member(checker, node)
        if isinstance(found, ast.Name):
            return found
    return node


def qualified_call(checker: BodyChecker, node: ast.Call) -> ast.Call | bool | None:
    """A call of another file's function or model (`attention.f(x)`,
    `attention.Mlp.init(seed=0)`) as a call of its qualified name; None when the callee
    isn't one, False when it names nothing."""
    callee = node.callee
    if not isinstance(callee, ast.Member):
        return None
    found = qualified_member(checker, callee)
    if found is False:
        return False
    if isinstance(found, ast.Name):
        _check_exported_call(checker, found)
        return ast.Call(found, node.args, node.span, node.operands_form)
    if isinstance(callee.target, ast.Member):
        inner = qualified_member(checker, callee.target)
        if inner is False:
            return False
        if isinstance(inner, ast.Name):
            member = ast.Member(inner, callee.name, callee.name_span, callee.span)
            return ast.Call(member, node.args, node.span, node.operands_form)
    return None


def _check_exported_call(checker: BodyChecker, callee: ast.Name) -> None:
    """E2306: an `export fn` can't call another file's functions."""
    symbol = checker.scope.symbols.get(callee.name)
    decl = checker.decl
    if symbol is None or symbol.kind not in ("fn", "extern") or not decl.export:
        return
    checker.reporter.report(
        "E2306",
        f"the exported function `{decl.name}` calls `{callee.name}`, another file's function",
        callee.span,
        "call into another file",
        notes=["an exported program holds only its own file's code"],
        help="put the function into this file, or don't export this one",
    )


def imported_dim(scope: ModuleScope, expr: ast.SizeName, reporter: Reporter) -> Poly | None:
    """Another file's dim in a dim's value, `dim H = 2 * attention.D`: its value."""
    from shapescript.check.qualified import BadName

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
