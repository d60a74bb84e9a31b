"""The checker's entry point: a parsed file in, a `Checked` program out."""

from __future__ import annotations

import bisect
import gc
import itertools
import operator
import os
from collections.abc import Container, Iterable, Mapping, Sequence

from shapescript.cancellation import IsCancelled, stop_if
from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import ModelType
from shapescript.check.analyses.chunk_math import math_in_comments
from shapescript.check.analyses.math_comments import MathProblem
from shapescript.check.analyses.padding import check_padding
from shapescript.check.analyses.placement import place
from shapescript.check.analyses.regularity import outside_of
from shapescript.check.analyses.regularity_errors import gradient_diagnostics
from shapescript.check.bodies import builtin_rules, gradients
from shapescript.check.bodies.asserts import check_top_level
from shapescript.check.bodies.body_checker import Program
from shapescript.check.bodies.generics import instances_of, keep_instances
from shapescript.check.bodies.gradients import read_diagnostics, reads_memo, reads_of_functions
from shapescript.check.bodies.kept_bodies import BodiesMemo, lendable, memo_of, patched
from shapescript.check.bodies.reads_memo import carried_over
from shapescript.check.declarations import imports
from shapescript.check.declarations.data_records import check_data_records
from shapescript.check.declarations.import_session import ImportSession, Reader
from shapescript.check.declarations.logs_records import check_logs
from shapescript.check.declarations.model_memo import DeclarationPass, own_infos
from shapescript.check.declarations.models import check_models
from shapescript.check.declarations.module_exports import ModuleExports
from shapescript.check.declarations.module_scope import (
    ModuleScope,
    build_signatures,
    check_aliases,
    collect_reusing,
    evaluate_dims,
)
from shapescript.check.declarations.nested_models import report_cycles
from shapescript.check.declarations.overloads import overload_members
from shapescript.check.declarations.placed_symbols import PlacedSymbols
from shapescript.check.declarations.prelude import Prelude, load_prelude
from shapescript.check.declarations.symbols import ItemFacts, Reference, Symbol
from shapescript.check.declarations.type_exprs import TypeResolver
from shapescript.check.declarations.type_variables import declared_type_names, looks_generic
from shapescript.check.exporting import exports_of
from shapescript.check.exports import add_export_diagnostics
from shapescript.check.program import Checked
from shapescript.deep import run_deep
from shapescript.diagnostics.diagnostic import Diagnostic, Edit, Fix, Label
from shapescript.records import record
from shapescript.syntax import ast
from shapescript.syntax.parser import ParseResult, parse, shift_diagnostic
from shapescript.syntax.source import SourceFile, Span


def declarations_fingerprint(
    module: ast.Module, text: str, declared: set[str] | None = None
) -> int:
    """A hash of everything a function body's check depends on outside the body itself.

    That is every item's text but the lines that didn't parse (they declare nothing),
    except that a function with a declared return type counts only up to its body:
    editing inside such a body leaves the fingerprint, and so every other function's
    memoized result, as it is. A generic function's body counts:
    its callers check its instances. `declared` is `declared_type_names(module)`, when
    already known.
    """
    parts = []
    if declared is None:
        declared = declared_type_names(module)
    for index, item in enumerate(module.items):
        if isinstance(item, ast.ErrorItem):
            continue
        base = module.base_of(index)
        end = item.span.end
        if (
            isinstance(item, ast.FnDecl)
            and item.return_type is not None
            and not looks_generic(item, declared)
        ):
            end = item.return_type.span.end
        parts.append(text[base + item.span.start : base + end] + _asserts_text(item, base, text))
    return hash((tuple(parts), module.notebook))


def _asserts_text(item: ast.Item, base: int, text: str) -> str:
    """The text of the asserts directly in a function's body: its callers check them
    (`asserts.check_call`), so they count for the callers' context."""
    if not isinstance(item, ast.FnDecl) or not item.body:
        return ""
    return "".join(
        "\n" + text[base + stmt.span.start : base + stmt.span.end]
        for stmt in item.body
        if isinstance(stmt, ast.Assert)
    )


