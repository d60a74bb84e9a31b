"""The declarations pass: module names, dims, shape aliases and signatures.

It is cheap and covers the whole file, so function bodies can then be checked one at a
time against what it found.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Collection, Iterator, Mapping, MutableMapping, Sequence
from typing import Any, cast

from shapescript.check.algebra.fixes import NameIndex, closest, replace, spelling
from shapescript.check.algebra.ranges import Interval
from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.sizes import InexactDivision, Poly, SizeOverflow
from shapescript.check.declarations.overloads import FunctionNames, note_signature, overload_members
from shapescript.check.declarations.placed_symbols import ItemBases, PlacedSymbols
from shapescript.check.declarations.signatures import Signature, build_signature
from shapescript.check.declarations.symbols import Symbol
from shapescript.check.declarations.type_exprs import BUILTIN_DOMAINS, TypeContext, TypeResolver
from shapescript.check.declarations.type_variables import declared_type_names
from shapescript.diagnostics.diagnostic import Fix, Label
from shapescript.records import field, record
from shapescript.records import replace as with_fields
from shapescript.syntax import ast
from shapescript.syntax.lexer import MAX_INT_LITERAL
from shapescript.syntax.parser import shift_diagnostic
from shapescript.syntax.source import Span
from shapescript.syntax.tokens import DTYPES

KIND_WORDS = {
    "dim": "a dim",
    "alias": "a shape alias",
    "domain": "a domain",
    "fn": "a function",
    "extern": "an extern fn",
    "model": "a model",
    "data": "a data record",
    "logs": "a logs record",
    "import": "an imported file",
    "python_module": "a Python module",
    "param": "a parameter",
    "value": "a value",
    "axis": "an axis name",
    "builtin": "a built-in operation",
    "prelude": "a prelude function",
}


@record
class ModuleScope:
    """What the file declares, resolved."""

    path: str
    #: A dict, or after an edit that moved items `PlacedSymbols`.
    symbols: dict[str, Symbol] | PlacedSymbols = field(default_factory=dict)
    dims: dict[str, Poly] = field(default_factory=dict)
    dim_values: dict[str, Poly] = field(default_factory=dict)
    aliases: dict[str, list[ast.Axis]] = field(default_factory=dict)
    domains: set[str] = field(default_factory=set)
    named_types: set[str] = field(default_factory=set)
    functions: dict[str, ast.FnDecl | ast.ExternFnDecl] = field(default_factory=dict)
    #: A dict, or after an edit that moved items `ItemBases`.
    function_bases: Mapping[str, int] = field(default_factory=dict)
    signatures: dict[str, Signature] = field(default_factory=dict)
    python_modules: set[str] = field(default_factory=set)
    models: dict[str, ast.ModelDecl] = field(default_factory=dict)
    #: Each model's checked fields (`models.check_models`), by the model's name.
    model_infos: MutableMapping[str, Any] = field(default_factory=dict)
    #: Functions declared more than once, each taking another model first, by name
    #: (`overloads.OverloadSet`); `functions` and `signatures` hold the first of each.
    overload_sets: dict = field(default_factory=dict)
    records: dict[str, ast.DataDecl | ast.LogsDecl] = field(default_factory=dict)
    #: The names of the logs records, and each one's checked metrics
    #: (`logs_records.check_logs`), by the record's name.
    logs: set[str] = field(default_factory=set)
    logs_infos: MutableMapping[str, Any] = field(default_factory=dict)
    #: The names of the data records (a subset of `records`).
    data_records: set[str] = field(default_factory=set)
    #: Each data record's checked fields (`data_records.check_data_records`), by name.
    data_infos: MutableMapping[str, Any] = field(default_factory=dict)
    #: Dims and aliases whose declaration failed: their uses are unknown, silently.
    broken_names: set[str] = field(default_factory=set)
    domain_intervals: dict[str, Interval] = field(default_factory=dict)
    #: How many devices the file's devices line declares (1 when it has none).
    device_count: int = 1
    #: The other `.ss` files it imports (`imports.ImportTable`), once they are read.
    imports: object = None
    #: The names its declarations give, which a type variable can't have
    #: (`type_variables.declared_type_names`).
    declared_types: set[str] = field(default_factory=set)

    def type_context(self, on_reference=None) -> TypeContext:
        return TypeContext(
            self.dims,
            self.aliases,
            self.domains,
            self.named_types,
            {},
            dim_values=self.dim_values,
            on_reference=on_reference,
            domain_intervals=self.domain_intervals,
            broken=self.broken_names,
            models=self.models.keys(),
            modules=self.imports.names if self.imports is not None else None,
            logs=self.logs,
            data_records=self.data_records,
        )


def suggestion(name: str, candidates, index: NameIndex | None = None) -> str | None:
    """A did-you-mean help for a misspelt name, if a close one exists among `candidates`
    and `index`."""
    match = closest(name, candidates, index)
    return f"did you mean `{match}`?" if match is not None else None


def _doc(decl) -> str | None:
    doc = getattr(decl, "doc", None)
    return doc.text if doc is not None else None


def _interval_end(expr: ast.Expr) -> float | None:
    """A user domain's end: a number, possibly negative, or inf."""
    sign = 1.0
    while isinstance(expr, ast.Unary) and expr.op == "-":
        sign = -sign
        expr = expr.operand
    if isinstance(expr, (ast.IntLit, ast.FloatLit)):
        return sign * float(expr.value)
    if isinstance(expr, ast.InfLit):
        return sign * math.inf
    return None


