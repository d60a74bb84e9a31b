"""The declarations pass: module names, dims, shape aliases and signatures.

It is cheap and covers the whole file, so function bodies can then be checked one at a
time against what it found.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from shapescript.check.program import Symbol
from shapescript.check.reporter import Reporter
from shapescript.check.signatures import Signature, build_signature
from shapescript.check.sizes import InexactDivision, Poly, SizeOverflow
from shapescript.check.type_exprs import TypeContext, TypeResolver
from shapescript.diagnostics.diagnostic import Label
from shapescript.syntax import ast
from shapescript.syntax.source import Span

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


@dataclass(slots=True)
class ModuleScope:
    """What the file declares, resolved."""

    path: str
    symbols: dict[str, Symbol] = field(default_factory=dict)
    dims: dict[str, Poly] = field(default_factory=dict)
    dim_values: dict[str, Poly] = field(default_factory=dict)
    aliases: dict[str, list[ast.Axis]] = field(default_factory=dict)
    domains: set[str] = field(default_factory=set)
    named_types: set[str] = field(default_factory=set)
    functions: dict[str, ast.FnDecl | ast.ExternFnDecl] = field(default_factory=dict)
    signatures: dict[str, Signature] = field(default_factory=dict)
    python_modules: set[str] = field(default_factory=set)
    models: dict[str, ast.ModelDecl] = field(default_factory=dict)
    records: dict[str, ast.DataDecl | ast.LogsDecl] = field(default_factory=dict)
    #: Dims and aliases whose declaration failed: their uses are unknown, silently.
    broken_names: set[str] = field(default_factory=set)

    def type_context(self, on_reference=None) -> TypeContext:
        return TypeContext(
            self.dims,
            self.aliases,
            self.domains,
            self.named_types,
            {},
            dim_values=self.dim_values,
            on_reference=on_reference,
        )


def suggestion(name: str, candidates) -> str | None:
    """A did-you-mean help for a misspelt name, if a close one exists."""
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.75)
    return f"did you mean `{matches[0]}`?" if matches else None


def _doc(decl) -> str | None:
    doc = getattr(decl, "doc", None)
    return doc.text if doc is not None else None


def _first_param_model(decl: ast.FnDecl, models: set[str]) -> str | None:
    if decl.params and decl.params[0].type is not None:
        written = decl.params[0].type
        if written.shape is None and len(written.words) == 1 and written.words[0].name in models:
            return written.words[0].name
    return None


def collect(module: ast.Module, path: str, reporter: Reporter) -> ModuleScope:
    """Gather module-scope declarations, reporting names declared twice (E0302)."""
    scope = ModuleScope(path)
    models = {item.name for item in module.items if isinstance(item, ast.ModelDecl)}
    overloads: dict[str, list[ast.FnDecl]] = {}
    for item in module.items:
        entries: list[tuple[str, str, Span]] = []
        if isinstance(item, ast.DimDecl):
            entries.append((item.name, "dim", item.name_span))
        elif isinstance(item, ast.AliasDecl):
            entries.append((item.name, "alias", item.name_span))
            scope.aliases[item.name] = list(item.shape.axes)
        elif isinstance(item, ast.DomainDecl):
            entries.append((item.name, "domain", item.name_span))
            scope.domains.add(item.name)
        elif isinstance(item, ast.FnDecl):
            model = _first_param_model(item, models)
            if model is not None:
                overloads.setdefault(item.name, []).append(item)
                if len(overloads[item.name]) > 1:
                    scope.symbols.setdefault(
                        item.name,
                        Symbol(item.name, "fn", item.name_span, path, doc=_doc(item)),
                    )
                    continue
            entries.append((item.name, "fn", item.name_span))
        elif isinstance(item, ast.ExternFnDecl):
            entries.append((item.name, "extern", item.name_span))
        elif isinstance(item, ast.ModelDecl):
            entries.append((item.name, "model", item.name_span))
            scope.named_types.add(item.name)
            scope.models[item.name] = item
        elif isinstance(item, ast.DataDecl | ast.LogsDecl):
            kind = "data" if isinstance(item, ast.DataDecl) else "logs"
            entries.append((item.name, kind, item.name_span))
            scope.named_types.add(item.name)
            scope.records[item.name] = item
        elif isinstance(item, ast.ImportPythonDecl):
            name = item.bound_name
            scope.python_modules.add(name)
            span = Span(item.parts_span.start, item.parts_span.start + len(name))
            scope.symbols.setdefault(
                name, Symbol(name, "python_module", span, path, ".".join(item.parts), _doc(item))
            )
            continue
        elif isinstance(item, ast.ImportDecl):
            span = item.alias_span or item.parts_span
            entries.append((item.bound_name, "import", span))
        for name, kind, span in entries:
            previous = scope.symbols.get(name)
            if previous is not None:
                reporter.report(
                    "E0302",
                    f"`{name}` is declared twice",
                    span,
                    "second declaration",
                    secondary=[Label(previous.span, "first declared here")],
                    help="rename one of them",
                )
                continue
            scope.symbols[name] = Symbol(name, kind, span, path, doc=_doc(item))
            if kind in ("fn", "extern"):
                scope.functions[name] = item
    return scope


# ---------------------------------------------------------------------- dims


def evaluate_dims(module: ast.Module, scope: ModuleScope, reporter: Reporter) -> None:
    """Work out every dim's value in dependency order (E0304, E0305, E0301, E0303, E0414)."""
    decls = {item.name: item for item in module.items if isinstance(item, ast.DimDecl)}
    values: dict[str, Poly | None] = {}
    visiting: list[str] = []

    def value_of(name: str) -> Poly | None:
        if name in values:
            return values[name]
        if name in visiting:
            cycle = visiting[visiting.index(name) :] + [name]
            decl = decls[name]
            reporter.report(
                "E0304",
                f"dim `{name}` is defined in terms of itself",
                decl.name_span,
                "part of a cycle",
                notes=["the cycle: " + " -> ".join(cycle)],
                help="give one of these dims a value that doesn't use the others",
            )
            for member in cycle:
                values[member] = None
            return None
        visiting.append(name)
        decl = decls[name]
        result = _evaluate(decl, decl.value, decls, scope, reporter, value_of)
        visiting.pop()
        if name in values and values[name] is None:
            return None
        if result is not None and (result.value is None or result.value < 1):
            reporter.report(
                "E0305",
                f"dim `{name}` must be a whole number of at least 1",
                decl.value.span,
                f"this is {result}",
            )
            result = None
        values[name] = result
        return result

    for name in decls:
        if (
            scope.symbols.get(name) is not None
            and scope.symbols[name].span == decls[name].name_span
        ):
            value_of(name)
    for name, decl in decls.items():
        value = values.get(name)
        scope.dims[name] = Poly.symbol(name)
        if value is not None:
            scope.dim_values[name] = value
        else:
            scope.dims.pop(name)
            scope.broken_names.add(name)
        del decl