def check_parsed(
    parsed: ParseResult,
    previous: Checked | None = None,
    cancelled: IsCancelled | None = None,
    *,
    search_path: Sequence[str] = (),
    read: Reader | None = None,
    all_facts: bool = True,
    padding_later: bool = False,
) -> Checked:
    """Check a parsed file: declarations first, then each function's body.

    With `previous`, the check of an earlier version of the file, function bodies whose
    text and context haven't changed are not checked again. `cancelled` is asked before
    each function body; once it answers True the check raises `Cancelled`.

    Imported `.ss` files are looked for next to the file, then in each folder of
    `search_path`, then in the standard library; `read(path)` gives a file's text (None
    if it can't be read), by default from disk. Without `all_facts`, only what the
    diagnostics need is worked out: not padding's facts of each function's axes and
    selections, nor which params each fn reads, which codegen and hovers read. That is
    enough for `shapescript check`.
    """
    # As in parsing: what a check allocates mostly stays alive, so the cyclic collector
    # would scan it again and again; pausing it makes a whole-file check about a third faster.
    collecting = gc.isenabled()
    gc.disable()
    try:
        session = ImportSession(search_path, read, cancelled, check_module=check_module)
        path = parsed.source.path
        if path:
            session.checking.append(os.path.normpath(os.path.abspath(path)))
        return _check_parsed(parsed, previous, cancelled, session, all_facts, padding_later)[0]
    finally:
        if collecting:
            # Everything made meanwhile is still in the youngest generation, so the
            # first allocation after enabling would scan all of it; it has no
            # reference cycles to find, so it is moved out of the collector's way.
            gc.freeze()
            gc.enable()


def check_module(source: SourceFile, session: ImportSession) -> ModuleExports:
    """Check a file another file imports, in that file's session: what it declares."""
    parsed = parse(source, cancelled=session.cancelled)
    checked, scope = _check_parsed(parsed, None, session.cancelled, session)
    return exports_of(checked, scope)


