"""The checked program: what the checker found, and the queries every consumer asks it.

The checker records each fact once, as it checks: the type of every expression and
name, the declaration each name refers to, and each function's bindings. The language
server, the compiler and the CLI read these; none works a type out again.

Facts are kept per top-level item, with spans relative to the item's chunk (as the
parser gives them), so a function body's facts can be reused unchanged when an edit
elsewhere moves it. The queries take and give absolute offsets.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from typing import TYPE_CHECKING

from shapescript.check.algebra.types import Type, format_type
from shapescript.check.declarations.symbols import (
    LOCAL_KINDS,
    Instance,
    ItemFacts,
    Reference,
    Symbol,
)
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.records import field, record, replace
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile, Span

if TYPE_CHECKING:
    from shapescript.check.algebra.structures import Structure
    from shapescript.check.declarations.data_info import DataInfo
    from shapescript.check.declarations.logs_info import LogsInfo
    from shapescript.check.declarations.model_info import ModelInfo


@record
class Checked:
    """A checked file: tree, diagnostics, and the facts the query API reads.

    For the compiler, besides each item's `Facts` (the type of every expression, models,
    gradients, optimizer state, schedules and modes included; the field each `m.w1`
    reads): `models`, every model declaration with its fields resolved, and
    `param_reads`, which params of a model parameter each fn reads.
    """

    source: SourceFile
    module: ast.Module
    diagnostics: list[Diagnostic]
    #: A dict, or after an edit that moved items a mapping that moves them as read
    #: (`placed_symbols.PlacedSymbols`).
    module_symbols: Mapping[str, Symbol] = field(default_factory=dict)
    builtin_symbols: dict[str, Symbol] = field(default_factory=dict)
    items: list[ItemFacts] = field(default_factory=list)
    dim_values: dict[str, int] = field(default_factory=dict)
    #: Every callable's signature by name: the file's functions, then the prelude's.
    signatures: dict[str, object] = field(default_factory=dict)
    #: What the next check of an edited version of this file may reuse.
    parse: object = None
    memo: dict = field(default_factory=dict)
    #: The LaTeX math found in comments, parsed, for hovers to render.
    math: list = field(default_factory=list)
    #: For the compiler and the editor: each model declaration, by name, with its fields
    #: in order (`model_info.ModelInfo`: kind, type, shape as ints, dtype, initializer
    #: with its arguments as Python numbers, doc, span).
    models: Mapping[str, ModelInfo] = field(default_factory=dict)
    #: For the compiler and the editor: each data record, by name, with its valid fields in
    #: order (`data_info.DataInfo`: type, shape as ints, dtype, the type as written, doc,
    #: span). A batch's or example's type is `BatchType` (the record's name and the batch
    #: axes, none for an example). The variable of a loop over `batches(n)` has a batch
    #: type whose axis is a fresh unknown size (`?b`, `?b2`, ...), named `b` when that name
    #: is free; a field read `batch.img` has the field's type with the batch axes first,
    #: and its name is a `Reference.field`.
    data: Mapping[str, DataInfo] = field(default_factory=dict)
    #: For the compiler and the architecture view: for each fn of the file, for each of
    #: its parameters whose type is a model, the names of the params of that model its
    #: body reads (directly as `m.w1`, or through the fns, pipes and `value_and_grad` it
    #: passes the model to), in declaration order; None when it may read any (it passes
    #: the model to Python or somewhere the checker can't follow).
    param_reads: dict[str, dict[str, tuple[str, ...] | None]] = field(default_factory=dict)
    #: For the compiler and the editor: the other `.ss` files the file imports
    #: (`imports.ImportTable`: each import line's file, the imported declarations by
    #: qualified name, with their signatures and models), or None.
    imports: object = None
    #: For the compiler and the editor: each logs record, by name, with its metrics in
    #: order (`logs_info.LogsInfo`: type, dtype as the runtime names it, combining rule).
    logs: Mapping[str, LogsInfo] = field(default_factory=dict)
    #: Functions that share a name, each taking another model first: by name, each
    #: overload's signature by its model (the name's entry in `signatures` is the first).
    overloads: dict[str, dict[str, object]] = field(default_factory=dict)
    #: Every instance of a generic function that the file's code calls, directly or
    #: through other instances, in the order first called.
    instances: list[Instance] = field(default_factory=list)
    #: For the compiler and the editor: where each fn runs on several devices and how its
    #: values are split (`placement.Placement`), or None.
    placement: object = None
    #: For the compiler and the editor: which batch loops and generic axes can be padded,
    #: and which steps recorded (`padding.PaddingFacts`), or None.
    padding: object = None
    #: In a notebook cell, for the editor: the values earlier cells made and the notebook's
    #: Python variables (kind `python`), visible everywhere in the cell.
    notebook_names: dict[str, tuple[Symbol, Type | None]] = field(default_factory=dict)
    _bases: list[int] | None = None

    # ------------------------------------------------------------------ locating

    def offset(self, line: int, column: int) -> int:
        """A 1-based line and column as a character offset."""
        return self.source.offset(line, column)

    def items_at(self, offset: int) -> list[ItemFacts]:
        """The items whose span holds the offset (normally one): those of its chunk."""
        if self._bases is None:
            self._bases = [item.base for item in self.items]
        index = bisect.bisect_right(self._bases, offset) - 1
        if index < 0:
            return []
        chunk = self._bases[index]
        found = []
        while index >= 0 and self._bases[index] == chunk:
            item = self.items[index]
            if item.span.start <= offset <= item.span.end:
                found.append(item)
            index -= 1
        return found

    def _resolve(self, reference: Reference, base: int) -> Symbol | None:
        if reference.field is not None:
            owner, name = reference.field
            info = self.models.get(owner) or self.data.get(owner)
            if info is None and self.imports is not None:
                info = self.imports.model_infos.get(owner) or self.imports.data_infos.get(owner)
            if info is not None:
                found = info.fields.get(name)
            else:
                record_info = self.logs.get(owner)
                if record_info is None and self.imports is not None:
                    record_info = self.imports.logs_infos.get(owner)
                found = record_info.metrics.get(name) if record_info is not None else None
            return found.symbol if found is not None else None
        if reference.module_name is not None:
            found = self.module_symbols.get(reference.module_name)
            if found is None and self.imports is not None:
                found = self.imports.symbols.get(reference.module_name)
            return found
        symbol = reference.symbol
        if symbol is not None and symbol.kind in LOCAL_KINDS and symbol.path == self.source.path:
            return replace(symbol, span=Span(symbol.span.start + base, symbol.span.end + base))
        return symbol

    # ------------------------------------------------------------------ queries

    def type_of(self, span: Span) -> Type | None:
        """The type recorded for exactly this (absolute) span."""
        for item in self.items_at(span.start):
            relative = Span(span.start - item.base, span.end - item.base)
            for facts in item.fact_tables():
                if relative in facts.types:
                    return facts.types[relative]
        return None

    def type_at(self, offset: int) -> Type | None:
        """The type of the innermost expression or name whose span holds the offset."""
        best: tuple[int, Type] | None = None
        for item in self.items_at(offset):
            relative = offset - item.base
            for facts in item.fact_tables():
                for span, type_ in facts.types.items():
                    if span.start <= relative <= span.end and (
                        best is None or span.end - span.start < best[0]
                    ):
                        best = (span.end - span.start, type_)
        return best[1] if best is not None else None

    def structure_at(self, offset: int) -> Structure | None:
        """The structure of the innermost expression or name whose span holds the offset."""
        best: tuple[int, Structure | None] | None = None
        for item in self.items_at(offset):
            relative = offset - item.base
            for facts in item.fact_tables():
                for span in facts.types:
                    if span.start <= relative <= span.end and (
                        best is None or span.end - span.start < best[0]
                    ):
                        best = (span.end - span.start, facts.structures.get(span))
        return best[1] if best is not None else None

    def type_text_at(self, offset: int) -> str | None:
        type_ = self.type_at(offset)
        return format_type(type_) if type_ is not None else None

    def definition_at(self, offset: int) -> Symbol | None:
        """The declaration the name at the offset refers to (or declares)."""
        for item in self.items_at(offset):
            relative = offset - item.base
            for facts in item.fact_tables():
                for reference in facts.references:
                    if reference.span.start <= relative <= reference.span.end:
                        return self._resolve(reference, item.base)
        for symbol in self.module_symbols.values():
            if symbol.span.start <= offset <= symbol.span.end:
                return symbol
        return None

    def references_to(self, symbol: Symbol) -> list[Span]:
        """Every span that names the declaration, the declaration's own name included."""
        spans: set[Span] = set()
        for item in self.items:
            for facts in item.fact_tables():
                for reference in facts.references:
                    if self._resolve(reference, item.base) == symbol:
                        spans.add(
                            Span(reference.span.start + item.base, reference.span.end + item.base)
                        )
        if symbol.path == self.source.path:
            spans.add(symbol.span)
        return sorted(spans)

    def names_in_scope(self, offset: int) -> dict[str, tuple[Symbol, Type | None]]:
        """The names visible at the offset, innermost first: function names, then module."""
        names: dict[str, tuple[Symbol, Type | None]] = {}
        for item in self.items_at(offset):
            relative = offset - item.base
            for facts in item.fact_tables():
                for entry in facts.entries:
                    if entry.visible_from <= relative and (
                        entry.scope.start <= relative <= entry.scope.end
                    ):
                        symbol = self._resolve(Reference(entry.scope, entry.symbol), item.base)
                        names[entry.name] = (symbol, entry.type)
        python = {}
        for name, found in self.notebook_names.items():
            if found[0].kind == "python":
                python[name] = found
            else:
                names.setdefault(name, found)
        for name, symbol in self.module_symbols.items():
            names.setdefault(name, (symbol, None))
        for name, symbol in self.builtin_symbols.items():
            names.setdefault(name, (symbol, None))
        for name, found in python.items():
            names.setdefault(name, found)
        return names

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]
