"""The checker's entry point: a parsed file in, a `Checked` program out."""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence

from shapescript.cancellation import IsCancelled, stop_if
from shapescript.check import builtin_rules, imports, module_exports
from shapescript.check.bodies import Program
from shapescript.check.data_records import check_data_records
from shapescript.check.exports import add_export_diagnostics
from shapescript.check.generics import instances_of, keep_instances
from shapescript.check.gradients import read_diagnostics, reads_memo, reads_of_functions
from shapescript.check.import_session import ImportSession, Reader
from shapescript.check.logs_records import check_logs
from shapescript.check.math_comments import CommentLine, Math, check_math, find_math
from shapescript.check.models import check_models
from shapescript.check.module_exports import ModuleExports
from shapescript.check.module_scope import (
    ModuleScope,
    build_signatures,
    check_aliases,
    collect,
    evaluate_dims,
)
from shapescript.check.overloads import overload_members
from shapescript.check.padding import check_padding
from shapescript.check.placement import place
from shapescript.check.prelude import load_prelude
from shapescript.check.program import Checked, ItemFacts, Reference
from shapescript.check.reads_memo import carried_over
from shapescript.check.reporter import Reporter
from shapescript.check.type_exprs import TypeResolver
from shapescript.check.type_variables import declared_type_names, looks_generic
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

    That is every item's text, except that a function with a declared return type
    counts only up to its body: editing inside such a body leaves the fingerprint, and so
    every other function's memoized result, as it is. A generic function's body counts:
    its callers check its instances. `declared` is `declared_type_names(module)`, when
    already known.
    """
    parts = []
    if declared is None:
        declared = declared_type_names(module)
    for index, item in enumerate(module.items):
        base = module.base_of(index)
        end = item.span.end
        if (
            isinstance(item, ast.FnDecl)
            and item.return_type is not None
            and not looks_generic(item, declared)
        ):
            end = item.return_type.span.end
        parts.append(text[base + item.span.start : base + end])
    return hash((tuple(parts), module.notebook))


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
        session = ImportSession(search_path, read, cancelled)
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
    return module_exports.exports_of(checked, scope)


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
    scope = collect(module, source.path, reporter)
    table = imports.attach(module, scope, reporter, session)
    fingerprint, context_key, fingerprint_parts = _fingerprints(
        module,
        source.text,
        scope.declared_types,
        previous.memo.get("fingerprint_parts") if previous is not None else None,
    )
    if table.infos:
        fingerprint = hash((fingerprint, table.key))
    dims_memo = _dims(module, scope, reporter, (fingerprint, source.path), previous)
    check_aliases(module, scope, reporter)
    bases = module.bases or [0] * len(module.items)
    items = [ItemFacts(item, base) for item, base in zip(module.items, bases, strict=True)]
    # The first item of each chunk, by where the chunk starts.
    by_base = {}
    for item_facts in reversed(items):
        by_base[item_facts.base] = item_facts
    model_memo: dict = {}
    scope.model_infos = check_models(
        module,
        scope,
        reporter,
        items,
        source.text,
        fingerprint,
        model_memo,
        previous.memo.get("models") if previous is not None else None,
    )
    scope.logs_infos = check_logs(module, scope, reporter, items)
    scope.data_infos = check_data_records(module, scope, reporter, items, source.text)
    imports.finish(scope)

    # A signature reused from the previous analysis (`build_signatures`) gives the same
    # list of names; while the declarations are the same, so are the references made of it.
    made_before: dict = {}
    if previous is not None and previous.memo.get("signature_references", (None,))[0] == (
        fingerprint,
        source.path,
    ):
        made_before = previous.memo["signature_references"][1]
    made_now: dict = {}

    def on_references(references: list[tuple[str, Span]], base: int) -> None:
        facts = by_base.get(base)
        if facts is None:
            return
        found = made_before.get(id(references))
        if found is not None and found[0] is references:
            made = found[1]
        else:
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
        made_now[id(references)] = (references, made)
        facts.declaration.references.extend(made)

    if table.infos:
        context_key = hash((context_key, table.key))
    signature_memo = build_signatures(
        scope,
        TypeResolver(reporter),
        on_references,
        context_key,
        previous.memo.get("signatures") if previous is not None else None,
    )
    program = Program(
        module,
        scope,
        load_prelude(),
        source.text,
        fingerprint,
        previous.memo if previous is not None else None,
    )
    program.item_texts = fingerprint_parts.texts
    program.editor_facts = all_facts
    diagnostics = parsed.diagnostics + reporter.diagnostics
    for index, item in enumerate(module.items):
        if not isinstance(item, ast.FnDecl):
            continue
        stop_if(cancelled)
        result = program.check_item(index)
        if result is None:
            continue
        item_facts = items[index]
        item_facts.body = result
        if result.diagnostics:
            base = item_facts.base
            diagnostics.extend(shift_diagnostic(d, base) for d in result.diagnostics)
    functions = _function_decls(scope)
    _reuse_param_reads(program, previous, fingerprint, functions)
    found_reads = read_diagnostics(program, items)
    param_reads = reads_of_functions(program) if all_facts else {}
    if reads_memo(program).reused and reads_memo(program).cyclic:
        # The edit made a cycle: work every result out afresh, in a full check's order.
        program.__dict__.pop("_param_reads")
        found_reads = read_diagnostics(program, items)
        param_reads = reads_of_functions(program)
    diagnostics.extend(found_reads)
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
    )
    diagnostics.extend(padding.diagnostics)
    keep_instances(program)
    math = find_math(_comment_lines(parsed))
    diagnostics.extend(_math_hints(math))
    diagnostics.sort(key=lambda d: (d.span.start, d.code))
    for diagnostic in diagnostics:
        diagnostic.path = source.path
    checked = Checked(
        source,
        module,
        diagnostics,
        module_symbols={name: symbol for name, symbol in scope.symbols.items() if "." not in name},
        builtin_symbols={name: builtin_rules.symbol(name) for name in builtin_rules.KNOWN}
        | dict(program.prelude.symbols),
        items=items,
        dim_values={name: value.value for name, value in scope.dim_values.items() if value.value},
        signatures=dict(program.prelude.signatures) | dict(scope.signatures),
        parse=parsed,
        # Bodies checked without the editor's facts are never lent to a later analysis.
        memo=(program.memo if all_facts else {})
        | {
            "signatures": signature_memo,
            "reads": program.read_summaries,
            "models": model_memo,
            "param_reads": (fingerprint, functions, reads_memo(program)),
            "signature_references": ((fingerprint, source.path), made_now),
            "fingerprint_parts": fingerprint_parts,
            "dims": dims_memo,
        },
        math=math,
        models={name: info for name, info in scope.model_infos.items() if "." not in name},
        logs={name: info for name, info in scope.logs_infos.items() if "." not in name},
        data={name: info for name, info in scope.data_infos.items() if "." not in name},
        param_reads=param_reads,
        overloads={name: overloads.signatures() for name, overloads in scope.overload_sets.items()},
        instances=instances_of(items),
        imports=table,
        placement=placement,
        padding=padding,
    )
    add_export_diagnostics(checked)
    return checked, scope


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


def _function_decls(scope: ModuleScope) -> list[ast.FnDecl | ast.ExternFnDecl]:
    """The file's functions, overloads included, in a fixed order."""
    return list(scope.functions.values()) + [decl for _, decl, _ in overload_members(scope)]