def _check_parsed(
    parsed: ParseResult,
    previous: Checked | None,
    cancelled: IsCancelled | None,
    session: ImportSession,
    all_facts: bool = True,
    padding_later: bool = False,
) -> tuple[Checked, ModuleScope]:
    source = parsed.source
    module = parsed.module
    reporter = Reporter()
    scope, collect_memo = collect_reusing(
        module,
        source.path,
        reporter,
        previous.memo.get("collect") if previous is not None else None,
    )
    table = imports.attach(
        module,
        scope,
        reporter,
        session,
        collect_memo.import_indexes() if collect_memo is not None else None,
    )
    fingerprint, context_key, fingerprint_parts = _fingerprints(
        module,
        source.text,
        scope.declared_types,
        previous.memo.get("fingerprint_parts") if previous is not None else None,
        collect_memo.replaced if collect_memo is not None else None,
    )
    if table.infos:
        fingerprint = hash((fingerprint, table.key))
    dims_memo = _dims(module, scope, reporter, (fingerprint, source.path), previous)
    replaced = collect_memo.replaced if collect_memo is not None else None
    by_kind = _indexes_by_kind(module, previous if replaced is not None else None)
    check_aliases(module, scope, reporter, by_kind.get(ast.AliasDecl, ()), collect_memo)
    bases = module.bases or [0] * len(module.items)
    declarations_key = (fingerprint, source.path)
    items, kept = _item_facts(module, bases, previous, declarations_key, replaced, all_facts)
    declarations = DeclarationPass(
        module,
        source.path,
        items,
        source.text,
        fingerprint,
        previous.memo if previous is not None else {},
        kept,
        by_kind,
        reporter,
        replaced,
    )
    scope.model_infos = report_cycles(check_models(scope, declarations), reporter)
    scope.logs_infos = check_logs(scope, declarations)
    scope.data_infos = check_data_records(scope, declarations)
    imports.finish(scope)

    def on_references(references: Iterable[tuple[str, Span]], base: int) -> None:
        # A declaration's references go to the first item of its chunk, unless it kept
        # its declaration facts.
        index = bisect.bisect_left(bases, base)
        if index == len(items) or items[index].base != base or index in kept:
            return
        facts = items[index]
        made = []
        symbols, path = scope.symbols, source.path
        for name, span in references:
            symbol = symbols.get(name)
            if symbol is not None:
                made.append(
                    Reference(span, module_name=name)
                    if symbol.path == path
                    else Reference(span, symbol)
                )
        facts.declaration.references.extend(made)

    if table.infos:
        context_key = hash((context_key, table.key))
    signature_memo = build_signatures(
        scope,
        TypeResolver(reporter),
        on_references,
        context_key,
        previous.memo.get("signatures") if previous is not None else None,
        references_kept=bool(kept),
        replaced=None if replaced is None else [module.items[index].name for index in replaced],  # type: ignore[union-attr]
    )
    program = Program(
        module,
        scope,
        load_prelude(),
        source.text,
        fingerprint,
        previous.memo if previous is not None else None,
        _item_index(module, previous, replaced),
    )
    program.item_texts = fingerprint_parts.texts
    if (
        all_facts
        and previous is not None
        and previous.memo.get("declarations") == declarations_key
        and len(previous.items) == len(items)
    ):
        program.previous_items = previous.items
        found = previous.memo.get("fingerprint_parts")
        program.previous_texts = found.texts if isinstance(found, _FingerprintParts) else None
    program.editor_facts = all_facts
    diagnostics = parsed.diagnostics + reporter.diagnostics
    diagnostics.extend(
        _top_level_asserts(module, items, scope.dim_values, by_kind.get(ast.Assert, ()))
    )
    bodies = _check_bodies(program, items, by_kind.get(ast.FnDecl, []), replaced, cancelled)
    for index in bodies.with_diagnostics:
        base = items[index].base
        diagnostics.extend(shift_diagnostic(d, base) for d in items[index].body.diagnostics)  # type: ignore[union-attr]
    # Only the bodies that differentiate something have reads to check.
    differentiating = [items[index] for index in bodies.differentiating]
    # The functions with bodies, in order: all the regularity analysis and the search for
    # the instances the bodies call look through.
    function_items = list(map(items.__getitem__, by_kind.get(ast.FnDecl, ())))
    with_bodies = list(itertools.compress(function_items, map(_BODY, function_items)))
    functions = _function_decls(scope)
    stale = _reuse_param_reads(program, previous, fingerprint, functions)
    found_reads = read_diagnostics(program, differentiating)
    param_reads = _reads_of_functions(program, previous, fingerprint, stale) if all_facts else {}
    if reads_memo(program).reused and reads_memo(program).cyclic:
        # The edit made a cycle: work every result out afresh, in a full check's order.
        program.__dict__.pop("_param_reads")
        found_reads = read_diagnostics(program, differentiating)
        param_reads = reads_of_functions(program)
    diagnostics.extend(found_reads)
    regularity_memo: dict = {}
    extern_items = [items[index] for index in by_kind.get(ast.ExternFnDecl, ())]
    if differentiating:
        found, regularity_memo = gradient_diagnostics(
            with_bodies,
            differentiating,
            scope.model_infos,
            source,
            fingerprint,
            previous.memo.get("regularity") if previous is not None else None,
            outside_of(
                extern_items,
                scope.symbols,
                scope.imports,
                python_modules=scope.python_modules,
                previous=previous.memo.get("regularity") if previous is not None else None,
            ),
        )
        diagnostics.extend(found)
    placed = Reporter()
    placement = place(module, scope, items, placed)
    diagnostics.extend(placed.diagnostics)
    # On several devices a padded batch's masks are split with it, and the operations
    # across it add up each device's masked sums and real counts.
    padding = check_padding(
        items,
        scope.dim_values,
        scope.imports,
        several=placement.several,
        complete=all_facts and not padding_later,
        previous=previous.padding if previous is not None else None,  # type: ignore[arg-type]
        functions=(function_items, extern_items),
        function_indexes=by_kind.get(ast.FnDecl, ()),
        replaced=replaced,
    )
    diagnostics.extend(padding.diagnostics)
    keep_instances(program)
    math, math_problems = math_in_comments(parsed)
    diagnostics.extend(_math_hints(math_problems))
    diagnostics.sort(key=lambda d: (d.span.start, d.code))
    for diagnostic in diagnostics:
        diagnostic.path = source.path
    checked = Checked(
        source,
        module,
        diagnostics,
        module_symbols=_module_symbols(scope),
        builtin_symbols=_builtin_symbols(program.prelude),
        items=items,
        dim_values=_dim_numbers(scope, dims_memo, previous),
        signatures=dict(program.prelude.signatures) | dict(scope.signatures),
        parse=parsed,
        # Bodies checked without the editor's facts are never lent to a later analysis.
        memo=(program.memo if all_facts else {})
        | {
            "signatures": signature_memo,
            "reads": program.read_summaries,
            "param_reads": (fingerprint, functions, reads_memo(program)),
            "regularity": regularity_memo,
            "reads_of_functions": (fingerprint, param_reads) if all_facts else None,
            "fingerprint_parts": fingerprint_parts,
            "dims": dims_memo,
            **declarations.memos,
            "collect": collect_memo,
            "declarations": declarations_key,
            "by_kind": by_kind,
            "bodies": bodies if all_facts else None,
            "item_index": (module.items, program.item_index),
            "names": program.names or program.previous_memo.get("names"),
        },
        math=math,
        models=own_infos(scope.model_infos),
        logs=own_infos(scope.logs_infos),
        data=own_infos(scope.data_infos),
        param_reads=param_reads,
        overloads={name: overloads.signatures() for name, overloads in scope.overload_sets.items()},
        instances=instances_of([items[index] for index in bodies.calling]),
        imports=table,
        placement=placement,
        padding=padding,
    )
    checked.memo["exports"] = add_export_diagnostics(
        checked,
        (fingerprint, source.path),
        previous.memo.get("exports") if previous is not None else None,
    )
    return checked, scope


