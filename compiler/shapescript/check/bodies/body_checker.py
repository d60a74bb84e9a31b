"""Checking function bodies: statements, expressions, calls and the built-ins.

One `BodyChecker` checks one function. It records the type of every expression it
visits and the declaration each name refers to, for the query API.
"""

from __future__ import annotations

from collections.abc import Callable

from shapescript.check.algebra import domains, fixes, ranges
from shapescript.check.algebra.assertions import Relation
from shapescript.check.algebra.broadcast import ShapeError, broadcast, matmul, positions_in
from shapescript.check.algebra.limits import inference_too_deep
from shapescript.check.algebra.reporter import Reporter
from shapescript.check.algebra.sizes import Poly, SizeOverflow
from shapescript.check.algebra.solver import Equation, solve
from shapescript.check.algebra.structures import record_structures
from shapescript.check.algebra.syntax_facts import always_returns, cover_spans, type_names, walk
from shapescript.check.algebra.type_rules import (
    ARITHMETIC,
    COMPARISONS,
    article,
    asserted_domain,
    dtype_converted,
    dtype_kind,
    dtype_misfit,
    erase_range,
    host_kind_fits,
    host_result,
    impossible_assertion,
    is_loose,
    is_mask,
    join_types,
    tensor_dtype,
    type_key,
    widen,
)
from shapescript.check.algebra.types import (
    BOOL,
    FLOAT,
    INT,
    LOGGING_TYPES,
    MASK,
    REAL,
    UNKNOWN,
    Axis,
    BatchType,
    FunctionType,
    HostType,
    NamedType,
    PythonType,
    SeveralType,
    StackType,
    StringType,
    TensorType,
    Type,
    UnknownType,
    format_shape,
    format_type,
    interval_of,
)
from shapescript.check.bodies import (
    asserts,
    builtin_rules,
    chains,
    data_values,
    fieldless,
    generics,
    gradients,
    logs_values,
    model_values,
    modes,
    mutation,
    qualified_uses,
)
from shapescript.check.bodies.body_facts import elementwise_body, independent_term, python_call
from shapescript.check.bodies.calls import CallChecker
from shapescript.check.bodies.env import Arg, Env
from shapescript.check.bodies.kept_bodies import BodiesMemo, BodyKey, lendable
from shapescript.check.bodies.read_summary import ReadSummary
from shapescript.check.bodies.transposed import transposed_weight
from shapescript.check.declarations import imports, overloads
from shapescript.check.declarations.module_scope import KIND_WORDS, ModuleScope, suggestion
from shapescript.check.declarations.placed_symbols import PlacedSymbols
from shapescript.check.declarations.signatures import Signature
from shapescript.check.declarations.symbols import (
    LOCAL_KINDS,
    BodyResult,
    Facts,
    Reference,
    ScopeEntry,
    Symbol,
)
from shapescript.check.declarations.type_exprs import BUILTIN_DOMAINS, TypeContext, TypeResolver
from shapescript.diagnostics.diagnostic import Fix, Label
from shapescript.notebook.python_names import PYTHON_NAMES
from shapescript.syntax import ast
from shapescript.syntax.source import Span