def _user_domain(decl: ast.DomainDecl, reporter: Reporter) -> Interval | None:
    """A user domain's interval, or None after E0503."""
    if decl.name in BUILTIN_DOMAINS or decl.name in DTYPES:
        reporter.report(
            "E0503",
            f"`{decl.name}` is a built-in {'dtype' if decl.name in DTYPES else 'domain'}",
            decl.name_span,
            "name taken",
            help="choose another name for the domain",
        )
        return None
    bounds = decl.interval
    lo, hi = _interval_end(bounds.lo), _interval_end(bounds.hi)
    if lo is None or hi is None:
        reporter.report(
            "E0503",
            "a domain's ends must be numbers or inf",
            bounds.span,
            "not a number",
        )
        return None
    interval = Interval.make(lo, hi, bounds.lo_closed, bounds.hi_closed)
    if lo > hi or (lo == hi and not (bounds.lo_closed and bounds.hi_closed)):
        reporter.report("E0503", f"the range {interval} is empty", bounds.span, "empty")
        return None
    return interval


def _shift(span: Span, base: int) -> Span:
    return Span(span.start + base, span.end + base)


DEVICE_KINDS = ("cpu", "mps", "cuda")
DEVICE_OPTIONS_HELP = "write `shard params` or `split H`"


def _device_problem(decl: ast.DevicesDecl) -> tuple[str, str] | None:
    """What is wrong with a devices line's device (E1001), as a message and help, if anything."""
    kind, numbers = decl.device, decl.numbers
    if kind not in DEVICE_KINDS:
        return f"`{kind}` isn't a device", "the devices are `cpu`, `mps` and `cuda[...]`"
    if numbers is not None:
        repeated = sorted({number for number in numbers if numbers.count(number) > 1})
        if repeated:
            return (
                f"device number {repeated[0]} is listed twice",
                "list each device number once",
            )
    if kind == "mps" and numbers is not None:
        return "`mps` takes no device numbers", "write `devices mps`"
    if kind == "cuda" and not numbers:
        return "`cuda` needs device numbers", "write the GPUs' numbers, as in `devices cuda[0]`"
    if kind == "cpu" and numbers is not None and len(numbers) < 2:
        return (
            "`cpu[...]` needs two or more device numbers",
            "write `devices cpu` for one CPU, or `cpu[0 1]` for two CPU workers",
        )
    return None


def _mps_without_numbers(decl: ast.DevicesDecl) -> list[Fix]:
    """`mps[0]` as `mps`, the one way to write the device."""
    if decl.device != "mps" or decl.numbers is None:
        return []
    end = decl.options[0].span.start if decl.options else decl.span.end
    return replace(
        Span(decl.device_span.start, end), "mps " if decl.options else "mps", "Write `mps`"
    )


def _option_ok(option: ast.DeviceOption) -> bool:
    """`shard params` or `split NAME`: the two options for several devices."""
    words = option.words
    if words == ["shard", "params"]:
        return True
    return len(words) == 2 and words[0] == "split" and words[1].isidentifier()