def _check_bodies(
    program: Program,
    items: list[ItemFacts],
    functions: list[int],
    replaced: list[int] | None,
    cancelled: IsCancelled | None,
) -> BodiesMemo:
    """Check each function's body at the indexes `functions` (ascending), or keep its
    previous check, and give each body to its item. A keystroke in a big file checks
    the edited body and copies the previous tables (`Program.keep_bodies`)."""
    again = program.keep_bodies(replaced)
    results = program.results
    for index in functions if again is None else again:
        if index not in results:
            stop_if(cancelled)
            program.check_item(index)
    # The items were given the previous analysis's bodies (`_item_facts`): those that
    # may have changed are given theirs now.
    for index in functions if again is None else again:
        items[index].body = results.get(index)
    if again is None or program.previous_bodies is None:
        return memo_of(program.bodies, results, functions)
    return patched(program.previous_bodies, program.bodies, results, again, program.dropped)


def _module_symbols(scope: ModuleScope) -> Mapping[str, Symbol]:
    """The scope's symbols without the names with a `.` (another file's, `mlp.f`)."""
    symbols = scope.symbols
    if isinstance(symbols, PlacedSymbols):
        return symbols.unqualified()
    return {name: symbol for name, symbol in symbols.items() if "." not in name}


def _dim_numbers(
    scope: ModuleScope, dims_memo: tuple | None, previous: Checked | None
) -> dict[str, int]:
    """The dims' values that are numbers: the previous analysis's table when the dims
    were taken from it (`_dims`), which nothing changes after."""
    if dims_memo is not None and previous is not None and previous.memo.get("dims") is dims_memo:
        return previous.dim_values
    return {name: value.value for name, value in scope.dim_values.items() if value.value}


