"""The checked program: what the checker found, and the queries every consumer asks it.

The checker records each fact once, as it checks: the type of every expression and
name by span, the declaration each name refers to, and each function's bindings. The
language server, the compiler and the CLI read these; none works a type out again.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from shapescript.check.types import Type, format_type
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile, Span


@dataclass(frozen=True, slots=True)
class Symbol:
    """A declaration a name can refer to.

    `kind` is one of: dim, alias, domain, fn, extern, model, data, logs, import,
    python_module, param, value, axis, field, builtin, prelude. `path` is the file that
    declares it ("<builtins>" for the checker's own built-ins, "<prelude>" and "<nn>" for
    the stubs shipped with the compiler).
    """

    name: str
    kind: str
    span: Span
    path: str
    detail: str = ""
    doc: str | None = None


@dataclass(slots=True)
class Reference:
    span: Span
    symbol: Symbol


@dataclass(slots=True)
class ScopeEntry:
    """A name bound in a function from `visible_from` to the end of `scope`."""

    name: str
    symbol: Symbol
    type: Type
    visible_from: int
    scope: Span


@dataclass(slots=True)
class FunctionFacts:
    """What the checker learnt inside one function."""

    name: str
    span: Span
    entries: list[ScopeEntry] = field(default_factory=list)


@dataclass(slots=True)
class Checked:
    """A checked file: tree, diagnostics, and the facts the query API reads."""

    source: SourceFile
    module: ast.Module
    diagnostics: list[Diagnostic]
    module_symbols: dict[str, Symbol] = field(default_factory=dict)
    builtin_symbols: dict[str, Symbol] = field(default_factory=dict)
    types_by_span: dict[Span, Type] = field(default_factory=dict)
    references: list[Reference] = field(default_factory=list)
    functions: list[FunctionFacts] = field(default_factory=list)
    dim_values: dict[str, int] = field(default_factory=dict)
    _sorted_spans: list[Span] | None = None
    _sorted_refs: list[Reference] | None = None

    # ------------------------------------------------------------------ queries

    def offset(self, line: int, column: int) -> int:
        """A 1-based line and column as a character offset."""
        return self.source.offset(line, column)

    def type_at(self, offset: int) -> Type | None:
        """The type of the innermost expression or name whose span holds the offset."""
        if self._sorted_spans is None:
            self._sorted_spans = sorted(self.types_by_span, key=lambda s: (s.start, -s.end))
        best: Span | None = None
        spans = self._sorted_spans
        index = bisect.bisect_right(spans, (offset, float("inf")), key=lambda s: (s.start, -s.end))
        for span in reversed(spans[:index]):
            if span.start <= offset <= span.end and (
                best is None or span.end - span.start < best.end - best.start
            ):
                best = span
            if best is not None and span.end < best.start:
                break
        return self.types_by_span.get(best) if best is not None else None

    def type_text_at(self, offset: int) -> str | None:
        type_ = self.type_at(offset)
        return format_type(type_) if type_ is not None else None

    def definition_at(self, offset: int) -> Symbol | None:
        """The declaration the name at the offset refers to."""
        if self._sorted_refs is None:
            self._sorted_refs = sorted(self.references, key=lambda r: r.span.start)
        refs = self._sorted_refs
        index = bisect.bisect_right(refs, offset, key=lambda r: r.span.start)
        for reference in reversed(refs[max(0, index - 4) : index]):
            if reference.span.start <= offset <= reference.span.end:
                return reference.symbol
        return None

    def references_to(self, symbol: Symbol) -> list[Span]:
        """Every span that names the declaration, the declaration's own name included."""
        spans = [ref.span for ref in self.references if ref.symbol == symbol]
        if symbol.path == self.source.path and symbol.span not in spans:
            spans.append(symbol.span)
        return sorted(spans)

    def names_in_scope(self, offset: int) -> dict[str, tuple[Symbol, Type | None]]:
        """The names visible at the offset, innermost first: function names, then module."""
        names: dict[str, tuple[Symbol, Type | None]] = {}
        for function in self.functions:
            if not function.span.start <= offset <= function.span.end:
                continue
            for entry in function.entries:
                if entry.visible_from <= offset and entry.scope.start <= offset <= entry.scope.end:
                    names[entry.name] = (entry.symbol, entry.type)
        for name, symbol in self.module_symbols.items():
            names.setdefault(name, (symbol, None))
        for name, symbol in self.builtin_symbols.items():
            names.setdefault(name, (symbol, None))
        return names

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]