class Program:
    """What body checkers share: the module scope, the prelude, and the body memo.

    Each function body is checked once per analysis, on demand (a call to a function
    without a return type needs its body's type), and its result is reused by the next
    analysis while the function's text and the module's declarations are unchanged.
    """

    def __init__(
        self,
        module: ast.Module,
        scope: ModuleScope,
        prelude,
        source_text: str,
        fingerprint: int,
        previous_memo: dict | None = None,
        item_index: dict[int, int] | None = None,
    ) -> None:
        self.module = module
        self.scope = scope
        self.resolver_reporter = Reporter()
        self.prelude = prelude
        self.source_text = source_text
        self.fingerprint = fingerprint
        self.previous_memo = previous_memo or {}
        #: What the analysis remembers for the next one, but the function bodies.
        self.memo: dict = {}
        #: The function bodies checked or kept: by key (`check_item`), and by the index
        #: of their function's item (only those checked or looked at by this analysis,
        #: when it copied the previous one's table: `keep_bodies`).
        self.bodies: dict[BodyKey, BodyResult] = {}
        self.results: dict[int, BodyResult] = {}
        #: The previous analysis's item texts, the first part of its bodies' keys.
        self.previous_texts: list[str] | None = None
        #: How many of the previous analysis's bodies `keep_bodies` dropped.
        self.dropped = 0
        kept = self.previous_memo.get("bodies")
        #: The previous analysis's bodies, when it kept them (with the editor's facts).
        self.previous_bodies: BodiesMemo | None = kept if isinstance(kept, BodiesMemo) else None
        self.variable_counter = 0
        self.inferring: list[str] = []
        #: Functions whose return type wasn't inferred, because that went too deep.
        self.refused: set[str] = set()
        self.range_cache: dict = {}
        self.effects: dict = {}
        #: Each item's index by the item's id: `item_index` when the caller has it.
        self.item_index = (
            item_index
            if item_index is not None
            else {id(item): index for index, item in enumerate(module.items)}
        )
        #: `read_summary.ReadSummary` by function text and parameter, this analysis's and
        #: the previous one's.
        self.read_summaries: dict[tuple[str, str], ReadSummary] = {}
        self.previous_read_summaries: dict = self.previous_memo.get("reads", {})
        #: Each item's text, when the caller has it already.
        self.item_texts: list[str] | None = None
        #: The previous analysis's item facts, in the same order, when it was made with
        #: the same declarations (`fingerprint`): an item that is the same object there
        #: has its body's check already (`check_item`).
        self.previous_items: list | None = None
        #: `id(signature)` -> (signature, the names and positions of its Axis[..] and
        #: Axes[..] parameters), worked out once per signature rather than per call.
        self.axis_parameters: dict[int, tuple] = {}
        #: Whether bodies record what only the editor and the compiler read: each scope's
        #: entries (completion), each binding's type as text (hover), how the operands of
        #: elementwise operations line up (codegen). A check for diagnostics alone skips them.
        self.editor_facts = True
        #: The index of the file's names (`name_index`), once made or taken again.
        self.names: fixes.NameIndex | None = None

    def name_index(self) -> fixes.NameIndex:
        """The index of the file's names for did-you-mean help, made when a body first
        reads an unknown name: the previous analysis's while the names are the same."""
        if self.names is None:
            kept = self.previous_memo.get("names")
            symbols = self.scope.symbols
            names = symbols.names() if isinstance(symbols, PlacedSymbols) else symbols.keys()
            if isinstance(kept, fixes.NameIndex) and (kept.names is names or kept.names == names):
                self.names = kept
            else:
                self.names = fixes.NameIndex(names)
        return self.names

    def body_checker(
        self, decl: ast.FnDecl, signature: Signature, arguments: dict[str, Type] | None = None
    ) -> BodyChecker:
        """A new checker of the body of `decl` (`context.ProgramContext`'s factory)."""
        return BodyChecker(self, decl, signature, arguments)

    def fresh_variable(self, name: str) -> str:
        self.variable_counter += 1
        return f"${name}.{self.variable_counter}"

    def lookup_function(self, name: str) -> Signature | None:
        signature = self.scope.signatures.get(name) or imports.signature_of(self.scope, name)
        if signature is not None:
            return signature
        return self.prelude.signatures.get(name)

    def item_text(self, index: int) -> str:
        if self.item_texts is not None:
            return self.item_texts[index]
        item = self.module.items[index]
        base = self.module.base_of(index)
        return self.source_text[base + item.span.start : base + item.span.end]

    def check_item(self, index: int) -> BodyResult | None:
        """Check the function at `index` (or reuse its result); None while it is in progress."""
        if index in self.results:
            return self.results[index]
        decl = self.module.items[index]
        if not isinstance(decl, ast.FnDecl):
            return None
        kept = self._kept_body(index, decl)
        if kept is not None:
            return kept
        signature = overloads.signature_of(self.scope, decl)
        if signature is None or decl.name in self.inferring:
            return None
        # Facts and diagnostics count from the item's chunk, so the item's place in its
        # chunk is part of the key: comment lines added above it move it there.
        key = (self.item_text(index), decl.span.start, self.fingerprint)
        lent = self.previous_bodies.by_key.get(key) if self.previous_bodies else None
        result = lent or self.bodies.get(key)
        if result is not None and not generics.body_reusable(self, result):
            result = None
        if result is None:
            if self.inferring and inference_too_deep(len(self.inferring)):
                self.refused.add(decl.name)
                return None
            self.inferring.append(decl.name)
            try:
                result = BodyChecker(self, decl, signature).check()
            finally:
                self.inferring.pop()
        self._keep(index, key, result)
        return result

    def _keep(self, index: int, key: BodyKey, result: BodyResult) -> None:
        self.bodies[key] = result
        self.results[index] = result

    def keep_bodies(self, replaced: list[int] | None = None) -> list[int] | None:
        """Take what `_kept_body` would find for every function: the previous analysis's
        check of each body whose item is the same object, while its memo holds that
        check under this analysis's key. A keystroke in a big file keeps tens of
        thousands; only the edited bodies are left to `check_item`.

        Given `replaced` (every item but those at these indexes is the previous
        analysis's own, `collect_reusing`), the previous table by key is copied whole and
        the indexes of the functions left to look at again are given (ascending: those
        replaced, those without a body, those whose result can't be reused): the others
        keep the bodies their items have. Else None, after looking at each function."""
        previous = self.previous_items
        kept = self.previous_bodies
        if previous is None or kept is None:
            return None
        if replaced is not None and self.previous_texts is not None and lendable(kept):
            return self._take_bodies(kept, previous, self.previous_texts, replaced)
        items, texts, fingerprint = self.module.items, self.item_texts, self.fingerprint
        lent = kept.by_key.get
        for index, old in enumerate(previous):
            result = old.body
            if result is None:
                continue
            decl = items[index]
            if old.item is not decl:
                continue
            text = texts[index] if texts is not None else self.item_text(index)
            key = (text, decl.span.start, fingerprint)
            if lent(key) is not result:
                continue
            if result.diagnostics and not generics.body_reusable(self, result):
                continue
            self._keep(index, key, result)
        return None

    def _take_bodies(
        self, kept: BodiesMemo, previous: list, texts: list[str], replaced: list[int]
    ) -> list[int]:
        """`keep_bodies` from a copy of the previous table by key, with one key per body
        (so dropping a body's key drops no other body's)."""
        again = set(replaced)
        again.update(kept.unchecked)
        for index in kept.located:
            if index not in again and not generics.body_reusable(self, previous[index].body):
                again.add(index)
        by_key = dict(kept.by_key)
        fingerprint = self.fingerprint
        self.dropped = 0
        for index in again:
            if previous[index].body is not None:
                del by_key[(texts[index], previous[index].item.span.start, fingerprint)]
                self.dropped += 1
        self.bodies = by_key
        return sorted(again)

    def _kept_body(self, index: int, decl: ast.FnDecl) -> BodyResult | None:
        """The previous analysis's check of the body at `index` when the item is the same
        object (so the same text at the same place in its chunk) and its memo holds that
        check under this analysis's key: what `check_item` would find there, without
        looking up the function's signature."""
        previous = self.previous_items
        if previous is None:
            return None
        old = previous[index]
        result = old.body
        if old.item is not decl or result is None:
            return None
        key = (self.item_text(index), decl.span.start, self.fingerprint)
        lent = self.previous_bodies.by_key.get(key) if self.previous_bodies else None
        if lent is not result or not generics.body_reusable(self, result):
            return None
        self._keep(index, key, result)
        return result

    def body_range(self, signature: Signature, arguments: dict[str, Type]):
        """The range an elementwise function's body gives at these arguments' ranges."""
        decl = signature.decl
        if not isinstance(decl, ast.FnDecl) or decl.name in self.inferring:
            return None
        if signature.origin == "import":
            return None
        key = (decl.name, tuple(sorted((k, format_type(v)) for k, v in arguments.items())))
        if key in self.range_cache:
            return self.range_cache[key]
        self.inferring.append(decl.name)
        try:
            checker = BodyChecker(self, decl, signature, arguments)
            checker.check()
        finally:
            self.inferring.pop()
        intervals = [interval_of(returned) for returned in checker.returned]
        interval = None
        if intervals and all(found is not None for found in intervals):
            interval = intervals[0]
            for found in intervals[1:]:
                interval = interval.hull(found)
        self.range_cache[key] = interval
        return interval

    def effect_of(self, name: str):
        """What a function of this file does beyond computing a value, and where (absolute
        span), looking through the functions it calls; None if it only computes."""
        if name in self.effects:
            return self.effects[name]
        self.effects[name] = None
        decl = self.scope.functions.get(name)
        if not isinstance(decl, ast.FnDecl):
            return None
        base = self.scope.function_bases.get(name, 0)
        found = None
        for node in walk(decl):
            if isinstance(node, ast.FieldAssign):
                found = ("changes a model's field", node.span)
            elif isinstance(node, ast.Call):
                callee = node.callee
                called = callee.name if isinstance(callee, ast.Name) else None
                if called in chains.EFFECTFUL:
                    found = (f"calls `{called}`", node.span)
                elif any(arg.mut for arg in node.args):
                    found = ("passes a mut argument", node.span)
                elif (logged := logs_values.effect(self.scope, decl, node)) is not None:
                    found = (logged, node.span)
                elif isinstance(callee, ast.Member):
                    root = callee
                    while isinstance(root, ast.Member):
                        root = root.target
                    if isinstance(root, ast.Name) and root.name in self.scope.python_modules:
                        found = ("calls into Python", node.span)
                elif called is not None and called != name:
                    inner = self.effect_of(called)
                    if inner is not None:
                        found = (
                            f"calls `{called}`, which {inner[0].split(' ', 1)[-1]}",
                            Span(node.span.start + base, node.span.end + base),
                        )
                        self.effects[name] = found
                        return found
            if found is not None:
                what, span = found
                found = (what, Span(span.start + base, span.end + base))
                break
        self.effects[name] = found
        return found

    def return_type_of(self, signature: Signature) -> Type | None:
        """The declared return type, or the one inferred from the body; None for recursion."""
        if signature.return_type is not None:
            return signature.return_type
        index = self.item_index.get(id(signature.decl))
        if index is None:
            return UNKNOWN
        result = self.check_item(index)
        if result is None:
            refused = signature.name in self.inferring or signature.name in self.refused
            return None if refused else UNKNOWN
        return result.inferred


def _stage_note(number: int, current: object) -> Callable[[], str]:
    """The note a diagnostic inside a pipeline's stage gets, written only if one is made."""

    def note() -> str:
        shown = format_type(current if isinstance(current, Type) else chains.as_several(current))
        return f"in stage {number} of this pipeline, whose input is {shown}"

    return note