def _top_level_asserts(
    module: ast.Module, items: list[ItemFacts], dims: dict[str, Poly], indexes: Iterable[int]
) -> list[Diagnostic]:
    """Decide each top-level assert (at `indexes`) over the dims; its verdict goes in its
    declaration facts."""
    found: list[Diagnostic] = []
    for index in indexes:
        item = module.items[index]
        assert isinstance(item, ast.Assert)
        reporter = Reporter()
        items[index].declaration.asserts[item.span] = check_top_level(item, dims, reporter)
        base = items[index].base
        found.extend(shift_diagnostic(diagnostic, base) for diagnostic in reporter.diagnostics)
    return found


def _dims(
    module: ast.Module,
    scope: ModuleScope,
    reporter: Reporter,
    key: tuple[int, str],
    previous: Checked | None,
) -> tuple | None:
    """Work out the dims' values (`evaluate_dims`), or take them from the previous
    analysis when the declarations (`key`: their fingerprint and the file's path) are the
    same and working them out reported nothing then. Gives what the next analysis may
    take."""
    found = previous.memo.get("dims") if previous is not None else None
    if found is not None and found[0] == key:
        _, dims, values, broken = found
        scope.dims.update(dims)
        scope.dim_values.update(values)
        scope.broken_names.update(broken)
        return found
    reported = len(reporter.diagnostics)
    broken_before = set(scope.broken_names)
    evaluate_dims(module, scope, reporter)
    if len(reporter.diagnostics) != reported:
        return None
    return key, dict(scope.dims), dict(scope.dim_values), scope.broken_names - broken_before


#: The items whose declarations `check_aliases`, `check_models`, `check_logs` and
#: `check_data_records` check, each pass given the indexes of its own; and the functions
#: and top-level asserts, whose bodies and verdicts are worked out by index.
_KINDS_BY_INDEX = frozenset(
    {
        ast.AliasDecl,
        ast.ModelDecl,
        ast.LogsDecl,
        ast.DataDecl,
        ast.FnDecl,
        ast.ExternFnDecl,
        ast.Assert,
    }
)


def _indexes_by_kind(module: ast.Module, previous: Checked | None) -> dict[type, list[int]]:
    """The indexes of the items of each class of `_KINDS_BY_INDEX`, in order. `previous`
    is given when every item is of the class of the item at its index there (its items,
    or functions in place of functions, as `collect_reusing` found): its table holds."""
    found = previous.memo.get("by_kind") if previous is not None else None
    if found is not None:
        return found
    by_kind: dict[type, list[int]] = {}
    for index, item in enumerate(module.items):
        kind = item.__class__
        if kind in _KINDS_BY_INDEX:
            indexes = by_kind.get(kind)
            if indexes is None:
                by_kind[kind] = [index]
            else:
                indexes.append(index)
    return by_kind


def _item_index(
    module: ast.Module, previous: Checked | None, replaced: list[int] | None
) -> dict[int, int] | None:
    """Each item's index by the item's id: the previous analysis's table with the entries
    of the items at `replaced` changed, when every other item is the previous analysis's
    at the same index (as `collect_reusing` found); None to make it afresh."""
    kept = previous.memo.get("item_index") if previous is not None else None
    if replaced is None or kept is None:
        return None
    old_items, old_index = kept
    items = module.items
    if len(old_items) != len(items):
        return None
    found = dict(old_index)
    for index in replaced:
        del found[id(old_items[index])]
    for index in replaced:
        found[id(items[index])] = index
    return found


class _AllBut:
    """The indexes of the items but those in `fresh`, as a container."""

    __slots__ = ("fresh",)

    def __init__(self, fresh: set[int]) -> None:
        self.fresh = fresh

    def __contains__(self, index: object) -> bool:
        return index not in self.fresh

    def __bool__(self) -> bool:
        return True


def _builtin_symbols(prelude: Prelude) -> dict[str, Symbol]:
    """The built-ins' and the prelude's symbols: one table, read only, for every analysis
    made with the same prelude (it is built once per process, `load_prelude`)."""
    made_for, symbols = _BUILTIN_SYMBOLS[0]
    if made_for is not prelude:
        symbols = {name: builtin_rules.symbol(name) for name in builtin_rules.KNOWN}
        symbols |= dict(prelude.symbols)
        _BUILTIN_SYMBOLS[0] = (prelude, symbols)
    return symbols