@record
class _DevicesLines:
    """The file's devices lines as the declarations pass meets them (E1001-E1004)."""

    first: tuple[ast.DevicesDecl, int] | None = None

    def check(
        self, decl: ast.DevicesDecl, index: int, module: ast.Module, reporter: Reporter
    ) -> bool:
        """Report what is wrong with one devices line; True when it is the file's devices."""
        if self.first is not None:
            first, first_base = self.first
            reporter.report(
                "E1003",
                "the devices are declared twice",
                decl.span,
                "second devices line",
                secondary=[Label(reporter.local(_shift(first.span, first_base)), "first here")],
                help="a file has one devices line: remove this one",
            )
            return False
        self.first = (decl, module.base_of(index))
        earlier = [item for item in module.items[:index] if not isinstance(item, ast.ErrorItem)]
        if earlier:
            reporter.report(
                "E1004",
                "the devices line comes after other declarations",
                decl.span,
                "move this line to the top of the file",
                help="only comments and blank lines may come before the devices line",
            )
        problem = _device_problem(decl)
        if problem is not None:
            message, help_text = problem
            span = Span(decl.device_span.start, decl.span.end)
            reporter.report(
                "E1001",
                message,
                span,
                "not a device this runs on",
                help=help_text,
                fixes=_mps_without_numbers(decl),
            )
        for option in decl.options:
            if not _option_ok(option):
                reporter.report(
                    "E1002",
                    f"`{' '.join(option.words)}` isn't an option of the devices line",
                    option.span,
                    "unknown option",
                    help=DEVICE_OPTIONS_HELP,
                )
        return problem is None


@record
class CollectMemo:
    """What `collect` found, kept for the next analysis of the file: the items and bases
    it read, the scope as it left it (copies of the containers later passes change), and
    which item declared each name."""

    path: str
    items: list
    bases: list[int]
    scope: ModuleScope
    #: The index of the item that declared each name.
    owners: dict[str, int]
    #: When the scope was the previous analysis's brought up to date: the indexes of the
    #: items that are not the previous analysis's own (functions of the same names, as
    #: the others are the same objects, in the same order). None when collected afresh.
    replaced: list[int] | None = None
    #: The index of the item that declared each function or extern fn, in the order of
    #: `scope.functions` (from `owners`, once needed).
    function_owners: dict[str, int] | None = None
    #: The indexes of the `import` items, in order (from `owners`, once needed).
    imports: list[int] | None = None
    #: Whether `check_aliases` found no alias defined in terms of itself among these
    #: items' aliases (the same items as the memo it was brought up to date from, when
    #: it found that there).
    aliases_clean: bool = False

    def import_indexes(self) -> list[int]:
        """The indexes of the items that import another `.ss` file, in order."""
        found = self.imports
        if found is None:
            items = self.items
            found = sorted(
                index for index in self.owners.values() if type(items[index]) is ast.ImportDecl
            )
            self.imports = found  # whole, for a reader on another thread
        return found


def collect_reusing(
    module: ast.Module, path: str, reporter: Reporter, previous: CollectMemo | None
) -> tuple[ModuleScope, CollectMemo | None]:
    """`collect`, or the scope `previous` found when only function bodies and positions
    changed since; with the memo for the next analysis (None when it can't be reused)."""
    found = _collected_before(module, path, previous) if previous is not None else None
    if found is not None:
        assert previous is not None
        kept, replaced, function_owners = found
        return _copy(kept), CollectMemo(
            path,
            module.items,
            module.bases,
            kept,
            previous.owners,
            replaced,
            function_owners,
            previous.imports,
            # Only functions are replaced: the aliases are the same items.
            previous.aliases_clean,
        )
    reported = len(reporter.diagnostics)
    owners: dict[str, int] = {}
    scope = collect(module, path, reporter, owners)
    if len(reporter.diagnostics) != reported or scope.overload_sets:
        # A name declared twice or overloaded: which item a name's symbol comes from
        # depends on more than the item, so the next analysis collects afresh.
        return scope, None
    return scope, CollectMemo(path, module.items, module.bases, _copy(scope), owners)


def _copy(scope: ModuleScope) -> ModuleScope:
    """A scope with copies of the containers that passes after `collect` change; the
    others (the functions, their bases, the declared type names, the Python modules)
    are shared, as nothing changes them after `collect`."""
    return ModuleScope(
        scope.path,
        symbols=scope.symbols.copy(),
        aliases=dict(scope.aliases),
        domains=set(scope.domains),
        named_types=set(scope.named_types),
        functions=scope.functions,
        function_bases=scope.function_bases,
        python_modules=scope.python_modules,
        models=dict(scope.models),
        records=dict(scope.records),
        logs=set(scope.logs),
        data_records=set(scope.data_records),
        broken_names=set(scope.broken_names),
        domain_intervals=dict(scope.domain_intervals),
        device_count=scope.device_count,
        declared_types=scope.declared_types,
    )


