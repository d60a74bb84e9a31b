"""The checker's entry point: a parsed file in, a `Checked` program out."""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence

from shapescript.cancellation import IsCancelled, stop_if
from shapescript.check import builtin_rules, imports, module_exports
from shapescript.check.bodies import Program
from shapescript.check.data_records import check_data_records
from shapescript.check.generics import instances_of, keep_instances
from shapescript.check.gradients import read_diagnostics, reads_of_functions
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
from shapescript.check.padding import check_padding
from shapescript.check.prelude import load_prelude
from shapescript.check.program import Checked, ItemFacts, Reference
from shapescript.check.reporter import Reporter
from shapescript.check.type_exprs import TypeResolver
from shapescript.check.type_variables import declared_type_names, looks_generic
from shapescript.deep import run_deep
from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.syntax import ast
from shapescript.syntax.parser import ParseResult, parse, shift_diagnostic
from shapescript.syntax.source import SourceFile, Span
from shapescript.syntax.tokens import Comment


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
) -> Checked:
    """Check a parsed file: declarations first, then each function's body.

    With `previous`, the check of an earlier version of the file, function bodies whose
    text and context haven't changed are not checked again. `cancelled` is asked before
    each function body; once it answers True the check raises `Cancelled`.

    Imported `.ss` files are looked for next to the file, then in each folder of
    `search_path`, then in the standard library; `read(path)` gives a file's text (None
    if it can't be read), by default from disk.
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
        return _check_parsed(parsed, previous, cancelled, session)[0]
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
) -> tuple[Checked, ModuleScope]:
    source = parsed.source
    module = parsed.module
    reporter = Reporter()
    scope = collect(module, source.path, reporter)
    table = imports.attach(module, scope, reporter, session)
    evaluate_dims(module, scope, reporter)
    check_aliases(module, scope, reporter)
    items = [ItemFacts(item, module.base_of(index)) for index, item in enumerate(module.items)]
    by_base = {}
    for item_facts in items:
        by_base.setdefault(item_facts.base, item_facts)
    fingerprint = declarations_fingerprint(module, source.text, scope.declared_types)
    if table.infos:
        fingerprint = hash((fingerprint, table.key))
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

    def on_references(references: list[tuple[str, Span]], base: int) -> None:
        facts = by_base.get(base)
        if facts is None:
            return
        add = facts.declaration.references.append
        symbols, path = scope.symbols, source.path
        for name, span in references:
            symbol = symbols.get(name)
            if symbol is not None:
                add(
                    Reference(span, module_name=name)
                    if symbol.path == path
                    else Reference(span, symbol)
                )

    context_key = _context_fingerprint(module, source.text)
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
    diagnostics = parsed.diagnostics + reporter.diagnostics
    for index, item in enumerate(module.items):
        if not isinstance(item, ast.FnDecl):
            continue
        stop_if(cancelled)
        result = program.check_item(index)
        if result is None:
            continue
        items[index].body = result
        diagnostics.extend(shift_diagnostic(d, items[index].base) for d in result.diagnostics)
    diagnostics.extend(read_diagnostics(program, items))
    padding = check_padding(items, scope.dim_values)
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
        memo=program.memo
        | {"signatures": signature_memo, "reads": program.read_summaries, "models": model_memo},
        math=math,
        models={name: info for name, info in scope.model_infos.items() if "." not in name},
        logs={name: info for name, info in scope.logs_infos.items() if "." not in name},
        data={name: info for name, info in scope.data_infos.items() if "." not in name},
        param_reads=reads_of_functions(program),
        overloads={name: overloads.signatures() for name, overloads in scope.overload_sets.items()},
        instances=instances_of(items),
        imports=table,
        padding=padding,
    )
    return checked, scope


def _context_fingerprint(module: ast.Module, text: str) -> int:
    """A hash of the declarations a signature can depend on: all but the functions."""
    parts = []
    for index, item in enumerate(module.items):
        if isinstance(item, ast.FnDecl | ast.ExternFnDecl):
            continue
        base = module.base_of(index)
        parts.append(text[base + item.span.start : base + item.span.end])
    return hash(tuple(parts))


def _comment_lines(parsed: ParseResult) -> list[CommentLine]:
    """The comments that may hold math, with file offsets and lines, as the math finder
    reads them: only blocks of consecutive comment lines of one kind with a `$` in them,
    since math never reaches past such a block."""
    source = parsed.source
    text = source.text
    found: list[CommentLine] = []
    block: list[tuple[Comment, int, int]] = []
    has_math = False
    line, counted = 1, 0
    previous: Comment | None = None
    for base, comment in parsed.comments:
        start = base + comment.span.start + (2 if comment.is_doc else 1)
        if start >= counted:
            line += text.count("\n", counted, start)
        else:
            line = source.position(start).line
        counted = start
        joins = (
            previous is not None
            and not comment.after_code
            and not previous.after_code
            and block[-1][2] + 1 == line
            and previous.is_doc == comment.is_doc
        )
        if not joins:
            if has_math:
                found.extend(_as_lines(block))
            block, has_math = [], False
        block.append((comment, start, line))
        has_math = has_math or "$" in comment.text
        previous = comment
    if has_math:
        found.extend(_as_lines(block))
    return found


def _as_lines(block: list[tuple[Comment, int, int]]) -> list[CommentLine]:
    return [
        CommentLine(comment.text, start, line, comment.is_doc, comment.after_code)
        for comment, start, line in block
    ]


def _math_hints(math: list[Math]) -> list[Diagnostic]:
    return [
        Diagnostic(
            problem.code,
            problem.message,
            Label(Span(problem.start, problem.end), "math"),
            help=problem.help,
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
) -> Checked:
    """Parse and check a file, reusing what `previous` found for unchanged parts; imports
    are found and read as `check_parsed` says.

    Runs in a thread deep enough for the deepest tree the parser lets through.
    """
    return run_deep(_check_source, source, previous, cancelled, search_path, read)


def _check_source(
    source: SourceFile,
    previous: Checked | None,
    cancelled: IsCancelled | None,
    search_path: Sequence[str],
    read: Reader | None,
) -> Checked:
    previous_parse = previous.parse if previous is not None else None
    parsed = parse(source, previous=previous_parse, cancelled=cancelled)
    return check_parsed(parsed, previous, cancelled, search_path=search_path, read=read)


def check_text(text: str, path: str = "<text>", *, search_path: Sequence[str] = ()) -> Checked:
    return check_source(SourceFile.from_text(path, text), search_path=search_path)