#: The prelude `_builtin_symbols` last made its table for, and the table (one tuple,
#: replaced whole, so that threads read a consistent pair).
_BUILTIN_SYMBOLS: list[tuple[object, dict[str, Symbol]]] = [(None, {})]


def _item_facts(
    module: ast.Module,
    bases: list[int],
    previous: Checked | None,
    key: tuple[int, str],
    replaced: list[int] | None,
    all_facts: bool = True,
) -> tuple[list[ItemFacts], Container[int]]:
    """Each item's facts, to be filled; and the indexes of those that have their
    declaration facts from the previous analysis already (`_carry_declarations`).

    When the declarations pass found every item but those at the indexes `replaced` to be
    the previous analysis's own, in order, each of the others is given its facts as it
    is made, and its body's check (until `_check_bodies` says which bodies are checked
    again). When, besides, the bodies are taken from the previous analysis's tables
    (`Program.keep_bodies`), the items before the first one replaced, moved or looked at
    again are the previous analysis's facts themselves: in the same place, with the same
    facts, and given nothing new by this analysis."""
    items = module.items
    if (
        replaced is not None
        and previous is not None
        and previous.memo.get("declarations") == key
        and len(previous.items) == len(items)
    ):
        start = 0
        lent = lendable(previous.memo.get("bodies")) if all_facts else None
        if lent is not None and isinstance(
            previous.memo.get("fingerprint_parts"), _FingerprintParts
        ):
            old_bases = previous.module.bases or [0] * len(items)
            moved = itertools.compress(itertools.count(), map(operator.ne, old_bases, bases))
            start = min(
                replaced + lent.unchecked[:1] + lent.located[:1] + [next(moved, len(items))]
            )
        facts = previous.items[:start]
        facts.extend(
            map(
                ItemFacts,
                items[start:],
                bases[start:],
                map(_DECLARATION, previous.items[start:]),
                map(_BODY, previous.items[start:]),
            )
        )
        for index in replaced:
            facts[index].made_declaration = None
            facts[index].body = None
        return facts, _AllBut(set(replaced))
    facts = [ItemFacts(item, base) for item, base in zip(items, bases, strict=True)]
    return facts, _carry_declarations(previous, key, facts)


_DECLARATION = operator.attrgetter("made_declaration")
_BODY = operator.attrgetter("body")


def _carry_declarations(
    previous: Checked | None, key: tuple[int, str], items: list[ItemFacts]
) -> set[int]:
    """Give each item that is the same object as one of the previous analysis the facts
    of its declaration from there, when the declarations (`key`: their fingerprint and
    the file's path) are the same: those facts (the names its signature, model or record
    refers to, the types of its fields) depend on nothing else, and count from the
    item's chunk. Gives the indexes of those items, which the declaration passes leave
    as they are."""
    if previous is None or previous.memo.get("declarations") != key:
        return set()
    before = previous.items
    kept: set[int] = set()
    if len(before) != len(items):
        return kept  # not while the fingerprint is the same, which counts every item
    for index, (old, facts) in enumerate(zip(before, items, strict=True)):
        if old.item is facts.item:
            facts.made_declaration = old.made_declaration
            kept.add(index)
    return kept


def _function_decls(scope: ModuleScope) -> list[ast.FnDecl | ast.ExternFnDecl]:
    """The file's functions, overloads included, in a fixed order."""
    return list(scope.functions.values()) + [decl for _, decl, _ in overload_members(scope)]