def _collected_before(
    module: ast.Module, path: str, previous: CollectMemo
) -> tuple[ModuleScope, list[int], dict[str, int] | None] | None:
    """The scope `previous` holds, brought up to date, when every item is the one it read
    (perhaps moved) or a function of the same name in its place, with the indexes of
    those functions and the index of each function's item; else None. The scope is as
    `collect` leaves it, for the memo: it shares the containers that did not change
    with the previous one, which nothing changes.

    The items other than functions being the same objects, so are the names they declare
    and what they declare them as; a function in place of one of the same name declares
    that name again, since no name was declared twice.
    """
    old_items, new_items = previous.items, module.items
    if previous.path != path or len(old_items) != len(new_items):
        return None
    old_bases = previous.bases or [0] * len(old_items)
    new_bases = module.bases or [0] * len(new_items)
    before = previous.scope
    # Tens of thousands of items in a big file, per keystroke: the items and bases are
    # compared without a Python loop, and only the items replaced are looked at.
    replaced = list(
        itertools.compress(range(len(new_items)), map(operator.is_not, old_items, new_items))
    )
    for index in replaced:
        old, new = old_items[index], new_items[index]
        if type(new) is not ast.FnDecl or type(old) is not ast.FnDecl or old.name != new.name:
            return None
    if not replaced and old_bases == new_bases:
        return before, replaced, previous.function_owners
    functions = before.functions
    if replaced:
        functions = dict(functions)
        for index in replaced:
            function = cast(ast.FnDecl, new_items[index])
            functions[function.name] = function
    # Each function's base is looked up where its declaring item now is, when read.
    owners = _function_owners(previous)
    # The symbols are moved as they are read (`PlacedSymbols`), from where a check last
    # collected them; a function in place of one of the same name is placed there too,
    # unless its symbol is the same (a body edit leaves its name and doc).
    collected = before.symbols
    names = None
    if isinstance(collected, PlacedSymbols):
        found, found_bases, names = collected.found, collected.found_bases, collected.found_names
    else:
        found, found_bases = collected, old_bases
    copied = False
    for index in replaced:
        item = new_items[index]
        symbol = _function_symbol(item, found_bases[index], path)  # type: ignore[arg-type]
        if found.get(item.name) != symbol:  # type: ignore[union-attr]
            if not copied:
                found, copied, names = dict(found), True, None
            found[item.name] = symbol  # type: ignore[index, union-attr]
    scope = with_fields(
        before,
        symbols=PlacedSymbols(found, previous.owners, found_bases, new_bases, None, names),
        functions=functions,
        function_bases=ItemBases(owners, new_bases),
    )
    return scope, replaced, owners


def _function_owners(previous: CollectMemo) -> dict[str, int]:
    """The index of the item that declared each function or extern fn, in the order of
    `scope.functions`: the same for the new items as for the previous ones, whose
    functions they are or have the names of."""
    found = previous.function_owners
    if found is None:
        items = previous.items
        found = {
            name: index
            for name, index in previous.owners.items()
            if items[index].__class__ in _FUNCTION_CLASSES
        }
        previous.function_owners = found  # whole, for a reader on another thread
    return found


#: The classes of the items that declare functions (neither has subclasses).
_FUNCTION_CLASSES = frozenset({ast.FnDecl, ast.ExternFnDecl})


def _function_symbol(item: ast.FnDecl, base: int, path: str) -> Symbol:
    span = item.name_span
    doc = item.doc
    return Symbol(
        item.name,
        "fn",
        Span(span.start + base, span.end + base),
        path,
        doc=doc.text if doc is not None else None,
    )