class BodyChecker(CallChecker):
    #: The generic instance being checked (`generics.Frame`), if this body is one.
    instance = None

    def __init__(
        self,
        program: Program,
        decl: ast.FnDecl,
        signature: Signature,
        param_types: dict[str, Type] | None = None,
    ) -> None:
        #: Argument types to check the body at instead of the parameters' own (the interval
        #: interpreter of an elementwise call).
        self.param_types = param_types or {}
        self.program = program
        self.reporter = Reporter()
        self.scope = program.scope
        self.decl = decl
        self.signature = signature
        self.env = Env()
        self.facts = Facts()
        self.unknown_counts: dict[str, int] = {}
        self.returned: list[Type] = []
        #: Batch axes split across several devices (the file declares more than one).
        self.split_axes: set[str] = set()
        self.base = program.module.base_of(program.item_index.get(id(decl), 0))
        #: The text `base` is in: the file's, or, for an instance of another file's
        #: generic function, that file's.
        self.source_text = program.source_text
        self.resolver = TypeResolver(self.reporter)
        #: Sizes known to be at least 0 from the asserts before the current statement.
        self.size_facts: list[Poly] = []
        #: The divisibility relations (`n % h == 0`) asserted before the current statement.
        self.divisibility_facts: list[Relation] = []

    def text_of(self, span: Span) -> str:
        """The source text of an item-relative span."""
        return self.source_text[self.base + span.start : self.base + span.end]

    def record(self, span: Span, type_: Type) -> Type:
        self.facts.types[span] = type_
        return type_

    def align(self, span: Span, operands: list[Type], result: Type) -> None:
        """Record, for the compiler, how each operand of an elementwise operation lines up
        with its result."""
        if (
            not self.program.editor_facts
            or not isinstance(result, TensorType)
            or result.axes is None
        ):
            return
        plans = tuple(
            positions_in(operand.axes, result.axes)
            if isinstance(operand, TensorType) and operand.axes is not None
            else None
            for operand in operands
        )
        if any(plan is not None for plan in plans):
            self.facts.alignments[span] = plans

    def refer(self, span: Span, symbol: Symbol) -> None:
        """Note that the name at `span` refers to `symbol` (module symbols by name)."""
        if symbol.kind not in LOCAL_KINDS and symbol.path == self.scope.path:
            self.facts.references.append(Reference(span, None, symbol.name))
        else:
            self.facts.references.append(Reference(span, symbol))

    # ------------------------------------------------------------------ setup

    def symbol(self, name: str, kind: str, span: Span, detail: str = "") -> Symbol:
        return Symbol(name, kind, span, self.scope.path, detail)

    def bind_value(self, name: str, type_: Type, span: Span, kind: str, scope_span: Span) -> None:
        # `symbol`, `refer` and `record`, without their calls.
        facts = self.facts
        editor = self.program.editor_facts
        symbol = Symbol(name, kind, span, self.scope.path, format_type(type_) if editor else "")
        self.env.values[name] = (type_, symbol)
        if kind in LOCAL_KINDS:
            facts.references.append(Reference(span, symbol))
        else:
            self.refer(span, symbol)
        facts.types[span] = type_
        if editor:
            facts.entries.append(ScopeEntry(name, symbol, type_, span.end, scope_span))

    def bind_axis(self, name: str, size: Poly, span: Span, scope_span: Span) -> None:
        if name in self.env.axes or name in self.scope.dims:
            return
        facts = self.facts
        # The size shown for the name only where the editor's facts are wanted, as for
        # `bind_value`'s types.
        editor = self.program.editor_facts
        symbol = Symbol(name, "axis", span, self.scope.path, str(size) if editor else "")
        self.env.axes[name] = (size, symbol)
        facts.references.append(Reference(span, symbol))
        type_ = HostType("int", size)
        facts.types[span] = type_
        if editor:
            facts.entries.append(ScopeEntry(name, symbol, type_, span.start, scope_span))

    def fresh_unknown(self, name: str) -> str:
        count = self.unknown_counts.get(name, 0) + 1
        self.unknown_counts[name] = count
        return f"?{name}" if count == 1 else f"?{name}{count}"

    def type_context(self, mode: str) -> TypeContext:
        ctx = self.scope.type_context(self._on_type_reference)
        if self.instance is not None and self.instance.home.prefix is not None:
            ctx.modules = self.instance.names
        ctx.axes = self.env.axis_sizes()
        ctx.mode = mode
        ctx.fresh_unknown = self.fresh_unknown
        ctx.values = frozenset(self.env.values)
        return ctx

    def _on_type_reference(self, name: str, span: Span) -> None:
        symbol = self._axis_or_module_symbol(name)
        if symbol is not None:
            self.refer(span, symbol)

    def _axis_or_module_symbol(self, name: str) -> Symbol | None:
        if name in self.env.axes:
            return self.env.axes[name][1]
        return self.scope.symbols.get(name)

    # ------------------------------------------------------------------ function

    def check(self) -> BodyResult:
        """Check the body: its facts, diagnostics and the type it returns. A generic
        function's own body is only looked at for the editor's facts, silently: its
        instances are what is checked (`generics`)."""
        if self.signature.is_generic:
            self.reporter.muted += 1
        inferred = self._check_body()
        if "causal" in self.text_of(self.decl.span):
            # Only a causal mask starts a structure; other bodies have none to find.
            record_structures(self.decl, self.facts)
        return BodyResult(self.facts, self.reporter.diagnostics, inferred)

    def _check_body(self) -> Type:
        body_span = self.decl.span
        spans = dict(self._generic_spans()) if self.signature.generics else {}
        for name, size in self.signature.generics.items():
            self.bind_axis(name, size, spans.get(name, self.decl.name_span), body_span)
        for param in self.signature.params:
            if param.name in self.env.axes or param.name in self.scope.dims:
                what = "an axis name" if param.name in self.env.axes else "a dim"
                self.reporter.report(
                    "E0303",
                    f"parameter `{param.name}` has the name of {what}",
                    param.decl.name_span,
                    "name clash",
                    help="rename the parameter",
                )
            type_ = self.param_types.get(param.name, param.type)
            self.bind_value(param.name, type_, param.decl.name_span, "param", body_span)
            if isinstance(type_, BatchType) and self.scope.device_count > 1:
                self.split_axes |= {axis.name for axis in type_.axes if axis.name}
        if self.decl.expr_body is not None:
            value = self.expr(self.decl.expr_body)
            self.check_return(value, self.decl.expr_body.span)
            return self.signature.return_type or value
        body = self.decl.body or []
        self.block(body)
        if self.signature.return_type is not None and not always_returns(body):
            self.reporter.report(
                "E0307",
                f"`{self.decl.name}` doesn't return a value on every path",
                self.decl.name_span,
                f"declared to return {format_type(self.signature.return_type)}",
                help="a loop may run no times and an if without else may not run: add a "
                "return at the end",
            )
        if self.signature.return_type is not None:
            return self.signature.return_type
        return self.returned[0] if self.returned else UNKNOWN

    def _generic_spans(self) -> list[tuple[str, Span]]:
        spans: list[tuple[str, Span]] = []
        seen: set[str] = set()
        for param in self.decl.params:
            if param.type is None:
                continue
            for name, span in type_names(param.type):
                if name in self.signature.generics and name not in seen:
                    seen.add(name)
                    spans.append((name, span))
        return spans

    def check_return(self, value: Type, span: Span) -> None:
        self.returned.append(value)
        expected = self.signature.return_type
        # The type classes have no subclasses: `type(x) is C` is `isinstance(x, C)`.
        expected_kind = type(expected)
        value_kind = type(value)
        problem = model_values.fit_problem(expected, value)
        if problem is not None:
            model_values.report_misfit(
                self,
                problem,
                f"`{self.decl.name}` returns a value that isn't its declared "
                f"{format_type(expected)}",
                span,
            )
            return
        if expected_kind is HostType and value_kind is TensorType:
            self.reporter.report(
                "E0805",
                f"`{self.decl.name}` returns a host {expected.kind}, not the tensor "
                f"{format_type(value)}",
                span,
                "a tensor",
                help="reading a tensor on the host waits for the device; compute the number "
                "on the host, or return a [] tensor",
            )
            return
        if (
            expected_kind is HostType
            and value_kind is HostType
            and not host_kind_fits(value.kind, expected.kind)
        ):
            self.reporter.report(
                "E0502",
                f"`{self.decl.name}` returns {article(value.kind)} {value.kind}, not the "
                f"declared {expected.kind}",
                span,
                "returned here",
            )
            return
        if data_values.check_return(self, expected, value, span):
            return
        if expected is None or is_loose(value) or is_loose(expected):
            if value_kind is PythonType and expected_kind is TensorType:
                self._python_value_error(span, "returned as a typed result")
            return
        if expected_kind is TensorType and isinstance(value, (TensorType, HostType)):
            if value_kind is TensorType and expected.axes is not None and (value.axes is not None):
                problem = self._fit_axes(value.axes, expected.axes, allow_unknown=True)
                if problem is not None:
                    code, notes = problem
                    self.reporter.report(
                        code,
                        f"`{self.decl.name}` returns {format_type(value)}, not the declared "
                        f"{format_type(expected)}",
                        span,
                        "returned here",
                        notes=notes,
                    )
                    return
            if value_kind is TensorType and self._other_index_size(value, expected, span):
                return
            misfit = domains.value_fits(value, expected)
            if misfit is not None:
                self.reporter.report(
                    "E0501",
                    f"`{self.decl.name}` returns {misfit.message}",
                    span,
                    format_type(value),
                    notes=[f"the declared return type is {format_type(expected)}"],
                    help=misfit.help,
                    fixes=fixes.conversions(span, misfit.suffixes, self.text_of(span)),
                )
            elif value_kind is TensorType and dtype_misfit(expected, value):
                self.reporter.report(
                    "E0502",
                    f"`{self.decl.name}` returns {value.resolved_dtype} values, not the "
                    f"declared {expected.resolved_dtype}",
                    span,
                    format_type(value),
                    help=f"convert it first, as in `to {expected.resolved_dtype}`",
                    fixes=fixes.conversions(
                        span, [f"to {expected.resolved_dtype}"], self.text_of(span)
                    ),
                )
        elif expected_kind is TensorType and value_kind is StringType:
            self.reporter.report("E0412", "a string isn't a tensor", span, "string returned")

    def _other_index_size(self, value: TensorType, expected: TensorType, span: Span) -> bool:
        """Whether a returned Index[V] has another V than the declared one (E0507)."""
        have, want = value.domain.size, expected.domain.size
        if value.domain.name != "Index" or expected.domain.name != "Index":
            return False
        if have is None or want is None:
            return False
        if not solve([Equation(want, have, 0)], self.scope.dim_values).failures:
            return False
        self.reporter.report(
            "E0507",
            f"`{self.decl.name}` returns indices below {have}, not the declared Index[{want}]",
            span,
            "returned here",
        )
        return True

    def _to_keeps_shape(self, operand: TensorType, target: TensorType, span: Span) -> bool:
        """A shape written in `to` must be the value's own (E0401, E0403 for a rank)."""
        if operand.axes is None or target.axes is None:
            return True
        problem = self._fit_axes(operand.axes, target.axes, allow_unknown=False)
        if problem is None:
            return True
        code, notes = problem
        self.reporter.report(
            code,
            f"`to` keeps the shape, so {format_type(target)} must have the shape of "
            f"{format_type(operand)}",
            span,
            "another shape",
            notes=notes,
            help="change the shape with rearrange, or leave it out of the `to`",
        )
        return False

    def _fit_axes(
        self, actual: tuple[Axis, ...], expected: tuple[Axis, ...], allow_unknown: bool
    ) -> tuple[str, list[str]] | None:
        """Whether `actual` axes fit `expected` ones; unknown sizes in `expected` match any."""
        if len(actual) != len(expected):
            return (
                "E0403",
                [
                    f"{format_shape(actual)} has {len(actual)} axes, {format_shape(expected)} "
                    f"has {len(expected)}"
                ],
            )
        renames: dict[str, Poly] = {}
        equations = []
        for index, (have, want) in enumerate(zip(actual, expected, strict=True)):
            want_size = want.size
            if allow_unknown:
                for name in want.size.symbols():
                    if name.startswith("?"):
                        renames.setdefault(name, Poly.symbol(self.program.fresh_variable(name)))
                want_size = want_size.substitute(renames)
            equations.append(Equation(want_size, have.size, index))
        solution = solve(equations, self.scope.dim_values)
        if not solution.failures:
            return None
        failure = solution.failures[0]
        index = failure.equation.origin
        have, want = actual[index], expected[index]
        return (
            "E0401" if failure.code in ("E0409",) else failure.code,
            [f"axis {index + 1}: {have.size} is not known to equal {want.size}"],
        )

    # ------------------------------------------------------------------ statements

    def block(self, stmts: list[ast.Stmt]) -> None:
        known = len(self.size_facts)
        known_divisions = len(self.divisibility_facts)
        for stmt in stmts:
            self.stmt(stmt)
        # An assert's facts hold to the end of its block.
        del self.size_facts[known:]
        del self.divisibility_facts[known_divisions:]

    def stmt(self, stmt: ast.Stmt) -> None:
        if isinstance(stmt, ast.Assign):
            self.assign(stmt)
        elif isinstance(stmt, ast.Return):
            if stmt.value is None:
                if self.signature.return_type is not None:
                    self.reporter.report(
                        "E0307",
                        "a bare `return` in a function that returns a value",
                        stmt.span,
                        "returns nothing",
                    )
                return
            self.check_return(self.expr(stmt.value), stmt.value.span)
        elif isinstance(stmt, ast.ExprStmt):
            self.expr(stmt.expr)
        elif isinstance(stmt, ast.For):
            self.for_loop(stmt)
        elif isinstance(stmt, ast.If):
            self.if_stmt(stmt)
        elif isinstance(stmt, ast.FieldAssign):
            mutation.field_assign(self, stmt)
        elif isinstance(stmt, ast.Assert):
            asserts.check_assert(self, stmt)

    def assign(self, stmt: ast.Assign) -> None:
        self._building = frozenset(
            target.name for target in stmt.targets if target.name not in self.env.values
        )
        try:
            value = self.expr(stmt.value)
        finally:
            self._building = frozenset()
        targets = stmt.targets
        if isinstance(value, SeveralType):
            if len(targets) != len(value.items):
                self.reporter.report(
                    "E0411",
                    f"this gives {len(value.items)} results, bound to {len(targets)} names",
                    cover_spans([t.span for t in targets]),
                    f"{len(targets)} names",
                    help=f"bind {len(value.items)} names, one per result",
                )
                results: list[Type] = [UNKNOWN] * len(targets)
            else:
                results = list(value.items)
        elif len(targets) > 1:
            if not is_loose(value):
                self.reporter.report(
                    "E0411",
                    f"one value can't be bound to {len(targets)} names",
                    cover_spans([t.span for t in targets]),
                    f"{len(targets)} names",
                )
            results = [UNKNOWN if not isinstance(value, PythonType) else value] * len(targets)
        else:
            results = [value]
        scope_span = self._enclosing_block_span(stmt)
        for target, type_ in zip(targets, results, strict=True):
            if target.name in self.env.axes or target.name in self.scope.dims:
                what = "an axis name" if target.name in self.env.axes else "a dim"
                self.reporter.report(
                    "E0303",
                    f"a value can't take the name `{target.name}` of {what}",
                    target.span,
                    "name clash",
                    help="choose another name for the value",
                )
                continue
            self._check_block_assignment(target, type_)
            self.bind_value(target.name, type_, target.span, "value", scope_span)
        mutation.note_assign(self, stmt, results)

    def _check_block_assignment(self, target: ast.Target, new: Type) -> None:
        """A value from outside a block keeps its shape, axis names and dtype (E0801)."""
        if not self._block_outers or target.name not in self._block_outers[-1]:
            return
        old = self._block_outers[-1][target.name][0]
        if is_loose(old) or is_loose(new) or isinstance(new, UnknownType):
            return
        same = True
        if isinstance(old, TensorType) and isinstance(new, TensorType):
            same = (
                old.axes is None
                or new.axes is None
                or (
                    format_shape(old.axes) == format_shape(new.axes)
                    and old.resolved_dtype == new.resolved_dtype
                )
            )
        elif isinstance(old, HostType) and isinstance(new, HostType):
            same = old.kind == new.kind
        elif type(old) is not type(new):
            same = False
        if not same:
            self.reporter.report(
                "E0801",
                f"`{target.name}` is {format_type(old)} outside this block, but is assigned "
                f"{format_type(new)} in it",
                target.span,
                "changes its type",
                help="a value assigned in a loop or an if keeps its shape, axis names and "
                "dtype; give the new value another name",
            )

    def _enclosing_block_span(self, stmt: ast.Stmt) -> Span:
        return self._block_span or self.decl.span

    _block_span: Span | None = None
    _block_outers: list = []

    def for_loop(self, stmt: ast.For) -> None:
        outer = self.env
        self.env = outer.copy()
        self._block_outers = [*self._block_outers, outer.values]
        previous = self._block_span
        self._block_span = stmt.span
        try:
            iterable = stmt.iterable
            if isinstance(iterable, ast.Range):
                ends = [self.expr(iterable.lo), self.expr(iterable.hi)]
                for end, node in zip(ends, (iterable.lo, iterable.hi), strict=True):
                    if not (
                        (isinstance(end, HostType) and end.kind == "int")
                        or isinstance(end, (PythonType, UnknownType))
                    ):
                        self.reporter.report(
                            "E0803",
                            f"a range's ends must be ints, not {format_type(end)}",
                            node.span,
                            "not an int",
                            help="a range counts on the host: use an int, a dim or an axis name",
                        )
                low = interval_of(ends[0]) if isinstance(ends[0], HostType) else None
                high = interval_of(ends[1]) if isinstance(ends[1], HostType) else None
                var_type: Type = INT
                if low is not None and high is not None:
                    var_type = HostType(
                        "int", None, ranges.Interval.make(low.lo, max(low.lo, high.hi - 1))
                    )
            else:
                source = self.expr(iterable)
                batch = data_values.loop_variable(self, source, stmt)
                if isinstance(source, (TensorType, HostType, StringType)):
                    self.reporter.report(
                        "E0804",
                        f"a for loop can't loop over {format_type(source)}",
                        iterable.span,
                        "not iterable",
                        help="loop over a range `0..n`, a Python value or a dataset's batches; "
                        "for a tensor, use an iterator chain such as `x |> map(...)`",
                    )
                var_type = source if isinstance(source, PythonType) else batch or UNKNOWN
                if isinstance(source, StackType):
                    var_type = source.element
            mutation.note_loop_variable(self, stmt.var, iterable)
            self.bind_value(stmt.var.name, var_type, stmt.var.span, "value", stmt.span)
            data_values.bind_loop_axis(self, stmt, var_type)
            entry = dict(outer.values)
            self.block(stmt.body)
            self._loop_fixpoint(stmt, outer, entry, var_type)
            self._hint_chain(stmt, entry)
        finally:
            self.env = outer
            self._block_span = previous
            self._block_outers = self._block_outers[:-1]

    def _hint_chain(self, stmt: ast.For, outer_values: dict) -> None:
        """H2401: a loop over a whole axis whose iterations only add independent terms."""
        iterable = stmt.iterable
        if (
            not (
                isinstance(iterable, ast.Range)
                and isinstance(iterable.lo, ast.IntLit)
                and iterable.lo.value == 0
                and isinstance(iterable.hi, ast.Name)
                and iterable.hi.name in self.env.axes
            )
            or not stmt.body
        ):
            return
        index = stmt.var.name
        terms = []
        for body_stmt in stmt.body:
            if not (isinstance(body_stmt, ast.Assign) and len(body_stmt.targets) == 1):
                return
            accumulator = body_stmt.targets[0].name
            value = body_stmt.value
            if accumulator not in outer_values or not (
                isinstance(value, ast.Binary) and value.op == "+"
            ):
                return
            if isinstance(value.left, ast.Name) and value.left.name == accumulator:
                term = value.right
            elif isinstance(value.right, ast.Name) and value.right.name == accumulator:
                term = value.left
            else:
                return
            if not independent_term(term, index, set(outer_values) & {accumulator}):
                return
            terms.append((accumulator, term))
        axis = iterable.hi.name
        accumulator, term = terms[0]
        shown = self.text_of(term.span)
        self.reporter.report(
            "H2401",
            "this loop's iterations don't depend on each other: it could be an iterator chain",
            Span(stmt.span.start, stmt.var.span.end),
            "independent iterations",
            help=f"`{accumulator} = {accumulator} + ({axis} |> map({index} => {shown}) "
            f"|> sum(over={axis}))`",
            fixes=self._chain_for_loop(stmt, axis, index, terms),
        )

    def _chain_for_loop(self, stmt: ast.For, axis: str, index: str, terms) -> list[Fix]:
        """The loop H2401 flags, as one iterator chain per value it sums into."""
        text = self.source_text
        start = self.base + stmt.span.start
        indent = text[text.rfind("\n", 0, start) + 1 : start]
        if indent.strip():
            return []
        lines = [
            f"{acc} = {acc} + ({axis} |> map({index} => {self.text_of(term.span)}) "
            f"|> sum(over={axis}))"
            for acc, term in terms
        ]
        span = Span(stmt.span.start, stmt.body[-1].span.end)
        return fixes.replace(span, f"\n{indent}".join(lines), "Write the loop as an iterator chain")

    def _loop_fixpoint(self, stmt: ast.For, outer: Env, entry: dict, var_type: Type) -> None:
        """Check the body again, silently, until the outer values' domains at its start hold
        those at its end; a range still growing after two rounds widens to infinity, and a
        domain still changing after six rounds becomes Real. The outer values then have the
        joined types after the loop."""
        start = dict(entry)
        for round_number in range(1, 7):
            changed = False
            for name, (type_, symbol) in self.env.values.items():
                if name not in start or name == stmt.var.name:
                    continue
                joined = join_types(start[name][0], type_)
                if round_number >= 2:
                    joined = widen(start[name][0], joined)
                if round_number >= 6:
                    joined = erase_range(joined)
                before = start[name][0]
                if joined is not before and type_key(joined) != type_key(before):
                    start[name] = (joined, symbol)
                    changed = True
            if not changed:
                break
            self.env = outer.copy()
            self.env.values.update(start)
            self.reporter.muted += 1
            try:
                self.bind_value(stmt.var.name, var_type, stmt.var.span, "value", stmt.span)
                data_values.bind_loop_axis(self, stmt, var_type)
                self.block(stmt.body)
            finally:
                self.reporter.muted -= 1
        for name in entry:
            outer.values[name] = start[name]

    def if_stmt(self, stmt: ast.If) -> None:
        condition = self.expr(stmt.condition)
        allowed = (
            (isinstance(condition, HostType) and condition.kind == "bool")
            or (
                isinstance(condition, TensorType)
                and condition.domain.name == "Mask"
                and condition.axes == ()
            )
            or isinstance(condition, (PythonType, UnknownType, NamedType))
        )
        if not allowed:
            self.reporter.report(
                "E0802",
                f"an if needs a bool, a [] Mask or a Python value, not {format_type(condition)}",
                stmt.condition.span,
                "not true or false",
                help="reduce a mask with any or all, as in `if any(x > 0):`",
            )
        previous = self._block_span
        branches: list[Env] = []
        for body in (stmt.then_body, stmt.else_body):
            if body is None:
                continue
            outer = self.env
            self.env = outer.copy()
            self._block_span = stmt.span
            self._block_outers = [*self._block_outers, outer.values]
            try:
                self.block(body)
                branches.append(self.env)
            finally:
                self.env = outer
                self._block_span = previous
                self._block_outers = self._block_outers[:-1]
        original = dict(self.env.values)
        for name, (type_, symbol) in original.items():
            results = [branch.values.get(name, (type_, symbol))[0] for branch in branches]
            if len(branches) == 1:
                results.append(type_)
            joined = results[0]
            for other in results[1:]:
                joined = join_types(joined, other)
            if joined is not type_ and type_key(joined) != type_key(type_):
                self.env.values[name] = (joined, symbol)
        if len(branches) == 2:
            then_env, else_env = branches
            for name, (type_, symbol) in then_env.values.items():
                if name in self.env.values or name not in else_env.values:
                    continue
                other = else_env.values[name][0]
                same = type_ is other or format_type(type_) == format_type(other)
                self.env.values[name] = (type_ if same else UNKNOWN, symbol)
                if self.program.editor_facts:
                    self.facts.entries.append(
                        ScopeEntry(
                            name, symbol, type_, stmt.span.end, self._block_span or self.decl.span
                        )
                    )

    # ------------------------------------------------------------------ expressions

    def expr(self, node: ast.Expr) -> Type:
        kind = node.__class__
        # The most frequent nodes without `_expr`'s tests (the classes have no subclasses).
        if kind is ast.Name:
            type_ = self.name(node)
        elif kind is ast.Call:
            type_ = self.call(node, None)
        else:
            type_ = self._expr(node)
        self.facts.types[node.span] = type_
        return type_

    def _expr(self, node: ast.Expr) -> Type:
        # The node classes are disjoint and have no subclasses (`kind is C` is
        # `isinstance`); the most frequent are asked about first.
        kind = node.__class__
        if kind is ast.Name:
            return self.name(node)
        if kind is ast.Call:
            return self.call(node, None)
        if kind is ast.Binary:
            return self.binary(node)
        if kind is ast.Member:
            return self.member(node)
        if kind is ast.Pipe:
            return self.pipe(node)
        if kind is ast.IntLit:
            return HostType("int", Poly.const(node.value))
        if kind is ast.Index:
            return self.index(node)
        if kind is ast.FloatLit:
            return HostType("float", None, ranges.Interval.point(node.value))
        if kind is ast.InfLit:
            return FLOAT
        if kind is ast.Unary:
            return self.unary(node)
        if kind is ast.Cast:
            return self.cast(node)
        if kind is ast.StringLit:
            return StringType()
        if kind is ast.BoolLit:
            return BOOL
        if kind is ast.Lambda:
            self.reporter.report(
                "E3202",
                "a lambda can only be the function of a map or filter stage",
                node.span,
                "lambdas aren't values",
                help="write a fn for it, or use it in `|> map(...)`",
            )
            return UNKNOWN
        if kind is ast.Range:
            self.reporter.report(
                "E3203",
                "a range can only start an iterator chain or be what a for loop loops over",
                node.span,
                "not a value",
                help="write `a..b |> map(i => ...)` or `for i in a..b:`",
            )
            return UNKNOWN
        return UNKNOWN

    def name(self, node: ast.Name) -> Type:
        name = node.name
        if name in self._building and name not in self.env.values:
            self.reporter.report(
                "E2402",
                f"the chain reads `{name}`, the result it is building",
                node.span,
                "another element of the result",
                help="each element computed from the one before is a recurrence: use a for "
                "loop, or bind the old value under another name first",
            )
            return UNKNOWN
        found = self.env.values.get(name)
        if found is not None:
            symbol = found[1]
            if symbol.kind in LOCAL_KINDS:
                self.facts.references.append(Reference(node.span, symbol))
            else:
                self.refer(node.span, symbol)
            return found[0]
        axis = self.env.axes.get(name)
        if axis is not None:
            self.refer(node.span, axis[1])
            return HostType("int", axis[0])
        symbol = self.scope.symbols.get(name)
        if symbol is not None:
            self.refer(node.span, symbol)
            kind = symbol.kind
            if kind == "dim":
                return HostType("int", Poly.symbol(name))
            if kind in ("fn", "extern"):
                return FunctionType(name, kind)
            if kind == "python_module":
                return PythonType(name)
            if kind == "model":
                self.reporter.report(
                    "E0303",
                    f"`{name}` is a model: as a value, its name only makes one, as in "
                    f"`{name}.init(seed=0)`",
                    node.span,
                    "used as a value",
                )
                return UNKNOWN
            if kind in ("logs", "import"):
                return NamedType(name)
            self.reporter.report(
                "E0303",
                f"`{name}` is {KIND_WORDS.get(kind, kind)}, not a value",
                node.span,
                "used as a value",
            )
            return UNKNOWN
        if name in self.scope.broken_names:
            return UNKNOWN
        if name == "causal":
            return FunctionType(name, "builtin")
        if name in builtin_rules.KNOWN:
            self.refer(node.span, builtin_rules.symbol(name))
            mode = modes.name_value(self, node)
            return mode if mode is not None else FunctionType(name, "builtin")
        prelude = self.program.prelude.signatures.get(name)
        if prelude is not None:
            self.refer(node.span, self.program.prelude.symbols[name])
            return FunctionType(name, "prelude")
        if name == "none":
            return UNKNOWN
        if name in BUILTIN_DOMAINS:
            self.reporter.report(
                "E0303", f"`{name}` is a domain, not a value", node.span, "used as a value"
            )
            return UNKNOWN
        if name in PYTHON_NAMES.get():
            return PythonType(name)
        # The file's names are many: they are looked through by length (`NameIndex`).
        candidates = (
            list(self.env.values)
            + list(self.env.axes)
            + list(builtin_rules.KNOWN)
            + list(self.program.prelude.signatures)
        )
        index = self.program.name_index()
        self.reporter.report(
            "E0301",
            f"unknown name `{name}`",
            node.span,
            "not found",
            help=suggestion(name, candidates, index),
            fixes=fixes.spelling(name, candidates, node.span, index),
        )
        return UNKNOWN

    def unary(self, node: ast.Unary) -> Type:
        operand = self.expr(node.operand)
        special = gradients.negate(self, node.op, operand, node.span)
        if special is not None:
            return special
        if node.op == "!":
            if isinstance(operand, (TensorType, HostType)) and not is_mask(operand):
                self.reporter.report(
                    "E0501",
                    f"`!` takes a mask or a bool, not {format_type(operand)}",
                    node.span,
                    "not a mask",
                    help="compare first, as in `!(x > 0)`; to negate numbers write `-x`",
                )
                return UNKNOWN
            if isinstance(operand, TensorType):
                return TensorType(operand.axes, MASK, "bool")
            return BOOL if isinstance(operand, HostType) else operand
        if is_mask(operand):
            self.reporter.report(
                "E0505",
                "arithmetic on a mask",
                node.span,
                "`-` on a mask",
                help=domains.mask_arithmetic_help("-"),
            )
            return UNKNOWN
        if isinstance(operand, TensorType):
            domain = domains.negated(operand.domain, interval_of(operand))
            return TensorType(operand.axes, domain, operand.dtype)
        if isinstance(operand, HostType):
            interval = interval_of(operand)
            return HostType(
                operand.kind,
                -operand.size if operand.size is not None else None,
                ranges.neg(interval) if interval is not None else None,
            )
        return operand

    def _check_divisor(self, divisor: Type, span: Span, node: ast.Expr | None = None) -> None:
        """The divisor of `/` may not be 0 (E0506), and had better not reach it (W0501)."""
        interval = interval_of(divisor)
        if interval is None or interval == ranges.REAL:
            return
        if interval.lo == interval.hi == 0:
            self.reporter.report(
                "E0506", "division by a value that is always 0", span, "divisor is 0"
            )
        elif interval.holds(0.0):
            self.reporter.report(
                "W0501",
                f"the divisor can be exactly 0: its values are in {interval}",
                span,
                "may divide by 0",
                help="add a small positive number, or clamp the divisor away from 0",
                fixes=[] if node is None else fixes.plus_epsilon(node.span),
            )

    def binary(self, node: ast.Binary) -> Type:
        left = self.expr(node.left)
        right = self.expr(node.right)
        result = self.combine(node.op, left, right, node.span, node.op_span, node.right)
        if node.op != "@":
            self.align(node.span, [left, right], result)
        return result

    def combine(
        self,
        op: str,
        left: Type,
        right: Type,
        span: Span,
        op_span: Span,
        divisor: ast.Expr | None = None,
    ) -> Type:
        """The type of `left op right`: broadcasting, matmul, comparisons, host arithmetic.
        `divisor` is the right operand as written (a `/`'s divisor, an `@`'s weight)."""
        special = gradients.combine(self, op, left, right, span, op_span)
        if special is not None:
            return special
        # Tensors and host values, nearly every operand, pass each test below: the class
        # (types have no subclasses) tells so at once.
        left_kind = type(left)
        right_kind = type(right)
        if not (
            (left_kind is TensorType or left_kind is HostType)
            and (right_kind is TensorType or right_kind is HostType)
        ):
            for side in (left, right):
                if isinstance(side, StringType):
                    self.reporter.report(
                        "E0412", f"a string can't be an operand of `{op}`", span, "string operand"
                    )
                    return UNKNOWN
            if isinstance(left, UnknownType) or isinstance(right, UnknownType):
                return UNKNOWN
            if isinstance(left, PythonType) or isinstance(right, PythonType):
                return PythonType()
            if isinstance(left, SeveralType) or isinstance(right, SeveralType):
                self.reporter.report(
                    "E0412",
                    "several results can't be an operand: bind them to names first",
                    span,
                    "several results",
                )
                return UNKNOWN
            for side in (left, right):
                if isinstance(side, FunctionType):
                    self.reporter.report(
                        "E0303",
                        f"`{side.name}` is a function, not a value: call it",
                        span,
                        "a function as an operand",
                    )
                    return UNKNOWN
            if not isinstance(left, (TensorType, HostType)) or not isinstance(
                right, (TensorType, HostType)
            ):
                return UNKNOWN
        if op in ARITHMETIC or op == "@":
            for side in (left, right):
                if is_mask(side):
                    self.reporter.report(
                        "E0505",
                        f"arithmetic on a {'bool' if isinstance(side, HostType) else 'Mask'}",
                        op_span,
                        f"`{op}` on a mask",
                        help=domains.mask_arithmetic_help(op),
                    )
                    return UNKNOWN
        if op in ("and", "or"):
            for side in (left, right):
                if not is_mask(side):
                    self.reporter.report(
                        "E0501",
                        f"`{op}` takes masks or bools, not {format_type(side)}",
                        op_span,
                        "not a mask",
                        help="compare first, as in `x > 0`",
                    )
                    return UNKNOWN
        if op == "/":
            self._check_divisor(right, op_span, divisor)
        if isinstance(left, HostType) and isinstance(right, HostType):
            try:
                return host_result(op, left, right)
            except SizeOverflow:
                self.reporter.report(
                    "E0414",
                    "this integer is too large: it doesn't fit in 128 bits",
                    span,
                    "overflows 128 bits",
                    help="sizes and integers are checked exactly up to 128 bits",
                )
                return UNKNOWN
        if op == "@":
            return self.matmul(left, right, span, divisor)
        left_axes = left.axes if isinstance(left, TensorType) else ()
        right_axes = right.axes if isinstance(right, TensorType) else ()
        if left_axes is None or right_axes is None:
            return UNKNOWN
        try:
            axes = broadcast(left_axes, right_axes, self.scope.dim_values)
        except ShapeError as error:
            self.reporter.report(
                error.code,
                error.message,
                op_span,
                f"{format_type(left)} {op} {format_type(right)}",
                notes=error.notes,
                help="if the axes really are the same, give them the same name with rearrange or as"
                if error.code == "E0404"
                else None,
            )
            return UNKNOWN
        if op in COMPARISONS or op in ("and", "or"):
            return TensorType(axes, MASK, "bool")
        dtype = tensor_dtype(left, right)
        if op == "/" and dtype is not None and dtype_kind(dtype) != "float":
            dtype = None
        return TensorType(axes, domains.arithmetic(op, left, right), dtype)
        return TensorType(axes, REAL, dtype)

    def matmul(
        self, left: Type, right: Type, span: Span, right_expr: ast.Expr | None = None
    ) -> Type:
        if not isinstance(left, TensorType) or not isinstance(right, TensorType):
            if isinstance(left, HostType) or isinstance(right, HostType):
                self.reporter.report(
                    "E0403", "`@` needs tensors with at least one axis", span, "a number"
                )
            return UNKNOWN
        if left.axes is None or right.axes is None:
            return UNKNOWN
        try:
            axes = matmul(left.axes, right.axes, self.scope.dim_values)
        except ShapeError as error:
            help_, fixes = None, []
            if error.code == "E0401":
                help_, fixes = transposed_weight(self, left, right, right_expr)
            self.reporter.report(
                error.code,
                error.message,
                span,
                f"{format_type(left)} @ {format_type(right)}",
                notes=error.notes,
                help=help_,
                fixes=fixes,
            )
            return UNKNOWN
        if left.resolved_dtype != right.resolved_dtype:
            self.reporter.report(
                "E0502",
                f"`@` needs one dtype, but these are {left.resolved_dtype} and "
                f"{right.resolved_dtype}",
                span,
                "different dtypes",
                help=f"convert one of them first, as in `to {left.resolved_dtype}`",
            )
            return UNKNOWN
        self.align_matmul(span, left.axes, right.axes, axes)
        return TensorType(axes, REAL, left.dtype)

    def align_matmul(self, span: Span, left, right, result) -> None:
        """Record, for the compiler, how the batch axes of `@` line up by name: the result
        position of each operand's axis, its last two after the batch axes."""
        if not self.program.editor_facts or len(left) < 2 or len(right) < 2:
            return
        batch = result[:-2]
        plans = []
        for operand in (left, right):
            plan = positions_in(operand[:-2], batch)
            plans.append(None if plan is None else (*plan, len(batch), len(batch) + 1))
        if any(plan is not None for plan in plans):
            self.facts.alignments[span] = tuple(plans)

    def cast(self, node: ast.Cast) -> Type:
        operand = self.expr(node.operand)
        target = self.resolver.resolve(node.type, self.type_context("closed"))
        if isinstance(target, UnknownType):
            return UNKNOWN
        special = model_values.cast(self, node, operand, target)
        if special is None:
            special = data_values.cast(self, node, operand, target)
        if special is not None:
            return special
        if node.kind == "to":
            if isinstance(target, HostType):
                self.reporter.report(
                    "E0504",
                    f"no conversion makes a host {target.kind} of a tensor",
                    node.type.span,
                    "not a conversion",
                    help="read a [] tensor on the host with `as` on a Python value, or keep "
                    "it a tensor",
                )
                return UNKNOWN
            if isinstance(operand, TensorType) and isinstance(target, TensorType):
                problem = domains.conversion_problem(operand, target, bool(node.type.words))
                if problem is not None:
                    self.reporter.report(
                        "E0504",
                        problem,
                        node.type.span,
                        "no such conversion",
                        notes=domains.to_table_notes(),
                    )
                    return UNKNOWN
                if not self._to_keeps_shape(operand, target, node.type.span):
                    return UNKNOWN
                axes = operand.axes if target.axes is None else target.axes
                domain = (
                    target.domain if node.type.words else dtype_converted(operand, target.dtype)
                )
                dtype = domains.converted_dtype(operand, target, bool(node.type.words))
                return TensorType(axes, domain, dtype)
            if isinstance(operand, UnknownType) and not _has_shape(target):
                return UNKNOWN
            return operand if not isinstance(target, TensorType) else target
        if isinstance(operand, UnknownType) and not _has_shape(target):
            return UNKNOWN
        if isinstance(operand, (PythonType, UnknownType)):
            return target
        if isinstance(operand, TensorType) and isinstance(target, HostType):
            self.reporter.report(
                "E0805",
                f"`as {target.kind}` can't make a host scalar of a tensor",
                node.type.span,
                "a tensor",
                help="a tensor stays on the device; keep it a [] tensor",
            )
            return UNKNOWN
        if isinstance(operand, TensorType) and isinstance(target, TensorType):
            problem = impossible_assertion(
                operand, target, bool(node.type.words), self.scope.dim_values
            )
            if problem is not None:
                self.reporter.report(
                    "E0410",
                    f"`as` can never succeed: {problem}",
                    node.type.span,
                    "contradicts what is known",
                    notes=[f"the value is {format_type(operand)}"],
                    help="convert with `to` instead, if a conversion is what you mean",
                )
                return target
            moved = domains.axis_moved(operand, target.with_axes(target.axes or operand.axes))
            if moved is not None and node.type.words:
                self.reporter.report(
                    "E0501", f"`as` asserts {moved.message}", node.type.span, format_type(operand)
                )
                return target
            domain = asserted_domain(operand, target, bool(node.type.words))
            if target.axes is None:
                return TensorType(operand.axes, domain, target.dtype or operand.dtype)
            if operand.axes is None:
                return target
            if len(operand.axes) != len(target.axes):
                self.reporter.report(
                    "E0410",
                    f"`as` can never succeed: {format_type(operand)} has {len(operand.axes)} "
                    f"axes, not {len(target.axes)}",
                    node.type.span,
                    "different number of axes",
                )
                return target
            for index, (have, want) in enumerate(zip(operand.axes, target.axes, strict=True)):
                have_value = have.size.substitute(self.scope.dim_values).value
                want_value = want.size.substitute(self.scope.dim_values).value
                if have_value is not None and want_value is not None and have_value != want_value:
                    self.reporter.report(
                        "E0410",
                        f"`as` can never succeed: axis {index + 1} is {have_value}, not "
                        f"{want_value}",
                        node.type.span,
                        "size known to differ",
                        notes=[f"the value is {format_type(operand)}"],
                    )
                    return target
            dtype = target.dtype if target.dtype is not None else operand.dtype
            return TensorType(target.axes, domain, dtype)
        return target

    def member(self, node: ast.Member) -> Type:
        qualified = qualified_uses.qualified_member(self, node)
        if qualified is not None:
            return self.name(qualified) if isinstance(qualified, ast.Name) else UNKNOWN
        if model_values.names_model(self, node):
            return model_values.model_name_member(self, node)
        target = self.expr(node.target)
        if isinstance(target, PythonType):
            return PythonType()
        if isinstance(target, LOGGING_TYPES):
            return logs_values.member(self, node, target)
        special = data_values.field(self, target, node)
        if special is None:
            special = model_values.member(self, node, target)
        if special is None:
            fieldless.report_no_fields(self, node, target)
        return special if special is not None else UNKNOWN

    def index(self, node: ast.Index) -> Type:
        if (
            isinstance(node.target, ast.Name)
            and node.target.name == "causal"
            and (node.target.name not in self.env.values)
        ):
            return builtin_rules.causal(self, node)
        target = self.expr(node.target)
        return builtin_rules.index(self, node, target)

    # ------------------------------------------------------------------ calls and pipes

    def pipe(self, node: ast.Pipe) -> Type:
        first = node.stages[0] if node.stages else None
        starts_chain = first is not None and chains.stage_name(first) is not None
        if isinstance(node.input, ast.Range) and starts_chain:
            current: object = UNKNOWN
        else:
            current = self.expr(node.input)
        previous_input: ast.Expr = node.input
        from_chain = False
        for number, stage in enumerate(node.stages, start=1):
            self.reporter.context_notes.append(_stage_note(number, current))
            try:
                if chains.stage_name(stage) is not None:
                    if not isinstance(current, chains.Iteration):
                        current = chains.start(self, current, previous_input, stage, from_chain)
                    current = chains.apply(self, current, stage) if current is not None else UNKNOWN
                    from_chain = chains.stage_name(stage) in ("map", "filter")
                    self.facts.types[stage.span] = chains.as_several(current)
                    continue
                from_chain = False
                if isinstance(current, chains.Iteration):
                    current = chains.finish(self, current, stage.span)
                if isinstance(stage, ast.ToStage):
                    cast = ast.Cast("to", node.input, stage.type, stage.span)
                    current = self._to_stage(current, cast)
                elif isinstance(stage, ast.Call):
                    current = self.call(stage, Arg(None, current, previous_input.span))
                elif isinstance(stage, ast.ErrorExpr):
                    current = UNKNOWN
                else:
                    call = ast.Call(stage, [], stage.span)
                    current = self.call(call, Arg(None, current, previous_input.span))
            finally:
                self.reporter.context_notes.pop()
            self.facts.types[stage.span] = current
            previous_input = stage
        if isinstance(current, chains.Iteration):
            return chains.finish(self, current, node.span)
        return current

    # ------------------------------------------------------------------ chains

    _stage_depth = 0
    _building: frozenset = frozenset()

    def lambda_body(self, function: ast.Lambda, parts: tuple[Type, ...]) -> Type:
        """Check a map or filter lambda's body with its parameters bound to the parts."""
        outer = self.env
        self.env = outer.copy()
        self._stage_depth += 1
        try:
            for param, part in zip(function.params, parts, strict=True):
                if param.name == "_":
                    continue
                if param.name in self.env.axes or param.name in self.scope.dims:
                    self.reporter.report(
                        "E0303",
                        f"a lambda's parameter can't take the name `{param.name}` of an axis "
                        "or a dim",
                        param.span,
                        "name clash",
                    )
                    continue
                self.bind_value(param.name, part, param.span, "value", function.span)
            result = self.expr(function.body)
            self.facts.stage_kinds[function.span] = (
                "elementwise" if elementwise_body(function.body) else "vmap"
            )
            return result
        finally:
            self.env = outer
            self._stage_depth -= 1

    def note_stage_function(self, function: ast.Expr, element: Type) -> None:
        """A stage's function given by name: record how it runs and what it is applied to."""
        self.facts.stage_elements[function.span] = element
        callee = function.callee if isinstance(function, ast.Call) else function
        elementwise = isinstance(function, ast.ToStage) or (
            isinstance(callee, ast.Name)
            and (
                callee.name in builtin_rules.ELEMENTWISE
                or (
                    (signature := self.program.lookup_function(callee.name)) is not None
                    and signature.is_elementwise
                )
            )
        )
        self.facts.stage_kinds[function.span] = "elementwise" if elementwise else "vmap"

    def to_stage(self, current: Type, cast: ast.Cast) -> Type:
        return self._to_stage(current, cast)

    def _check_stage_call(self, node: ast.Call, name: str | None) -> bool:
        """Inside a stage's function, calls may only compute a value (E2403)."""
        if not self._stage_depth:
            return True
        problem = None
        if name in chains.EFFECTFUL:
            problem = f"`{name}` does more than compute a value"
        elif any(arg.mut for arg in node.args):
            problem = "a mut argument changes something"
        elif isinstance(node.callee, ast.Member) and python_call(self, node.callee):
            problem = "a call into Python does more than compute a value"
        elif (logged := logs_values.effect(self.scope, None, node, self.env.values)) is not None:
            problem = f"this {logged}"
        secondary = []
        if problem is None and name is not None:
            found = self.program.effect_of(name)
            if found is not None:
                what, span = found
                problem = f"`{name}` {what}"
                secondary = [Label(span, "here")]
        if problem is None:
            return True
        self.reporter.report(
            "E2403",
            f"an iterator stage's function may only compute a value: {problem}",
            node.span,
            "not independent",
            # The effect's span counts from the file's start (`effect_of`), this body's
            # diagnostics from its item's: one in another file's text has no place here.
            secondary=[
                Label(
                    self.reporter.local(
                        Span(label.span.start - self.base, label.span.end - self.base)
                    ),
                    label.message,
                )
                for label in secondary
                if self.source_text is self.program.source_text
            ],
            help="do this outside the chain, or use a for loop",
        )
        return False

    def _to_stage(self, current: Type, cast: ast.Cast) -> Type:
        target = self.resolver.resolve(cast.type, self.type_context("closed"))
        if isinstance(current, TensorType) and isinstance(target, TensorType):
            if not self._to_keeps_shape(current, target, cast.type.span):
                return UNKNOWN
            axes = current.axes if target.axes is None else target.axes
            return TensorType(
                axes,
                target.domain if cast.type.words else current.domain,
                domains.converted_dtype(current, target, bool(cast.type.words)),
            )
        if isinstance(current, UnknownType) and not _has_shape(target):
            return UNKNOWN
        return current if isinstance(target, UnknownType) else target


def _has_shape(type_: Type) -> bool:
    """Whether a type says all there is to know of a value's shape (a host scalar does)."""
    return not isinstance(type_, TensorType) or type_.axes is not None