def _reuse_param_reads(
    program: Program,
    previous: Checked | None,
    fingerprint: int,
    functions: list[ast.FnDecl | ast.ExternFnDecl],
) -> set[str] | None:
    """Start `program`'s params-read memo (`gradients.param_reads`) from the previous
    analysis's when the declarations (`fingerprint`) are unchanged, less the results that
    depend on a function whose body was edited. Gives the names of the functions whose
    results were left out (the edited ones among them), or None when nothing was kept."""
    if previous is None:
        return None
    found = previous.memo.get("param_reads")
    if found is None:
        return None
    old_fingerprint, old_functions, memo = found
    if old_fingerprint != fingerprint or len(old_functions) != len(functions):
        return None
    edited = set()
    # Compared by identity without a Python loop: a keystroke edits one of thousands.
    for index in itertools.compress(
        range(len(functions)), map(operator.is_not, old_functions, functions)
    ):
        old, new = old_functions[index], functions[index]
        if old.name != new.name:
            return None
        edited.add(new.name)
    kept = carried_over(memo, edited)
    if kept is None:
        return None
    program.__dict__["_param_reads"] = kept
    summaries = previous.memo.get("reads", {})
    if len(summaries) <= 2 * len(functions) + 16:
        # For a later analysis that can't reuse the memo; the summaries an analysis
        # works out are those of the functions it reaches, so that one prunes them.
        program.read_summaries.update(summaries)
    return edited | {key[0] for key in kept.dropped}


def _reads_of_functions(
    program: Program, previous: Checked | None, fingerprint: int, stale: set[str] | None
) -> dict[str, dict[str, tuple[str, ...] | None]]:
    """`reads_of_functions`, taking each function's entry from the previous analysis's
    unless its params-read results were left out of the memo (`stale`, from
    `_reuse_param_reads`): the others are the results the memo kept."""
    found = previous.memo.get("reads_of_functions") if previous is not None else None
    if stale is None or found is None or found[0] != fingerprint:
        return reads_of_functions(program)
    signatures = program.scope.signatures
    # Copied whole (a big file has thousands of entries), then the stale ones made again.
    reads: dict[str, dict[str, tuple[str, ...] | None]] = dict(found[1])
    for name in stale:
        if name in reads:
            reads[name] = {
                param.name: gradients.param_reads(program, name, index)
                for index, param in enumerate(signatures[name].params)
                if isinstance(param.type, ModelType)
            }
    return reads


@record
class _FingerprintParts:
    """Each item's part of the two fingerprints, in the items' order, with the declared
    type names they were taken under (whether a function is generic depends on them)."""

    declared: frozenset[str]
    #: For each item: the item, its text or its text up to a typed function's body,
    #: whether it is a function, and its text.
    parts: list[tuple[ast.Item, str, bool, str]]
    #: Each item's text, in order.
    texts: list[str]
    #: The two fingerprints they gave, and the notebook flag they were hashed with.
    fingerprint: int | None = None
    context: int | None = None
    notebook: object = None


def _fingerprints(
    module: ast.Module,
    text: str,
    declared: set[str],
    previous: _FingerprintParts | None,
    replaced: list[int] | None = None,
) -> tuple[int, int, _FingerprintParts]:
    """`declarations_fingerprint`, and a hash of what a signature can depend on (every
    item but the functions), taking each item's part from `previous` when the item is the
    same object (the parser reuses an unchanged chunk's items, so their text is the same)
    and so are the declared names. `replaced` is given when every item but those at
    these indexes is the previous analysis's own (`collect_reusing`)."""
    items = module.items
    bases = module.bases or [0] * len(items)
    if replaced is not None and previous is not None:
        patched = _patched_fingerprints(module, text, declared, previous, replaced)
        if patched is not None:
            return patched.fingerprint, patched.context, patched
    before: list = []
    if previous is not None and previous.declared == declared:
        before = previous.parts
    if len(before) == len(items):
        # As after most edits, the items pair up with the previous ones in order.
        parts = [
            old if old[0] is item else _part(item, base, text, declared)
            for old, item, base in zip(before, items, bases, strict=True)
        ]
    else:
        by_item = {id(old[0]): old for old in before}
        parts = []
        for item, base in zip(items, bases, strict=True):
            found = by_item.get(id(item))
            parts.append(
                found
                if found is not None and found[0] is item
                else _part(item, base, text, declared)
            )
    # A line that didn't parse declares nothing a body or a signature could depend on:
    # typing one (Enter at the start of a body line) keeps every other result.
    counted = [part for part in parts if type(part[0]) is not ast.ErrorItem]
    fingerprint = hash((tuple([part[1] for part in counted]), module.notebook))
    context = hash(tuple([part[1] for part in counted if not part[2]]))
    return (
        fingerprint,
        context,
        _FingerprintParts(
            frozenset(declared),
            parts,
            [part[3] for part in parts],
            fingerprint,
            context,
            module.notebook,
        ),
    )