def collect(
    module: ast.Module, path: str, reporter: Reporter, owners: dict[str, int] | None = None
) -> ModuleScope:
    """Gather module-scope declarations, reporting names declared twice (E0302); with
    `owners`, note there the index of the item that declared each name."""
    if owners is None:
        owners = {}
    scope = ModuleScope(path)
    models = {item.name for item in module.items if isinstance(item, ast.ModelDecl)}
    scope.declared_types = declared_type_names(module)
    function_names = FunctionNames(models, scope.declared_types)
    devices = _DevicesLines()
    function_bases: dict[str, int] = {}
    scope.function_bases = function_bases
    symbols, functions = scope.symbols, scope.functions
    bases = module.bases or [0] * len(module.items)
    for index, (item, base) in enumerate(zip(module.items, bases, strict=True)):
        reporter.base = base
        entries: list[tuple[str, str, Span]] = []
        # Functions first: most items are functions, and most names are declared once.
        if type(item) is ast.FnDecl:
            if not function_names.admit(scope, item, base, reporter):
                continue
            name = item.name
            if name not in symbols:
                symbols[name] = _function_symbol(item, base, path)
                owners[name] = index
                functions[name] = item
                function_bases[name] = base
                continue
            entries.append((name, "fn", item.name_span))
        elif isinstance(item, ast.FnDecl):
            if not function_names.admit(scope, item, base, reporter):
                continue
            entries.append((item.name, "fn", item.name_span))
        elif isinstance(item, ast.DimDecl):
            entries.append((item.name, "dim", item.name_span))
        elif isinstance(item, ast.AliasDecl):
            entries.append((item.name, "alias", item.name_span))
            scope.aliases[item.name] = list(item.shape.axes)
        elif isinstance(item, ast.DomainDecl):
            interval = _user_domain(item, reporter)
            if interval is None:
                scope.broken_names.add(item.name)
                continue
            entries.append((item.name, "domain", item.name_span))
            scope.domains.add(item.name)
            scope.domain_intervals[item.name] = interval
        elif isinstance(item, ast.ExternFnDecl):
            entries.append((item.name, "extern", item.name_span))
        elif isinstance(item, ast.ModelDecl):
            entries.append((item.name, "model", item.name_span))
            scope.named_types.add(item.name)
            scope.models[item.name] = item
        elif isinstance(item, (ast.DataDecl, ast.LogsDecl)):
            kind = "data" if isinstance(item, ast.DataDecl) else "logs"
            entries.append((item.name, kind, item.name_span))
            scope.named_types.add(item.name)
            scope.records[item.name] = item
            if kind == "logs":
                scope.logs.add(item.name)
            else:
                scope.logs.discard(item.name)
            if kind == "data":
                scope.data_records.add(item.name)
        elif isinstance(item, ast.ImportPythonDecl):
            name = item.bound_name
            scope.python_modules.add(name)
            span = Span(item.parts_span.start, item.parts_span.start + len(name))
            if name not in scope.symbols:
                owners[name] = index
            scope.symbols.setdefault(
                name,
                Symbol(
                    name,
                    "python_module",
                    _shift(span, base),
                    path,
                    ".".join(item.parts),
                    _doc(item),
                ),
            )
            continue
        elif isinstance(item, ast.ImportDecl):
            span = item.alias_span or item.parts_span
            entries.append((item.bound_name, "import", span))
        elif isinstance(item, ast.DevicesDecl) and devices.check(item, index, module, reporter):
            scope.device_count = len(set(item.numbers or [])) or 1
        for name, kind, span in entries:
            previous = scope.symbols.get(name)
            if previous is not None:
                reporter.report(
                    "E0302",
                    f"`{name}` is declared twice",
                    span,
                    "second declaration",
                    secondary=[Label(reporter.local(previous.span), "first declared here")],
                    help="rename one of them",
                )
                continue
            scope.symbols[name] = Symbol(name, kind, _shift(span, base), path, doc=_doc(item))
            owners[name] = index
            if kind in ("fn", "extern"):
                scope.functions[name] = item
                function_bases[name] = base
    reporter.base = 0
    return scope


# ---------------------------------------------------------------------- dims