def _reuse_param_reads(
    program: Program,
    previous: Checked | None,
    fingerprint: int,
    functions: list[ast.FnDecl | ast.ExternFnDecl],
) -> None:
    """Start `program`'s params-read memo (`gradients.param_reads`) from the previous
    analysis's when the declarations (`fingerprint`) are unchanged, less the results that
    depend on a function whose body was edited."""
    if previous is None:
        return
    found = previous.memo.get("param_reads")
    if found is None:
        return
    old_fingerprint, old_functions, memo = found
    if old_fingerprint != fingerprint or len(old_functions) != len(functions):
        return
    edited = set()
    for old, new in zip(old_functions, functions, strict=True):
        if old is not new:
            if old.name != new.name:
                return
            edited.add(new.name)
    kept = carried_over(memo, edited)
    if kept is None:
        return
    program.__dict__["_param_reads"] = kept
    summaries = previous.memo.get("reads", {})
    if len(summaries) <= 2 * len(functions) + 16:
        # For a later analysis that can't reuse the memo; the summaries an analysis
        # works out are those of the functions it reaches, so that one prunes them.
        program.read_summaries.update(summaries)


@record
class _FingerprintParts:
    """Each item's part of the two fingerprints, by the item object, with the declared
    type names they were taken under (whether a function is generic depends on them)."""

    declared: frozenset[str]
    #: id(item) -> (item, its text or its text up to a typed function's body, whether
    #: it is a function, its text).
    parts: dict[int, tuple[ast.Item, str, bool, str]]
    #: Each item's text, in order.
    texts: list[str]