def _patched_fingerprints(
    module: ast.Module,
    text: str,
    declared: set[str],
    previous: _FingerprintParts,
    replaced: list[int],
) -> _FingerprintParts | None:
    """The previous parts with those of the items at `replaced` made again, and the
    previous fingerprints, when those items' parts hash as before (an edit inside a typed
    function's body); None when the fingerprints must be hashed again. A keystroke in a
    big file thus copies two lists rather than going over every item."""
    items = module.items
    if (
        previous.declared != declared
        or len(previous.parts) != len(items)
        or previous.notebook != module.notebook
        or previous.fingerprint is None
        or previous.context is None
    ):
        return None
    bases = module.bases or [0] * len(items)
    parts, texts = previous.parts.copy(), previous.texts.copy()
    for index in replaced:
        item, old = items[index], parts[index]
        if old[0] is item:
            continue
        part = _part(item, bases[index], text, declared)
        if (
            part[1] != old[1]
            or part[2] != old[2]
            or (type(item) is ast.ErrorItem) != (type(old[0]) is ast.ErrorItem)
        ):
            return None
        parts[index], texts[index] = part, part[3]
    return _FingerprintParts(
        previous.declared,
        parts,
        texts,
        previous.fingerprint,
        previous.context,
        previous.notebook,
    )


def _part(
    item: ast.Item, base: int, text: str, declared: set[str]
) -> tuple[ast.Item, str, bool, str]:
    """An item's entry in `_FingerprintParts.parts`."""
    whole = text[base + item.span.start : base + item.span.end]
    part = whole
    if (
        isinstance(item, ast.FnDecl)
        and item.return_type is not None
        and not looks_generic(item, declared)
    ):
        part = whole[: item.return_type.span.end - item.span.start] + _asserts_text(
            item, base, text
        )
    return (item, part, isinstance(item, ast.FnDecl | ast.ExternFnDecl), whole)


def _math_hints(problems: list[MathProblem]) -> list[Diagnostic]:
    return [
        Diagnostic(
            problem.code,
            problem.message,
            Label(Span(problem.start, problem.end), "math"),
            help=problem.help,
            fixes=[]
            if problem.replacement is None
            else [
                Fix(
                    f"Write `{problem.replacement}`",
                    (Edit(Span(problem.start, problem.end), problem.replacement),),
                )
            ],
        )
        for problem in problems
    ]


def check_source(
    source: SourceFile,
    previous: Checked | None = None,
    cancelled: IsCancelled | None = None,
    *,
    search_path: Sequence[str] = (),
    read: Reader | None = None,
    all_facts: bool = True,
    padding_later: bool = False,
) -> Checked:
    """Parse and check a file, reusing what `previous` found for unchanged parts; imports
    are found and read, and `all_facts` and `padding_later` are, as `check_parsed` says.

    Runs in a thread deep enough for the deepest tree the parser lets through.
    """
    return run_deep(
        _check_source, source, previous, cancelled, search_path, read, all_facts, padding_later
    )


def _check_source(
    source: SourceFile,
    previous: Checked | None,
    cancelled: IsCancelled | None,
    search_path: Sequence[str],
    read: Reader | None,
    all_facts: bool = True,
    padding_later: bool = False,
) -> Checked:
    previous_parse = previous.parse if previous is not None else None
    parsed = parse(source, previous=previous_parse, cancelled=cancelled)
    return check_parsed(
        parsed,
        previous,
        cancelled,
        search_path=search_path,
        read=read,
        all_facts=all_facts,
        padding_later=padding_later,
    )


def check_text(text: str, path: str = "<text>", *, search_path: Sequence[str] = ()) -> Checked:
    return check_source(SourceFile.from_text(path, text), search_path=search_path)