def _evaluate(decl, expr, decls, scope, reporter, value_of) -> Poly | None:
    try:
        return _evaluate_size(decl, expr, decls, scope, reporter, value_of)
    except SizeOverflow:
        reporter.report(
            "E0414",
            f"dim `{decl.name}` is too large: it doesn't fit in 128 bits",
            expr.span,
            "overflows",
        )
        return None


def _evaluate_size(decl, expr, decls, scope, reporter, value_of) -> Poly | None:
    if isinstance(expr, ast.SizeInt):
        return Poly.const(expr.value)
    if isinstance(expr, ast.SizeName):
        if expr.name in decls:
            return value_of(expr.name)
        symbol = scope.symbols.get(expr.name)
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
                help=suggestion(expr.name, decls),
            )
        return None
    left = _evaluate_size(decl, expr.left, decls, scope, reporter, value_of)
    right = _evaluate_size(decl, expr.right, decls, scope, reporter, value_of)
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
            Label(decls[part.name].name_span, f"`{part.name}` = {value_of(part.name)}")
            for part in (expr.left, expr.right)
            if isinstance(part, ast.SizeName) and part.name in decls
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


# ---------------------------------------------------------------------- aliases


def check_aliases(module: ast.Module, scope: ModuleScope, reporter: Reporter) -> None:
    """Report aliases defined in terms of themselves (E2201), each alias of a cycle once."""
    decls = {item.name: item for item in module.items if isinstance(item, ast.AliasDecl)}

    def uses(name: str) -> list[str]:
        found = []
        for axis in decls[name].shape.axes:
            if (
                isinstance(axis, ast.SizeAxis)
                and isinstance(axis.size, ast.SizeName)
                and axis.size.name in decls
            ):
                found.append(axis.size.name)
        return found

    state: dict[str, str] = {}
    in_cycle: set[str] = set()

    def visit(name: str, stack: list[str]) -> None:
        state[name] = "active"
        stack.append(name)
        for used in uses(name):
            if state.get(used) == "active":
                in_cycle.update(stack[stack.index(used) :])
            elif used not in state:
                visit(used, stack)
        stack.pop()
        state[name] = "done"

    for name in decls:
        if name not in state:
            visit(name, [])
    for name in decls:
        if name in in_cycle:
            reporter.report(
                "E2201",
                f"shape alias `{name}` is defined in terms of itself",
                decls[name].name_span,
                "part of a cycle",
                help="an alias may use other aliases, but not in a cycle",
            )
            scope.aliases.pop(name, None)
            scope.broken_names.add(name)


# ---------------------------------------------------------------------- signatures


def build_signatures(
    module: ast.Module, scope: ModuleScope, resolver: TypeResolver, on_reference=None
) -> None:
    for name, decl in scope.functions.items():
        scope.signatures[name] = build_signature(decl, resolver, scope.type_context(on_reference))
    for item in module.items:
        if isinstance(item, ast.FnDecl) and item.name not in scope.signatures:
            scope.signatures.setdefault(
                item.name, build_signature(item, resolver, scope.type_context(on_reference))
            )