def _fingerprints(
    module: ast.Module, text: str, declared: set[str], previous: _FingerprintParts | None
) -> tuple[int, int, _FingerprintParts]:
    """`declarations_fingerprint`, and a hash of what a signature can depend on (every
    item but the functions), taking each item's part from `previous` when the item is the
    same object (the parser reuses an unchanged chunk's items, so their text is the same)
    and so are the declared names."""
    before = previous.parts if previous is not None and previous.declared == declared else {}
    parts: dict[int, tuple[ast.Item, str, bool, str]] = {}
    texts: list[str] = []
    declaration_parts = []
    context_parts = []
    bases = module.bases or [0] * len(module.items)
    for item, base in zip(module.items, bases, strict=True):
        found = before.get(id(item))
        if found is None or found[0] is not item:
            function = isinstance(item, ast.FnDecl | ast.ExternFnDecl)
            whole = text[base + item.span.start : base + item.span.end]
            part = whole
            if (
                isinstance(item, ast.FnDecl)
                and item.return_type is not None
                and not looks_generic(item, declared)
            ):
                part = whole[: item.return_type.span.end - item.span.start]
            found = (item, part, function, whole)
        parts[id(item)] = found
        declaration_parts.append(found[1])
        if not found[2]:
            context_parts.append(found[1])
        texts.append(found[3])
    fingerprint = hash((tuple(declaration_parts), module.notebook))
    return (
        fingerprint,
        hash(tuple(context_parts)),
        _FingerprintParts(frozenset(declared), parts, texts),
    )


def _comment_lines(parsed: ParseResult) -> list[CommentLine]:
    """The comments that may hold math, with file offsets and lines, as the math finder
    reads them: only blocks of consecutive comment lines of one kind with a `$` in them,
    since math never reaches past such a block. Only the blocks around a `$` are looked
    at, so a file's many comments without math cost one test each."""
    comments = parsed.comments
    marked = [index for index, (_, comment) in enumerate(comments) if "$" in comment.text]
    if not marked:
        return []
    text = parsed.source.text

    def start_of(index: int) -> int:
        base, comment = comments[index]
        return base + comment.span.start + (2 if comment.is_doc else 1)

    def joins(index: int) -> bool:
        """Whether comment `index` continues the block of the comment before it."""
        previous, comment = comments[index - 1][1], comments[index][1]
        return (
            not comment.after_code
            and not previous.after_code
            and previous.is_doc == comment.is_doc
            and text.count("\n", start_of(index - 1), start_of(index)) == 1
        )

    found: list[CommentLine] = []
    line, counted = 1, 0
    covered = -1
    for index in marked:
        if index <= covered:
            continue
        first = index
        while first > 0 and joins(first):
            first -= 1
        last = index
        while last + 1 < len(comments) and joins(last + 1):
            last += 1
        covered = last
        for member in range(first, last + 1):
            start = start_of(member)
            line += text.count("\n", counted, start)
            counted = start
            comment = comments[member][1]
            found.append(CommentLine(comment.text, start, line, comment.is_doc, comment.after_code))
    return found


def _math_hints(math: list[Math]) -> list[Diagnostic]:
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
        for problem in check_math(math)
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