@record
class _Dims:
    """The dim declarations and where each one's item starts."""

    decls: dict[str, ast.DimDecl]
    bases: dict[str, int]
    scope: ModuleScope
    reporter: Reporter
    values: dict[str, Poly | None] = field(default_factory=dict)
    visiting: list[str] = field(default_factory=list)

    def uses(self, name: str) -> list[str]:
        """The dims a dim's value names, left to right."""
        found = []
        stack: list[ast.SizeExpr] = [self.decls[name].value]
        while stack:
            expr = stack.pop()
            if isinstance(expr, ast.SizeBinary):
                stack.append(expr.right)
                stack.append(expr.left)
            elif isinstance(expr, ast.SizeName) and expr.name in self.decls:
                found.append(expr.name)
        return found

    def dependency_order(self) -> list[str]:
        """Every dim after the dims it uses, by a depth-first search with an explicit stack.

        Each cycle met on the way is reported (E0304) and its dims get no value, so that
        working the values out in this order never recurses more than one dim deep.
        """
        order: list[str] = []
        done: set[str] = set()
        for root in self.decls:
            if root in done:
                continue
            path = [root]
            on_path = {root: 0}
            pending = [iter(self.uses(root))]
            while pending:
                used = next(pending[-1], None)
                if used is None:
                    pending.pop()
                    finished = path.pop()
                    del on_path[finished]
                    done.add(finished)
                    order.append(finished)
                elif used in on_path:
                    self._report_cycle(path[on_path[used] :] + [used])
                elif used not in done:
                    on_path[used] = len(path)
                    path.append(used)
                    pending.append(iter(self.uses(used)))
        return order

    def _report_cycle(self, cycle: list[str]) -> None:
        name = cycle[0]
        if name in self.values:
            return
        reporter = self.reporter
        outer_base = reporter.base
        reporter.base = self.bases[name]
        reporter.report(
            "E0304",
            f"dim `{name}` is defined in terms of itself",
            self.decls[name].name_span,
            "part of a cycle",
            notes=["the cycle: " + " -> ".join(cycle)],
            help="give one of these dims a value that doesn't use the others",
        )
        reporter.base = outer_base
        for member in cycle:
            self.values[member] = None

    def value_of(self, name: str) -> Poly | None:
        """A dim's value, worked out on first use (so dims may come in any order)."""
        if name in self.values:
            return self.values[name]
        reporter = self.reporter
        decl = self.decls[name]
        outer_base = reporter.base
        reporter.base = self.bases[name]
        try:
            if name in self.visiting:
                cycle = self.visiting[self.visiting.index(name) :] + [name]
                reporter.report(
                    "E0304",
                    f"dim `{name}` is defined in terms of itself",
                    decl.name_span,
                    "part of a cycle",
                    notes=["the cycle: " + " -> ".join(cycle)],
                    help="give one of these dims a value that doesn't use the others",
                )
                for member in cycle:
                    self.values[member] = None
                return None
            self.visiting.append(name)
            try:
                result = self._size(decl, decl.value)
            except SizeOverflow:
                reporter.report(
                    "E0414",
                    f"dim `{name}` is too large: it doesn't fit in 128 bits",
                    decl.value.span,
                    "overflows",
                )
                result = None
            self.visiting.pop()
            if name in self.values:
                return self.values[name]
            if result is not None and (result.value is None or result.value < 1):
                reporter.report(
                    "E0305",
                    f"dim `{name}` must be a whole number of at least 1",
                    decl.value.span,
                    f"this is {result}",
                )
                result = None
            self.values[name] = result
            return result
        finally:
            reporter.base = outer_base

    def _size(self, decl: ast.DimDecl, expr: ast.SizeExpr) -> Poly | None:
        reporter = self.reporter
        if isinstance(expr, ast.SizeInt):
            if expr.value > MAX_INT_LITERAL:
                return None  # E0208 already said the literal is too large
            return Poly.const(expr.value)
        if isinstance(expr, ast.SizeName):
            if expr.name in self.decls:
                return self.value_of(expr.name)
            if "." in expr.name:
                from shapescript.check.declarations.imports import imported_dim

                return imported_dim(self.scope, expr, reporter)
            symbol = self.scope.symbols.get(expr.name)
            if symbol is not None:
                reporter.report(
                    "E0303",
                    f"`{expr.name}` is {KIND_WORDS.get(symbol.kind, symbol.kind)}, not a dim",
                    expr.span,
                    "a dim's value may only use numbers and dims",
                )
            else:
                reporter.report(
                    "E0301",
                    f"unknown name `{expr.name}`",
                    expr.span,
                    "not a dim",
                    help=suggestion(expr.name, self.decls),
                    fixes=spelling(expr.name, self.decls, expr.span),
                )
            return None
        left = self._size(decl, expr.left)
        right = self._size(decl, expr.right)
        if left is None or right is None:
            return None
        if expr.op == "+":
            return left + right
        if expr.op == "-":
            return left - right
        if expr.op == "*":
            return left * right
        try:
            return left.divide_exact(right)
        except InexactDivision:
            secondary = [
                Label(
                    reporter.local(_shift(self.decls[part.name].name_span, self.bases[part.name])),
                    f"`{part.name}` = {self.value_of(part.name)}",
                )
                for part in (expr.left, expr.right)
                if isinstance(part, ast.SizeName) and part.name in self.decls
            ]
            reporter.report(
                "E0305",
                f"dim `{decl.name}` isn't a whole number: {left} / {right} doesn't divide exactly",
                expr.span,
                "inexact division",
                secondary=secondary,
                help="choose sizes that divide exactly",
            )
            return None


