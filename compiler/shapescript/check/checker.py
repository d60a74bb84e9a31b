"""The checker's entry point: a parsed file in, a `Checked` program out."""

from __future__ import annotations

from shapescript.check import builtin_rules
from shapescript.check.bodies import BodyChecker, Program
from shapescript.check.module_scope import (
    build_signatures,
    check_aliases,
    collect,
    evaluate_dims,
)
from shapescript.check.prelude import load_prelude
from shapescript.check.program import Checked
from shapescript.check.reporter import Reporter
from shapescript.check.type_exprs import TypeResolver
from shapescript.syntax import ast
from shapescript.syntax.parser import ParseResult, parse
from shapescript.syntax.source import SourceFile


def check_parsed(parsed: ParseResult) -> Checked:
    """Check a parsed file: declarations first, then each function's body."""
    source = parsed.source
    module = parsed.module
    reporter = Reporter()
    scope = collect(module, source.path, reporter)
    evaluate_dims(module, scope, reporter)
    check_aliases(module, scope, reporter)
    program = Program(scope, reporter, load_prelude(), source.text)
    build_signatures(module, scope, TypeResolver(reporter), _module_reference(program, scope))
    for item in module.items:
        if isinstance(item, ast.FnDecl):
            signature = scope.signatures.get(item.name)
            if signature is None or signature.decl is not item:
                continue
            if item.name in program.inferred:
                continue
            inferred = BodyChecker(program, item, signature).check()
            if signature.return_type is None:
                program.inferred.setdefault(item.name, inferred)
    diagnostics = sorted(
        parsed.diagnostics + reporter.diagnostics, key=lambda d: (d.span.start, d.code)
    )
    for diagnostic in diagnostics:
        diagnostic.path = source.path
    return Checked(
        source,
        module,
        diagnostics,
        module_symbols=dict(scope.symbols),
        builtin_symbols={name: builtin_rules.symbol(name) for name in builtin_rules.KNOWN}
        | dict(program.prelude.symbols),
        types_by_span=program.types_by_span,
        references=program.references,
        functions=program.functions,
        dim_values={name: value.value for name, value in scope.dim_values.items() if value.value},
    )


def _module_reference(program: Program, scope):
    def on_reference(name, span) -> None:
        symbol = scope.symbols.get(name)
        if symbol is not None:
            program.refer(span, symbol)

    return on_reference


def check_source(source: SourceFile) -> Checked:
    return check_parsed(parse(source))


def check_text(text: str, path: str = "<text>") -> Checked:
    return check_source(SourceFile.from_text(path, text))