def evaluate_dims(module: ast.Module, scope: ModuleScope, reporter: Reporter) -> None:
    """Work out every dim's value in dependency order (E0304, E0305, E0301, E0303, E0414)."""
    dims = _Dims({}, {}, scope, reporter)
    for index, item in enumerate(module.items):
        if isinstance(item, ast.DimDecl) and item.name not in dims.decls:
            dims.decls[item.name] = item
            dims.bases[item.name] = module.base_of(index)
    for name in dims.dependency_order():
        dims.value_of(name)
    for name in dims.decls:
        value = dims.value_of(name)
        if value is not None:
            scope.dims[name] = Poly.symbol(name)
            scope.dim_values[name] = value
        else:
            scope.broken_names.add(name)


# ---------------------------------------------------------------------- aliases


def check_aliases(
    module: ast.Module,
    scope: ModuleScope,
    reporter: Reporter,
    indexes: Sequence[int] | None = None,
    memo: CollectMemo | None = None,
) -> None:
    """Report aliases defined in terms of themselves (E2201), each alias of a cycle once;
    with `indexes`, the aliases are among the items at those indexes.

    With the memo `collect_reusing` made for the scope, nothing is looked at when it
    says that the aliases, the same items as when it was made, have no cycle; when
    none is found, it is noted there."""
    if memo is not None and memo.aliases_clean:
        return
    decls: dict[str, ast.AliasDecl] = {}
    bases: dict[str, int] = {}
    items = module.items
    for index in range(len(items)) if indexes is None else indexes:
        item = items[index]
        if isinstance(item, ast.AliasDecl) and item.name not in decls:
            decls[item.name] = item
            bases[item.name] = module.base_of(index)

    def uses(name: str) -> list[str]:
        return [
            axis.size.name
            for axis in decls[name].shape.axes
            if isinstance(axis, ast.SizeAxis)
            and isinstance(axis.size, ast.SizeName)
            and axis.size.name in decls
        ]

    # A depth-first search with an explicit stack: aliases may chain without bound.
    done: set[str] = set()
    in_cycle: set[str] = set()
    for root in decls:
        if root in done:
            continue
        path = [root]
        on_path = {root: 0}
        pending = [iter(uses(root))]
        while pending:
            used = next(pending[-1], None)
            if used is None:
                pending.pop()
                finished = path.pop()
                del on_path[finished]
                done.add(finished)
            elif used in on_path:
                in_cycle.update(path[on_path[used] :])
            elif used not in done:
                on_path[used] = len(path)
                path.append(used)
                pending.append(iter(uses(used)))
    for name in decls:
        if name in in_cycle:
            reporter.base = bases[name]
            reporter.report(
                "E2201",
                f"shape alias `{name}` is defined in terms of itself",
                decls[name].name_span,
                "part of a cycle",
                help="an alias may use other aliases, but not in a cycle",
            )
            scope.aliases.pop(name, None)
            scope.broken_names.add(name)
    reporter.base = 0
    if memo is not None and not in_cycle:
        memo.aliases_clean = True


# ---------------------------------------------------------------------- signatures


@record
class _SignatureMemo:
    """A signature with the names it referred to and its diagnostics, item-relative."""

    decl: object
    signature: Signature
    references: NamedSpans
    diagnostics: list


class NamedSpans:
    """Pairs of a name and a span, kept as two tuples: a memo keeps every signature's
    references for the next analysis, and a pair apiece cost three times the memory."""

    __slots__ = ("names", "spans")

    def __init__(self, pairs: Sequence[tuple[str, Span]]) -> None:
        self.names = tuple(name for name, _ in pairs)
        self.spans = tuple(span for _, span in pairs)

    def __iter__(self) -> Iterator[tuple[str, Span]]:
        return zip(self.names, self.spans, strict=True)

    def __len__(self) -> int:
        return len(self.names)


@record
class SignaturesMemo:
    """One analysis's signatures for the next: each one's `_SignatureMemo` by
    `id(decl)`, all made under `context`; and, when the file has no overloads, its
    functions and their signatures by name, and the names of those that reported
    something."""

    context: int
    entries: dict[int, _SignatureMemo]
    functions: dict | None = None
    signatures: dict[str, Signature] | None = None
    reporting: list[str] = field(default_factory=list)


def build_signatures(
    scope: ModuleScope,
    resolver: TypeResolver,
    on_references,
    context_key: int = 0,
    previous: SignaturesMemo | None = None,
    references_kept: bool = False,
    replaced: Collection[str] | None = None,
) -> SignaturesMemo:
    """Resolve every function's signature; `on_references(references, base)` records the
    names each one refers to, as `(name, span)` pairs relative to the item at `base`.

    A signature whose declaration (the same parsed object, so the same text) and context
    (`context_key`: dims, aliases, domains, records) are unchanged since `previous` is
    reused, with its diagnostics replayed where the item now is, and its references too
    unless `references_kept` (the items of unchanged declarations have them already).
    `replaced`, when known, names the functions whose declarations may be new since
    `previous` (the others are the same, and so are the names). Returns the memo for the
    next check.
    """
    if previous is not None and previous.context != context_key:
        previous = None
    if (
        previous is not None
        and previous.signatures is not None
        and references_kept
        and not scope.overload_sets
    ):
        return _signatures_again(scope, resolver, on_references, previous, replaced)
    reporter = resolver.reporter
    entries: dict[int, _SignatureMemo] = {}
    before = previous.entries if previous is not None else {}
    functions = [(name, decl, scope.function_bases[name]) for name, decl in scope.functions.items()]
    functions += overload_members(scope)
    declared, signatures, overload_sets = scope.functions, scope.signatures, scope.overload_sets
    reporting = []
    for name, decl, base in functions:
        entry = before.get(id(decl))
        if entry is None or entry.decl is not decl:
            entry = _new_signature(scope, resolver, decl, base)
        elif entry.diagnostics:
            reporter.diagnostics.extend(shift_diagnostic(d, base) for d in entry.diagnostics)
        if entry.diagnostics:
            reporting.append(name)
        if entry.references and not (references_kept and entry is before.get(id(decl))):
            on_references(entry.references, base)
        if declared.get(name) is decl:
            signatures[name] = entry.signature
        if name in overload_sets:
            note_signature(scope, decl, entry.signature)
        entries[id(decl)] = entry
    reporter.base = 0
    if overload_sets:
        return SignaturesMemo(context_key, entries)
    # Nothing changes the functions after `collect`, nor the signatures after this pass.
    return SignaturesMemo(context_key, entries, declared, signatures, reporting)


def _new_signature(
    scope: ModuleScope, resolver: TypeResolver, decl: ast.FnDecl | ast.ExternFnDecl, base: int
) -> _SignatureMemo:
    """Resolve one function's signature, noting what it refers to and reports."""
    reporter = resolver.reporter
    references: list[tuple[str, Span]] = []
    reporter.base = base
    before = len(reporter.diagnostics)

    def note(ref: str, span: Span) -> None:
        references.append((ref, span))

    signature = build_signature(decl, resolver, scope.type_context(note))
    diagnostics = [shift_diagnostic(d, -base) for d in reporter.diagnostics[before:]]
    reporter.base = 0
    return _SignatureMemo(decl, signature, NamedSpans(references), diagnostics)


def _signatures_again(
    scope: ModuleScope,
    resolver: TypeResolver,
    on_references,
    previous: SignaturesMemo,
    replaced: Collection[str] | None,
) -> SignaturesMemo:
    """`build_signatures` in a file without overloads whose context is unchanged and
    whose unchanged declarations' items have their references: the previous signatures,
    with those of the declarations not seen before resolved and their references
    recorded, and the diagnostics of each replayed where its item now is."""
    assert previous.signatures is not None and previous.functions is not None
    reporter = resolver.reporter
    before = previous.entries
    functions, bases = scope.functions, scope.function_bases
    changed: dict[str, _SignatureMemo] = {}
    for name in functions if replaced is None else replaced:
        decl = functions[name]
        entry = before.get(id(decl))
        if entry is None or entry.decl is not decl:
            base = bases[name]
            entry = _new_signature(scope, resolver, decl, base)
            if entry.references:
                on_references(entry.references, base)
            changed[name] = entry
    signatures = scope.signatures
    old_functions = previous.functions
    if len(old_functions) == len(functions) and all(name in old_functions for name in changed):
        # The same names: each changed one keeps its place.
        signatures.update(previous.signatures)
        entries = dict(before)
        for name, entry in changed.items():
            signatures[name] = entry.signature
            del entries[id(old_functions[name])]
            entries[id(entry.decl)] = entry
        reporting = [name for name in previous.reporting if name not in changed]
        reporting += [name for name, entry in changed.items() if entry.diagnostics]
    else:
        entries = {}
        reporting = []
        for name, decl in functions.items():
            entry = changed.get(name) or before[id(decl)]
            signatures[name] = entry.signature
            entries[id(decl)] = entry
            if entry.diagnostics:
                reporting.append(name)
    for name in reporting:
        if name in changed:
            continue  # reported as it was resolved
        base = bases[name]
        entry = entries[id(functions[name])]
        reporter.diagnostics.extend(shift_diagnostic(d, base) for d in entry.diagnostics)
    return SignaturesMemo(previous.context, entries, functions, signatures, reporting)
