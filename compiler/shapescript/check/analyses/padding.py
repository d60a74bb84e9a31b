"""Fixed shapes: which varying axes can be padded exactly, and which steps can be recorded.

Runs after every body is checked, on the types the bodies recorded. A padded axis is
followed by its size symbol: through each operation of a function, and into the
functions it is passed to, where it has the parameter's axis name. The first operation
across it that has no masked version keeps it from being padded (H2001 for a loop over
batches). A step (a function that changes a `mut` model or optimizer state and does
device work itself) is recordable unless it, or a function it calls, does something on
the host (H3101).
"""

from __future__ import annotations

import bisect
import functools
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from shapescript.check.algebra.stacked import Walk, run_stacked
from shapescript.check.algebra.types import (
    BatchesType,
    BatchType,
    DatasetType,
    HostType,
    ModelType,
    OptimizerType,
    PythonType,
    SinkType,
    TensorType,
    Type,
    format_type,
)
from shapescript.check.analyses import padding_reuse as reuse
from shapescript.check.declarations.signatures import Signature
from shapescript.check.declarations.symbols import ItemFacts
from shapescript.diagnostics.diagnostic import Diagnostic, Label
from shapescript.records import field, record
from shapescript.syntax import ast
from shapescript.syntax.source import Span

#: Operations along an axis that have no masked version: the axis can't be padded.
NO_MASKED_VERSION = frozenset(
    {"sort", "argsort", "topk", "argmax", "argmin", "gather", "scatter", "cat"}
)
#: Reductions that, without `over=`, reduce every axis, a padded one too.
REDUCE_ALL = frozenset({"sum", "mean", "var", "std", "max", "min", "logsumexp", "norm", "prod"})
#: Operations across a padded axis that are rewritten to a masked version.
MASKED = frozenset(
    {
        "sum",
        "mean",
        "softmax",
        "log_softmax",
        "cross_entropy",
        "norm",
        "batch_norm",
        "matmul",
        "einsum",
        "max",
        "min",
        "logsumexp",
        "var",
        "std",
        "prod",
    }
)
#: Pattern operations: each is followed through its pattern (`_pattern_effect`).
PATTERNS = frozenset({"rearrange", "repeat", "split", "reduce", "einsum"})
#: The reductions `reduce` has masked versions of.
MASKED_REDUCE = frozenset({"sum", "mean", "max", "min", "prod"})
#: Built-ins whose call runs on the host, so a step calling them can't be recorded.
HOST_CALLS = {"print": "prints", "save": "saves", "load": "loads"}
#: What a step calls that makes it a step (besides assigning a field).
DEVICE_WORK = frozenset({"value_and_grad", "update"})


@record(frozen=True)
class Blocker:
    """What keeps an axis from being padded, or a step from being recorded.

    `what` names the operation (`` `sort` over `b` ``), `why` says why it matters
    (`has no masked version`), `span` is where it is (absolute), in function `function`.
    """

    what: str
    why: str
    span: Span
    function: str

    @property
    def text(self) -> str:
        return f"{self.what} {self.why}"


@record
class PaddingFacts:
    """What the padding and recording analysis found, for the compiler and the editor.

    `loops`: each loop over batches, by the absolute span of its `batches(n)` call, with
    what keeps its last batch from being padded (None: padded). `axes`: for each function,
    each generic axis of its parameters, with what keeps `shapescript.padded` from padding
    it (None: it can). `steps`: each step by name, with what keeps it from being recorded
    (None: recorded).
    """

    loops: dict[Span, Blocker | None] = field(default_factory=dict)
    axes: dict[str, dict[str, Blocker | None]] = field(default_factory=dict)
    steps: dict[str, Blocker | None] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Each operation across a padded axis that has a masked version, by its absolute
    #: span, with the axis's size symbol in its function (`b`, or `?b` in a loop).
    masked: dict[Span, str] = field(default_factory=dict)
    #: Each call that passes masks on, by its absolute span: the callee's axis symbol,
    #: and the caller's whose mask it gets.
    passes: dict[Span, dict[str, str]] = field(default_factory=dict)
    #: For each function, the axes whose masks it uses, itself or through its calls.
    needs: dict[str, frozenset[str]] = field(default_factory=dict)
    #: Each padded loop over batches (by the span of its `batches(n)` call), with its
    #: batch axis's symbol, when the loop's body uses the mask.
    loop_symbols: dict[Span, str] = field(default_factory=dict)
    #: Each pattern operation or `batch_norm` across a padded axis, by its absolute span:
    #: which operand (in the order written) and which of its axes is masked, with the
    #: axis's size symbol. An einsum contracting the axis masks one operand per symbol.
    operands: dict[Span, list[tuple[int, int, str]]] = field(default_factory=dict)
    #: Each boolean selection `x[mask]`, by its absolute span, with what keeps it from
    #: being kept at `x`'s size (None: kept, its mask in `_ss_pads` by `selected`'s
    #: symbol).
    selections: dict[Span, Blocker | None] = field(default_factory=dict)
    selected: dict[Span, str] = field(default_factory=dict)
    #: Set when only the diagnostics were worked out: what works out every fact from these
    #: (see `complete_facts`). It is given them rather than holding them, which would be a
    #: reference cycle that keeps the file's items after the check is dropped.
    complete_later: Callable[[PaddingFacts], PaddingFacts] | None = field(
        default=None, repr=False, compare=False
    )
    #: The walks of the file's trees made for these facts, for the next check to reuse.
    walks: _Walks | None = field(default=None, repr=False, compare=False)
    #: What a check for diagnostics found in each function, for the next check to reuse.
    found: object = field(default=None, repr=False, compare=False)

    def padded_axes(self, function: str) -> list[str]:
        """The generic axes of `function` that `shapescript.padded` can pad."""
        return [axis for axis, blocker in self.axes.get(function, {}).items() if blocker is None]


def check_padding(
    items: list[ItemFacts],
    dims: Collection[str] = (),
    imports: object = None,
    several: bool = False,
    complete: bool = True,
    previous: PaddingFacts | None = None,
    functions: tuple[list[ItemFacts], list[ItemFacts]] | None = None,
    function_indexes: Sequence[int] | None = None,
    replaced: Collection[int] | None = None,
) -> PaddingFacts:
    """Padding and recording facts for a checked file's functions, with H2001 and H3101.

    `dims` are the file's dims, whose axes have fixed sizes and are never padded;
    `imports` is its `ImportTable`, through which calls into other files are followed by
    those files' own facts; `several`: whether it runs on several devices. Without
    `complete`, only what H2001 and H3101 need is worked out: the same diagnostics, and
    `complete_later` to work out the rest when it is read. `previous`, the facts of an
    earlier version of the file, lends its walks of the trees that haven't changed.
    `functions`, when the caller has them: the items of `items` that declare functions
    and those that declare extern fns, each in order (the only ones looked at), with the
    indexes in `items` of the functions (`function_indexes`) and of the items that aren't
    the previous check's own (`replaced`), when every other one is."""
    fixed = frozenset(dims)
    replaced_at = None
    if functions is not None and function_indexes is not None and replaced is not None:
        replaced_at = _positions(function_indexes, replaced)
    facts = _analysed(items, fixed, imports, several, complete, previous, functions, replaced_at)
    if not complete:
        facts.complete_later = functools.partial(_complete, items, fixed, imports, several)
    return facts


def _positions(indexes: Sequence[int], among: Collection[int]) -> list[int]:
    """The positions in `indexes` (in order) of those that are `among` them."""
    found = []
    for index in among:
        at = bisect.bisect_left(indexes, index)
        if at < len(indexes) and indexes[at] == index:
            found.append(at)
    return found


def _complete(
    items: list, fixed: frozenset[str], imports: Any, several: bool, found: PaddingFacts
) -> PaddingFacts:
    """Every fact, reusing what the check for diagnostics found (`found`), whose findings
    the complete facts keep for the next check (they are of the same items)."""
    facts = _analysed(items, fixed, imports, several, True, found)
    facts.found = found.found
    return facts


def complete_facts(checked: Any) -> PaddingFacts | None:
    """A checked file's padding facts, worked out in full first if its check left them
    for later (a check for diagnostics only)."""
    facts = checked.padding
    if isinstance(facts, PaddingFacts) and facts.complete_later is not None:
        facts = facts.complete_later(facts)
        checked.padding = facts
    return facts if isinstance(facts, PaddingFacts) else None


@record
class _Walks:
    """The walks of a file's trees (`_expressions`, `_calls`, `_loops`, `_names`) and the
    shapes of its types, by the id of each node or type, kept with it so that an id is
    never taken for another's. `fresh` is how many entries the tables had when none was
    reused: entries of trees and types an edit replaced are carried along until there
    are twice as many, then dropped."""

    walked: dict[int, tuple[object, list[object]]]
    calls: dict[int, tuple[object, list[_Call]]]
    loops: dict[int, tuple[object, list[ast.For]]]
    names: dict[int, tuple[object, frozenset[str]]]
    shapes: dict[int, tuple[object, tuple[frozenset[str], tuple[str | None, ...]]]]
    fresh: int

    def size(self) -> int:
        """How many entries the tables hold."""
        return (
            len(self.walked)
            + len(self.calls)
            + len(self.loops)
            + len(self.names)
            + len(self.shapes)
        )


#: Held through an analysis: its tables are module-wide, and the language server runs
#: analyses of a document on several threads (diagnostics, and the facts a request needs).
_ANALYSING = threading.RLock()


def _analysed(
    items: list[ItemFacts],
    dims: frozenset[str],
    imports: object,
    several: bool,
    complete: bool,
    previous: PaddingFacts | None,
    functions: tuple[list[ItemFacts], list[ItemFacts]] | None = None,
    replaced_at: list[int] | None = None,
) -> PaddingFacts:
    with _ANALYSING:
        lent = previous.walks if previous is not None else None
        # Each keystroke's new body makes new nodes and types: the tables are dropped
        # once they have doubled, or they would keep every version's.
        carried = lent is not None and lent.size() <= 2 * lent.fresh
        # The previous facts' walks become the tables themselves, not a copy: an entry
        # holds its node, so it is right in any version that has the node, and the
        # tables are only read and filled under the lock.
        _set_tables(lent if carried else None)
        try:
            names, changed = None, None
            if not complete:
                if functions is None:
                    functions = _kinds(items)
                memo = previous.found if previous is not None else None
                names, changed = reuse.names_of(functions, memo, replaced_at)
            analysis = _Analysis(items, dims, imports, functions, names)
            analysis.several = several
            analysis.changed = changed
            facts = analysis.run() if complete else analysis.run_diagnostics(previous)
            walks = _Walks(_WALKED, _CALLS, _LOOPS, _NAMES, _SHAPES, 0)
            walks.fresh = lent.fresh if carried and lent is not None else walks.size()
            facts.walks = walks
            return facts
        finally:
            _set_tables(None)


def _set_tables(walks: _Walks | None) -> None:
    """Make the module-wide tables an analysis fills those of `walks`, or empty ones
    (held under `_ANALYSING`)."""
    global _WALKED, _CALLS, _LOOPS, _NAMES, _SHAPES
    if walks is None:
        _WALKED, _CALLS, _LOOPS, _NAMES, _SHAPES = {}, {}, {}, {}, {}
    else:
        _WALKED, _CALLS, _LOOPS = walks.walked, walks.calls, walks.loops
        _NAMES, _SHAPES = walks.names, walks.shapes
    _SHAPE_VALUES.clear()


def _kinds(items: list[ItemFacts]) -> tuple[list[ItemFacts], list[ItemFacts]]:
    """The items that declare functions, and those that declare extern fns, in order."""
    return (
        [item for item in items if type(item.item) is ast.FnDecl],
        [item for item in items if type(item.item) is ast.ExternFnDecl],
    )


#: The types with axes a padded axis can be among.
_SHAPED = (TensorType, BatchType)


def _has(type_: Type | None, symbol: str) -> bool:
    known = _SHAPES.get(id(type_))
    if known is not None and known[0] is type_:
        return symbol in known[1][0]
    return symbol in _shape_of(type_)[0]


def _shape_of(type_: Type | None) -> tuple[frozenset[str], tuple[str | None, ...]]:
    """A tensor or batch type's size symbols, and the one symbol each axis's size is (or
    None), worked out once per type object."""
    if not isinstance(type_, _SHAPED) or not type_.axes:
        return _NO_SHAPE
    known = _SHAPES.get(id(type_))
    if known is not None and known[0] is type_:
        return known[1]
    symbols: set[str] = set()
    singles: list[str | None] = []
    for axis in type_.axes:
        terms = axis.size.terms
        for term in terms:
            symbols.update(term)
        single = None
        if len(terms) == 1:
            ((monomial, coefficient),) = terms.items()
            if coefficient == 1 and len(monomial) == 1:
                single = monomial[0]
        singles.append(single)
    found = (frozenset(symbols), tuple(singles))
    # Most types of a file share a few shapes: one value per shape, not per type.
    found = _SHAPE_VALUES.setdefault(found, found)
    _SHAPES[id(type_)] = (type_, found)
    return found


_NO_NEEDS: frozenset[str] = frozenset()
_NO_SHAPE: tuple[frozenset[str], tuple[str | None, ...]] = (frozenset(), ())


def _size_has(type_: Type | None, symbol: str) -> bool:
    """Whether a host size (`n` as a value) is, or involves, the size `symbol`."""
    return (
        isinstance(type_, HostType)
        and type_.size is not None
        and any(symbol in term for term in type_.size.terms)
    )


def _axis_symbol(type_: Type | None, position: int) -> str | None:
    """The one symbol an axis's size is, at `position` of a type's axes."""
    known = _SHAPES.get(id(type_))
    singles = known[1][1] if known is not None and known[0] is type_ else _shape_of(type_)[1]
    return singles[position] if 0 <= position < len(singles) else None


def _inner_axes(arg_type: Type | None, param_type: Type | None, symbol: str) -> list[str]:
    """The parameter's axis names where an argument has the axis `symbol`."""
    outer = _shape_of(arg_type)[1]
    if symbol not in outer:
        return []
    inner = _shape_of(param_type)[1]
    return [
        inner[position]  # type: ignore[misc]
        for position, each in enumerate(outer)
        if each == symbol and position < len(inner) and inner[position] is not None
    ]


#: Node kinds, as tuples (a `|` union would be made anew at each test).
_NAME_MEMBER = (ast.Name, ast.Member)
_SLICE_SPACEDINDEX = (ast.Slice, ast.SpacedIndex)


#: Each walked statement list or expression, by id, with the node kept so an id is never
#: taken for another node's; emptied at the start of each analysis.
_WALKED: dict[int, tuple[object, list[object]]] = {}
_CALLS: dict[int, tuple[object, list[_Call]]] = {}
_LOOPS: dict[int, tuple[object, list[ast.For]]] = {}
_NAMES: dict[int, tuple[object, frozenset[str]]] = {}
_SHAPES: dict[int, tuple[object, tuple[frozenset[str], tuple[str | None, ...]]]] = {}
#: Each shape `_shape_of` found in this analysis, kept once (the key is the value).
_SHAPE_VALUES: dict[
    tuple[frozenset[str], tuple[str | None, ...]], tuple[frozenset[str], tuple[str | None, ...]]
] = {}


def _expressions(node: object) -> list[object]:
    """Every expression in a statement list or expression, outer ones first."""
    known = _WALKED.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    found: list[object] = []
    add = found.append
    stack: list[object] = [node]
    pop = stack.pop
    push = stack.append
    pushers = _PUSH_CHILDREN
    while stack:
        each = pop()
        if each is None:
            continue
        kind = type(each)
        if kind is list:
            stack.extend(reversed(each))  # type: ignore[call-overload]
            continue
        add(each)
        pusher = pushers.get(kind)
        if pusher is not None:
            pusher(each, push)
    _WALKED[id(node)] = (node, found)
    return found


def _names(node: object) -> frozenset[str]:
    """Every name a statement list or expression uses."""
    known = _NAMES.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    found = frozenset(expr.name for expr in _expressions(node) if isinstance(expr, ast.Name))
    _NAMES[id(node)] = (node, found)
    return found


def _loops(node: object) -> list[ast.For]:
    """The `for` loops in a statement list, outer ones first."""
    known = _LOOPS.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    # Only statements hold loops: the walk never goes into expressions.
    found: list[ast.For] = []
    stack: list[object] = [node]
    while stack:
        each = stack.pop()
        if isinstance(each, list):
            stack.extend(reversed(each))
        elif isinstance(each, ast.For):
            found.append(each)
            stack.append(each.body)
        elif isinstance(each, ast.If):
            stack.append(each.else_body or [])
            stack.append(each.then_body)
    _LOOPS[id(node)] = (node, found)
    return found


# Each pusher puts the parts of one node that `_expressions` walks into on its stack,
# last part first, so that they come off it in order. The node classes have no
# subclasses, so a node's class finds its pusher.


def _push_operand(node: Any, push: Callable[[object], None]) -> None:
    push(node.operand)


def _push_binary(node: Any, push: Callable[[object], None]) -> None:
    push(node.right)
    push(node.left)


def _push_call(node: Any, push: Callable[[object], None]) -> None:
    for arg in reversed(node.args):
        value = arg.value
        kind = type(value)
        if kind is not ast.Pattern and kind is not ast.ToStage:
            push(value)
    push(node.callee)


def _push_index(node: Any, push: Callable[[object], None]) -> None:
    for item in reversed(node.items):
        kind = type(item)
        if kind is ast.Slice:
            push(item.step)
            push(item.hi)
            push(item.lo)
        elif kind is ast.SpacedIndex:
            push(item.items)
        else:
            push(item)
    push(node.target)


def _push_target(node: Any, push: Callable[[object], None]) -> None:
    push(node.target)


def _push_pipe(node: Any, push: Callable[[object], None]) -> None:
    for stage in reversed(node.stages):
        if type(stage) is not ast.ToStage:
            push(stage)
    push(node.input)


def _push_range(node: Any, push: Callable[[object], None]) -> None:
    push(node.hi)
    push(node.lo)


def _push_body(node: Any, push: Callable[[object], None]) -> None:
    push(node.body)


def _push_value(node: Any, push: Callable[[object], None]) -> None:
    push(node.value)


def _push_expr(node: Any, push: Callable[[object], None]) -> None:
    push(node.expr)


def _push_for(node: Any, push: Callable[[object], None]) -> None:
    push(node.body)
    push(node.iterable)


def _push_if(node: Any, push: Callable[[object], None]) -> None:
    push(node.else_body)
    push(node.then_body)
    push(node.condition)


_PUSH_CHILDREN: dict[type, Callable[[Any, Callable[[object], None]], None]] = {
    ast.Unary: _push_operand,
    ast.Cast: _push_operand,
    ast.Binary: _push_binary,
    ast.Call: _push_call,
    ast.Index: _push_index,
    ast.Member: _push_target,
    ast.Pipe: _push_pipe,
    ast.Range: _push_range,
    ast.Lambda: _push_body,
    ast.Return: _push_value,
    ast.Assign: _push_value,
    ast.FieldAssign: _push_value,
    ast.ExprStmt: _push_expr,
    ast.For: _push_for,
    ast.If: _push_if,
}


@record
class _Call:
    """A call as the analysis sees it, a pipe stage's included: its input comes first."""

    name: str
    callee: object
    positional: list[object]
    named: dict[str, object]
    span: Span


def _calls(node: object) -> list[_Call]:
    """The calls in an expression or statement list, pipe stages included."""
    known = _CALLS.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    found: list[_Call] = []
    for expr in _expressions(node):
        if isinstance(expr, ast.Call) and isinstance(expr.callee, _NAME_MEMBER):
            found.append(_call_of(expr.callee, [], expr))
        elif isinstance(expr, ast.Pipe):
            value: object = expr.input
            for stage in expr.stages:
                if isinstance(stage, ast.Call) and isinstance(stage.callee, _NAME_MEMBER):
                    found.append(_call_of(stage.callee, [value], stage))
                elif isinstance(stage, _NAME_MEMBER):
                    name = _dotted(stage) or "?"
                    found.append(_Call(name, stage, [value], {}, stage.span))
                value = stage
    _CALLS[id(node)] = (node, found)
    return found


def _call_of(callee: ast.Name | ast.Member, before: list[object], node: ast.Call) -> _Call:
    """A call; `value_and_grad(f, ...)` is seen as the call of `f` it makes. Another
    file's function is named as written (`lib.pool`)."""
    positional = list(before)
    named: dict[str, object] = {}
    for arg in node.args:
        if arg.name is None:
            positional.append(arg.value)
        else:
            named[arg.name] = arg.value
    name = _dotted(callee) or "?"
    if name == "value_and_grad" and positional and isinstance(positional[0], _NAME_MEMBER):
        function = positional[0]
        return _Call(_dotted(function) or "?", function, positional[1:], named, node.span)
    return _Call(name, callee, positional, named, node.span)


#: Built-ins that work across an axis, which an elementwise function doesn't call.
_ACROSS = (
    NO_MASKED_VERSION
    | REDUCE_ALL
    | MASKED
    | PATTERNS
    | frozenset({"cumsum", "cumprod", "print", "save", "load", "cross_entropy"})
)


def _elementwise(decl: object) -> bool:
    """Whether a declaration's parameters and result all have no shape."""
    params = getattr(decl, "params", ())
    written = [p.type for p in params if p.type is not None]
    result = getattr(decl, "return_type", None)
    return (
        bool(written)
        and all(t.shape is None for t in written)
        and (result is None or result.shape is None)
    )


def _given(types: dict[Span, Type], call: _Call, symbol: str) -> list[object]:
    """A call's arguments whose types have the axis `symbol`."""
    return [
        arg
        for arg in (*call.positional, *call.named.values())
        if _has(types.get(arg.span), symbol)  # type: ignore[attr-defined]
    ]


def _over_padded(types: dict[Span, Type], call: _Call, given: list, symbol: str) -> bool:
    """Whether a call's `over=` names the axis `symbol`."""
    over = call.named.get("over")
    if over is None:
        return False
    over_type = types.get(over.span)  # type: ignore[attr-defined]
    if (
        isinstance(over_type, HostType)
        and over_type.size is not None
        and any(symbol in term for term in over_type.size.terms)
    ):
        return True
    return isinstance(over, ast.Name) and any(
        axis.name == over.name and any(symbol in term for term in axis.size.terms)
        for arg in given
        for axis in (getattr(types.get(arg.span), "axes", None) or ())
    )


@record(frozen=True)
class _Foreign:
    """A call of another file's function: its signature, and that file's facts."""

    signature: Signature
    facts: PaddingFacts | None
    plain: str


def _dotted(node: object) -> str | None:
    """`torch.nn.relu` for a name or a chain of members on a name; None for others."""
    parts: list[str] = []
    while isinstance(node, ast.Member):
        parts.append(node.name)
        node = node.target
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.name)
    return ".".join(reversed(parts))


def _operands(call: _Call) -> list[object]:
    """A pattern operation's tensor operands, in order (the pattern and the reduction's
    name left out)."""
    found = [arg for arg in call.positional if not isinstance(arg, ast.Pattern)]
    return found[:1] if call.name == "reduce" else found


def _pattern_of(call: _Call) -> ast.Pattern | None:
    for value in list(call.positional) + list(call.named.values()):
        if isinstance(value, ast.Pattern):
            return value
    return None


def _reduction_of(call: _Call) -> str | None:
    values = [arg for arg in call.positional if not isinstance(arg, ast.Pattern)][1:]
    reduction = values[0] if values else call.named.get("reduction")
    return reduction.name if isinstance(reduction, ast.Name) else None


def _output_use(side: ast.PatternSide, name: str) -> str:
    """How a pattern's output has the input axis `name`: "own" (alone, maybe moved),
    "grouped" (with other axes) or "absent"."""
    for entry in side.axes:
        if isinstance(entry, ast.PatternName) and entry.name == name:
            return "own"
        if isinstance(entry, ast.PatternGroupedSize) and entry.name == name:
            return "grouped"
        if isinstance(entry, ast.PatternGroup):
            names = [i.name for i in entry.items if isinstance(i, ast.PatternName)]
            if name in names:
                return "own" if len(entry.items) == 1 else "grouped"
    return "absent"


def _pattern_effect(
    types: dict[Span, Type], call: _Call, symbol: str
) -> tuple[str | None, list[tuple[int, int, str]]]:
    """What a pattern operation does to the padded axis `symbol`: why it can't be padded
    (or None), and the operands' axes to mask (an einsum contracting it, a reduce
    reducing it). An axis kept as its own axis, moved or not, needs nothing."""
    pattern = _pattern_of(call)
    if pattern is None:
        return "has no pattern the checker can follow", []
    masked: list[tuple[int, int, str]] = []
    contracted = False
    for index, (operand, side) in enumerate(zip(_operands(call), pattern.inputs, strict=False)):
        type_ = types.get(operand.span)  # type: ignore[attr-defined]
        if not _has(type_, symbol):
            continue
        axes = type_.axes if isinstance(type_, _SHAPED) else ()
        places = [p for p in range(len(axes or ())) if _axis_symbol(type_, p) == symbol]
        if not places:
            return "groups the padded axis with another", []
        for position in places:
            entry = side.axes[position] if position < len(side.axes) else None
            if not isinstance(entry, ast.PatternName):
                return f"splits the padded axis `{symbol.lstrip('?')}`", []
            use = _output_use(pattern.output, entry.name)
            if use == "grouped":
                return f"groups `{entry.name}` with another axis", []
            if use == "own":
                continue
            if call.name == "reduce":
                reduction = _reduction_of(call)
                if reduction not in MASKED_REDUCE:
                    return f"with `{reduction}` over `{entry.name}` has no masked version", []
                masked.append((index, position, symbol))
            elif call.name == "einsum":
                if not contracted:
                    masked.append((index, position, symbol))
                    contracted = True
            else:
                return f"drops `{entry.name}`", []
    return None, masked


def _batch_norm_axis(types: dict[Span, Type], call: _Call, symbol: str) -> int | None:
    """The position of the padded axis among `batch_norm`'s statistics axes, or None
    when it is the normalised axis itself (each of its positions on its own)."""
    x = call.positional[0] if call.positional else call.named.get("x")
    type_ = types.get(x.span) if x is not None else None  # type: ignore[attr-defined]
    axes = type_.axes if isinstance(type_, TensorType) else None
    over = call.named.get("over")
    for position in range(len(axes or ())):
        if _axis_symbol(type_, position) != symbol:
            continue
        if isinstance(over, ast.Name) and axes[position].name == over.name:  # type: ignore[index]
            continue
        return position
    return None


def _keys_padded(types: dict[Span, Type], call: _Call, symbol: str) -> bool:
    """Whether `scaled_dot_product_attention`'s keys (or values) are padded along their
    positions, the axis before the last."""
    keys = [call.positional[i] for i in (1, 2) if i < len(call.positional)]
    keys += [call.named[n] for n in ("k", "v") if n in call.named]
    for key in keys:
        type_ = types.get(key.span)  # type: ignore[attr-defined]
        axes = type_.axes if isinstance(type_, TensorType) else None
        if axes and len(axes) >= 2 and _axis_symbol(type_, len(axes) - 2) == symbol:
            return True
    return False


class _Analysis:
    def __init__(
        self,
        items: list[ItemFacts],
        dims: frozenset[str],
        imports: object,
        kinds: tuple[list[ItemFacts], list[ItemFacts]] | None = None,
        names: reuse.Names | None = None,
    ) -> None:
        self.dims = dims
        self.imports = imports
        #: Whether the file runs on several devices.
        self.several = False
        #: The functions and extern fns that changed since the previous check (see
        #: `reuse.names_of`); None: every one is looked at.
        self.changed: set[str] | None = None
        self.items, self.kinds, self.names = items, kinds, names
        self.functions: Mapping[str, ItemFacts]
        self.externs: dict[str, ast.ExternFnDecl]
        if names is not None and kinds is not None:
            # A keystroke's analysis: the names are the previous check's, patched.
            self.functions = reuse.Functions(names.index, kinds[0])
            self.externs = names.externs
        else:
            self.functions, self.externs = self._by_name(items, kinds)
        self.axis_memo: dict[tuple[str, str, bool], Blocker | None] = {}
        #: Whether the axis followed is a boolean selection's (whose positions aren't
        #: in order, so `causal` and running sums along it have no masked version).
        self.selection = False
        self.need_memo: dict[tuple[str, str], bool] = {}
        self.host_memo: dict[str, Blocker | None] = {}
        self.selections_done: set[int] = set()
        self.type_memo: dict[int, tuple[ItemFacts, dict[Span, Type]]] = {}
        self.node_memo: dict[int, tuple[object, list[object]]] = {}
        self.elementwise_memo: dict[str, bool] = {}
        self.reached: dict[tuple[int, str], tuple[object, list[tuple[_Call, list[object]]]]] = {}
        self.facts = PaddingFacts()

    @staticmethod
    def _by_name(
        items: list[ItemFacts], kinds: tuple[list[ItemFacts], list[ItemFacts]] | None
    ) -> tuple[dict[str, ItemFacts], dict[str, ast.ExternFnDecl]]:
        """The functions and extern fns by name, the first function of a name kept as
        `setdefault` would. Given `kinds` (the functions' and the extern fns' items,
        apart), only those are looked at; else every item, by class."""
        functions: dict[str, ItemFacts] = {}
        externs: dict[str, ast.ExternFnDecl] = {}
        if kinds is not None:
            # The type() tests hold (the caller sorted the items so): they narrow for mypy.
            for item in kinds[0]:
                decl = item.item
                if type(decl) is ast.FnDecl and decl.name not in functions:
                    functions[decl.name] = item
            for item in kinds[1]:
                decl = item.item
                if type(decl) is ast.ExternFnDecl:
                    externs[decl.name] = decl
        else:
            for item in items:
                decl = item.item
                if type(decl) is ast.FnDecl:
                    if decl.name not in functions:
                        functions[decl.name] = item
                elif type(decl) is ast.ExternFnDecl:
                    externs[decl.name] = decl
        return functions, externs

    # ------------------------------------------------------------------ helpers

    def referenced(self, item: ItemFacts) -> frozenset[str]:
        """The file's functions and extern fns a function's body names (calls, pipes, and
        functions passed on, as to `value_and_grad`)."""
        decl = item.item
        assert isinstance(decl, ast.FnDecl)
        body = decl.body if decl.body is not None else decl.expr_body
        return _names(body)

    def types(self, item: ItemFacts) -> dict[Span, Type]:
        """The types of an item's declaration and body, worked out once per item."""
        known = self.type_memo.get(id(item))
        if known is not None and known[0] is item:
            return known[1]
        found = dict(item.declaration.types)
        if item.body is not None:
            found.update(item.body.facts.types)
        self.type_memo[id(item)] = (item, found)
        return found

    def absolute(self, item: ItemFacts, span: Span) -> Span:
        return Span(item.base + span.start, item.base + span.end)

    def param_types(self, item: ItemFacts) -> list[tuple[str, Type | None]]:
        types = self.types(item)
        decl = item.item
        assert isinstance(decl, ast.FnDecl)
        return [(param.name, types.get(param.name_span)) for param in decl.params]

    # ------------------------------------------------------------------ padding

    # Following an axis into the functions it is passed to goes as deep as a chain of
    # calls, which only the file's length bounds: the walks below yield the walk of each
    # callee to `run_stacked` instead of calling it.

    def axis_blocker(self, function: str, symbol: str) -> Blocker | None:
        """What keeps axis `symbol` of `function`'s parameters from being padded."""
        return run_stacked(self._axis_walk(function, symbol))

    def _axis_walk(self, function: str, symbol: str) -> Walk[Blocker | None]:
        key = (function, symbol, self.selection)
        if key in self.axis_memo:
            return self.axis_memo[key]
        self.axis_memo[key] = None
        item = self.functions[function]
        decl = item.item
        assert isinstance(decl, ast.FnDecl)
        body = decl.body if decl.body is not None else decl.expr_body
        found = yield from self._body_walk(item, body, symbol)
        self.axis_memo[key] = found
        return found

    def checked_nodes(self, item: ItemFacts, body: object) -> list[object]:
        """The nodes of `body` that `body_blocker` and `mask_uses` look at, in order,
        found once per body: sizes used as numbers (not as `over=`), returns, indexing,
        casts and `@`."""
        known = self.node_memo.get(id(body))
        if known is not None and known[0] is body:
            return known[1]
        types = self.types(item)
        overs = {
            call.named["over"].span  # type: ignore[attr-defined]
            for call in _calls(body)
            if "over" in call.named
        }
        found = []
        for expr in _expressions(body):
            kind = type(expr)  # node and type classes have no subclasses
            if (
                kind is ast.Return
                or kind is ast.Index
                or kind is ast.Cast
                or (kind is ast.Binary and expr.op == "@")
            ):
                found.append(expr)
            elif kind is ast.Name and expr.span not in overs:
                expr_type = types.get(expr.span)
                if type(expr_type) is HostType and expr_type.size is not None:
                    found.append(expr)
        self.node_memo[id(body)] = (body, found)
        return found

    def body_blocker(self, item: ItemFacts, body: object, symbol: str) -> Blocker | None:
        """The first operation in `body` across the axis `symbol` with no masked version."""
        return run_stacked(self._body_walk(item, body, symbol))

    def _body_walk(self, item: ItemFacts, body: object, symbol: str) -> Walk[Blocker | None]:
        types = self.types(item)
        name = item.item.name  # type: ignore[union-attr]

        def blocked(what: str, why: str, span: Span) -> Blocker:
            return Blocker(what, why, self.absolute(item, span), name)

        for expr in self.checked_nodes(item, body):
            expr_type = types.get(getattr(expr, "span", None))  # type: ignore[arg-type]
            if (
                isinstance(expr, ast.Name)
                and not symbol.startswith("?")
                and isinstance(expr_type, HostType)
                and expr_type.size is not None
                and any(symbol in term for term in expr_type.size.terms)
            ):
                return blocked(f"`{expr.name}` used as a number", "can't be padded", expr.span)
            if (
                isinstance(expr, ast.Return)
                and symbol.startswith("?")
                and expr.value is not None
                and _has(types.get(expr.value.span), symbol)
            ):
                if self.selection:
                    return blocked("`return`", "gives the selection back to its caller", expr.span)
                return blocked("`return`", "gives Python a padded value", expr.span)
            if (
                self.selection
                and isinstance(expr, ast.Index)
                and isinstance(expr.target, ast.Name)
                and expr.target.name == "causal"
                and any(_size_has(types.get(i.span), symbol) for i in expr.items)  # type: ignore[union-attr]
            ):
                return blocked("`causal`", "has no masked version for a selection", expr.span)
            if isinstance(expr, ast.Index) and _has(types.get(expr.target.span), symbol):
                target = types.get(expr.target.span)
                axes = target.axes if isinstance(target, TensorType) else ()
                for position, index in enumerate(expr.items):
                    if isinstance(index, ast.SpacedIndex) or position >= len(axes or ()):
                        break
                    if ast.whole_slice(index):
                        continue
                    index_type = types.get(index.span)
                    is_mask = (
                        isinstance(index_type, TensorType) and index_type.domain.name == "Mask"
                    )
                    if not is_mask and _axis_symbol(target, position) == symbol:
                        return blocked(
                            f"indexing `{format_type(target)}` along its padded axis",
                            "can't be padded",
                            expr.span,
                        )
            elif (
                isinstance(expr, ast.Cast)
                and _has(types.get(expr.operand.span), symbol)
                and not _has(types.get(expr.span), symbol)
            ):
                return blocked("`as`", "gives the padded axis a fixed size", expr.span)
        reached: list[tuple[_Call, list[object]]] = []
        for call in _calls(body):
            given = _given(types, call, symbol)
            if not given:
                continue
            found = yield from self._call_walk(item, types, call, symbol, blocked, given)
            if found is not None:
                return found
            reached.append((call, given))
        # What `mask_uses` goes through for this body and axis: the calls given it.
        self.reached[(id(body), symbol)] = (body, reached)
        return None

    def _call_walk(
        self, item, types, call: _Call, symbol: str, blocked, given: list[object]
    ) -> Walk[Blocker | None]:
        """What keeps the axis from being padded in one call that is given it."""
        over = call.named.get("over")
        over_padded = _over_padded(types, call, given, symbol)
        over_text = item_text_of(over)
        if call.name in NO_MASKED_VERSION and over_padded:
            return blocked(f"`{call.name}` over `{over_text}`", "has no masked version", call.span)
        if self.selection and call.name in ("cumsum", "cumprod") and over_padded:
            return blocked(
                f"`{call.name}` over `{over_text}`",
                "has no masked version for a selection",
                call.span,
            )
        if call.name == "cross_entropy" and over_padded:
            return blocked(
                f"`cross_entropy` over `{over_text}`", "has no masked version", call.span
            )
        if call.name in ("print", "save"):
            return blocked(f"`{call.name}`", "is given a padded value", call.span)
        if call.name in PATTERNS and call.name not in self.functions:
            why, _ = _pattern_effect(types, call, symbol)
            return None if why is None else blocked(f"`{call.name}`", why, call.span)
        if (
            self.several
            and call.name == "batch_norm"
            and call.name not in self.functions
            and _batch_norm_axis(types, call, symbol) is not None
        ):
            return blocked(
                "`batch_norm`'s statistics",
                "have no masked version on several devices yet",
                call.span,
            )
        if call.name == "scaled_dot_product_attention" and _keys_padded(types, call, symbol):
            return blocked(
                "`scaled_dot_product_attention`'s keys", "have no masked version", call.span
            )
        callee_type = types.get(call.callee.span)  # type: ignore[attr-defined]
        if isinstance(callee_type, PythonType):
            return blocked(f"`{call.name}`", "is Python given a padded value", call.span)
        extern = self.externs.get(call.name)
        if extern is not None and not _elementwise(extern):
            return blocked(
                f"`{call.name}`",
                "is an extern fn that isn't elementwise given a padded value",
                call.span,
            )
        if extern is not None:
            return None
        if "." in call.name:
            return self.foreign_blocker(types, call, symbol, blocked)
        target = self.functions.get(call.name)
        if target is None or target.body is None:
            return None
        params = self.param_types(target)
        if _elementwise(target.item) and self.only_elementwise(call.name):
            return None
        for _, arg_type, param_type in self.axis_pairs(types, call, params):
            if not _has(arg_type, symbol):
                continue
            if isinstance(param_type, TensorType) and param_type.axes is None:
                return blocked(
                    f"`{call.name}`'s parameter without a shape",
                    "is given a padded value",
                    call.span,
                )
            for inner in _inner_axes(arg_type, param_type, symbol):
                key = (call.name, inner, self.selection)
                if key in self.axis_memo:
                    found = self.axis_memo[key]
                else:
                    found = yield self._axis_walk(call.name, inner)
                if found is not None:
                    return found
        return None

    def foreign(self, call: _Call) -> _Foreign | None:
        """The other file's function a qualified call (`lib.pool(x)`) calls, or None."""
        table = self.imports
        signatures = getattr(table, "signatures", None) or {}
        signature = signatures.get(call.name)
        if signature is None:
            return None
        prefix, _, plain = call.name.rpartition(".")
        path = table.paths.get(prefix)  # type: ignore[attr-defined]
        exports = table.modules.get(path) if path is not None else None  # type: ignore[attr-defined]
        other = getattr(exports, "padding", None)
        return _Foreign(signature, other if isinstance(other, PaddingFacts) else None, plain)

    def axis_pairs(
        self, types: dict[Span, Type], call: _Call, params: list[tuple[str, Type | None]]
    ) -> list[tuple[object, Type | None, Type | None]]:
        """Each argument of a call with its type and its parameter's."""
        by_name = dict(params)
        pairs = [(params[i][1], a) for i, a in enumerate(call.positional) if i < len(params)]
        pairs += [(by_name.get(n), a) for n, a in call.named.items()]
        return [(arg, types.get(arg.span), param) for param, arg in pairs]  # type: ignore[attr-defined]

    def foreign_blocker(self, types, call: _Call, symbol: str, blocked) -> Blocker | None:
        """What keeps the axis from being padded in another file's function it's passed to:
        that file's own finding, shown at the call."""
        foreign = self.foreign(call)
        if foreign is None:
            return blocked(
                f"`{call.name}`", "is given a padded value the checker can't follow", call.span
            )
        if foreign.signature.is_generic or foreign.facts is None:
            return blocked(
                f"`{call.name}`",
                "is another file's function that isn't padded there",
                call.span,
            )
        axes = foreign.facts.axes.get(foreign.plain, {})
        for _, arg_type, param_type in self.axis_pairs(
            types, call, [(p.name, p.type) for p in foreign.signature.params]
        ):
            if not _has(arg_type, symbol):
                continue
            if isinstance(param_type, TensorType) and param_type.axes is None:
                return blocked(
                    f"`{call.name}`'s parameter without a shape",
                    "is given a padded value",
                    call.span,
                )
            for inner in _inner_axes(arg_type, param_type, symbol):
                found = axes.get(inner, Blocker("", "", call.span, call.name))
                if found is not None:
                    what = found.what or f"`{inner}`"
                    why = found.why or "isn't a generic axis there"
                    return blocked(f"{what} in `{call.name}`", why, call.span)
        return None

    def only_elementwise(self, function: str) -> bool:
        """Whether a function of shapeless parameters only does elementwise maths: no
        reduction, contraction or operation along an axis, itself or in what it calls."""
        known = self.elementwise_memo.get(function)
        if known is not None:
            return known
        return run_stacked(self._elementwise_walk(function))

    def _elementwise_walk(self, function: str) -> Walk[bool]:
        known = self.elementwise_memo.get(function)
        if known is not None:
            return known
        self.elementwise_memo[function] = True
        item = self.functions[function]
        decl = item.item
        assert isinstance(decl, ast.FnDecl)
        body = decl.body if decl.body is not None else decl.expr_body
        found = not any(
            isinstance(expr, ast.Binary) and expr.op == "@" for expr in _expressions(body)
        )
        for call in _calls(body) if found else ():
            if call.name in self.functions:
                target = self.functions[call.name]
                found = _elementwise(target.item)
                if found:
                    known = self.elementwise_memo.get(call.name)
                    if known is None:
                        known = yield self._elementwise_walk(call.name)
                    found = known
            else:
                found = (
                    call.name not in _ACROSS
                    and call.name not in self.externs
                    or (call.name in self.externs and _elementwise(self.externs[call.name]))
                )
            if not found:
                break
        self.elementwise_memo[function] = found
        return found

    # ------------------------------------------------------------------ masks

    def needs_mask(self, function: str, symbol: str) -> bool:
        """Whether `function` uses the mask of its axis `symbol`, itself or in its calls."""
        known = self.need_memo.get((function, symbol))
        return known if known is not None else run_stacked(self._need_walk(function, symbol))

    def _need_walk(self, function: str, symbol: str) -> Walk[bool]:
        key = (function, symbol)
        if key not in self.need_memo:
            self.need_memo[key] = False
            item = self.functions[function]
            decl = item.item
            assert isinstance(decl, ast.FnDecl)
            body = decl.body if decl.body is not None else decl.expr_body
            self.need_memo[key] = yield from self._mask_walk(item, body, symbol)
        return self.need_memo[key]

    def mask_uses(self, item: ItemFacts, body: object, symbol: str) -> bool:
        """Record the masked operations and mask-passing calls in `body` for the axis
        `symbol`; whether there are any."""
        return run_stacked(self._mask_walk(item, body, symbol))

    def _mask_walk(self, item: ItemFacts, body: object, symbol: str) -> Walk[bool]:
        types = self.types(item)
        facts = self.facts
        used = False
        for expr in self.checked_nodes(item, body):
            if (
                isinstance(expr, ast.Index)
                and _axis_symbol(types.get(expr.target.span), 0) == symbol
                and any(_is_mask(types.get(getattr(i, "span", None))) for i in expr.items)  # type: ignore[arg-type]
            ):
                # A selection of a padded axis leaves its padded positions out.
                facts.masked[self.absolute(item, expr.span)] = symbol
                used = True
            if isinstance(expr, ast.Binary) and expr.op == "@":
                left = types.get(expr.left.span)
                rank = len(getattr(left, "axes", None) or ())
                if rank and _axis_symbol(left, rank - 1) == symbol:
                    facts.masked[self.absolute(item, expr.span)] = symbol
                    used = True
        known = self.reached.get((id(body), symbol))
        if known is not None and known[0] is body:
            reached = known[1]
        else:
            reached = [(call, _given(types, call, symbol)) for call in _calls(body)]
        for call, given in reached:
            if not given:
                continue
            masked = False
            if call.name in PATTERNS and call.name not in self.functions:
                _, operands = _pattern_effect(types, call, symbol)
                if operands:
                    span = self.absolute(item, call.span)
                    facts.operands[span] = operands
                    facts.masked[span] = symbol
                    used = True
                continue
            if call.name == "batch_norm" and call.name not in self.functions:
                position = _batch_norm_axis(types, call, symbol)
                if position is not None:
                    span = self.absolute(item, call.span)
                    facts.operands[span] = [(0, position, symbol)]
                    facts.masked[span] = symbol
                    used = True
                continue
            if call.name == "matmul" and call.positional:
                left = types.get(call.positional[0].span)  # type: ignore[attr-defined]
                rank = len(getattr(left, "axes", None) or ())
                masked = bool(rank) and _axis_symbol(left, rank - 1) == symbol
            elif call.name == "cross_entropy":
                masked = not _over_padded(types, call, given, symbol)
            elif call.name in REDUCE_ALL and "over" not in call.named:
                first = call.positional[0] if call.positional else None
                masked = first is not None and _has(types.get(first.span), symbol)  # type: ignore[attr-defined]
            elif call.name in MASKED:
                masked = _over_padded(types, call, given, symbol)
            if masked:
                facts.masked[self.absolute(item, call.span)] = symbol
                used = True
                continue
            passed = yield from self._passed_walk(types, call, symbol)
            if passed:
                facts.passes.setdefault(self.absolute(item, call.span), {}).update(passed)
                used = True
        return used

    def _passed_walk(
        self, types: dict[Span, Type], call: _Call, symbol: str
    ) -> Walk[dict[str, str]]:
        """The callee's axes that get the mask of `symbol` in a call of a function, of
        this file or another."""
        foreign = self.foreign(call) if "." in call.name else None
        found: dict[str, str] = {}
        if foreign is not None:
            if foreign.facts is None or foreign.signature.is_generic:
                return found
            params = [(p.name, p.type) for p in foreign.signature.params]
            needs = foreign.facts.needs.get(foreign.plain, frozenset())
            for _, arg_type, param_type in self.axis_pairs(types, call, params):
                for inner in _inner_axes(arg_type, param_type, symbol):
                    if inner in needs:
                        found[inner] = symbol
            return found
        target = self.functions.get(call.name)
        if target is None or target.body is None:
            return found
        for _, arg_type, param_type in self.axis_pairs(types, call, self.param_types(target)):
            for inner in _inner_axes(arg_type, param_type, symbol):
                if inner in self.dims:
                    continue
                needed = self.need_memo.get((call.name, inner))
                if needed is None:
                    needed = yield self._need_walk(call.name, inner)
                if needed:
                    found[inner] = symbol
        return found

    # ------------------------------------------------------------------ steps

    def host_blocker(self, function: str) -> Blocker | None:
        """What in `function`, or what it calls, runs on the host."""
        if function in self.host_memo:
            return self.host_memo[function]
        return run_stacked(self._host_walk(function))

    def _host_walk(self, function: str) -> Walk[Blocker | None]:
        if function in self.host_memo:
            return self.host_memo[function]
        self.host_memo[function] = None
        item = self.functions[function]
        decl = item.item
        assert isinstance(decl, ast.FnDecl)
        types = self.types(item)
        body = decl.body if decl.body is not None else decl.expr_body
        self.selections_of(item)

        def blocked(what: str, why: str, span: Span) -> Blocker:
            return Blocker(what, why, self.absolute(item, span), function)

        found: Blocker | None = None
        for expr in _expressions(body):
            if found is not None:
                break
            # The node classes have no subclasses: `type(x) is C` is `isinstance(x, C)`.
            kind = type(expr)
            if kind is ast.Name or kind is ast.Binary or kind is ast.Member:
                continue
            if kind is ast.For:
                if isinstance(types.get(expr.iterable.span), DatasetType | BatchesType):
                    found = blocked("the loop", "goes over a dataset", expr.iterable.span)
            elif kind is ast.Index and any(
                _is_mask(types.get(index.span))
                for index in expr.items
                if not isinstance(index, _SLICE_SPACEDINDEX)
            ):
                why = self.facts.selections.get(self.absolute(item, expr.span), _NOT_FOLLOWED)
                if why is not None:
                    found = blocked(
                        "the boolean selection",
                        f"makes a size that depends on the data: {why.text}, so it isn't "
                        "kept padded",
                        expr.span,
                    )
            elif kind is ast.If:
                if isinstance(types.get(expr.condition.span), TensorType):
                    found = blocked("`if` on a tensor", "waits for the device", expr.condition.span)
            elif kind is not ast.Call:
                continue
            elif type(expr.callee) is ast.Member:
                if isinstance(types.get(expr.callee.target.span), SinkType):
                    found = blocked("the log sink", "is written on the host", expr.span)
                elif isinstance(types.get(expr.callee.span), PythonType):
                    found = blocked("the Python call", "runs Python", expr.span)
            elif type(expr.callee) is ast.Name:
                name = expr.callee.name
                if name in HOST_CALLS:
                    found = blocked(f"`{name}`", f"{HOST_CALLS[name]} on the host", expr.span)
                elif isinstance(types.get(expr.callee.span), PythonType):
                    found = blocked(f"`{name}`", "runs Python", expr.span)
                elif name in self.externs:
                    path = self.externs[name].python_path
                    if path is not None and not path.value.startswith("torch."):
                        found = blocked(f"`{name}`", "is a Python extern fn", expr.span)
                elif name == "value_and_grad" and expr.args:
                    # The function it differentiates runs in the step too.
                    differentiated = expr.args[0].value
                    if (
                        isinstance(differentiated, ast.Name)
                        and differentiated.name in self.functions
                        and differentiated.name != function
                    ):
                        found = yield from self._host_of(differentiated.name)
                elif name in self.functions and name != function:
                    inner = yield from self._host_of(name)
                    if inner is not None:
                        found = inner
        self.host_memo[function] = found
        return found

    def _host_of(self, function: str) -> Walk[Blocker | None]:
        """A callee's host work: remembered, or its walk run next on the stack."""
        if function in self.host_memo:
            return self.host_memo[function]
        return (yield self._host_walk(function))

    def is_step(self, item: ItemFacts) -> bool:
        decl = item.item
        assert isinstance(decl, ast.FnDecl)
        if not any(param.mut for param in decl.params):
            return False
        types = self.types(item)
        changes = any(
            param.mut and isinstance(types.get(param.name_span), ModelType | OptimizerType)
            for param in decl.params
        )
        if not changes:
            return False
        body = decl.body if decl.body is not None else decl.expr_body
        for expr in _expressions(body):
            kind = type(expr)  # the node classes have no subclasses
            if kind is ast.FieldAssign:
                return True
            if (
                kind is ast.Call
                and type(expr.callee) is ast.Name
                and expr.callee.name in DEVICE_WORK
            ):
                return True
        return False

    # ------------------------------------------------------------------ the file

    def run(self) -> PaddingFacts:
        facts = self.facts
        for name, item in self.functions.items():
            if item.body is None:
                continue
            axes: dict[str, Blocker | None] = {}
            for _, type_ in self.param_types(item):
                for position in range(len(getattr(type_, "axes", None) or ())):
                    symbol = _axis_symbol(type_, position)
                    if symbol is not None and symbol not in axes and symbol not in self.dims:
                        axes[symbol] = None
            for symbol in list(axes):
                axes[symbol] = self.axis_blocker(name, symbol)
            facts.axes[name] = axes
            needs = frozenset(
                symbol
                for symbol, blocker in axes.items()
                if blocker is None and self.needs_mask(name, symbol)
            )
            # Most functions need no mask: they share one empty set.
            facts.needs[name] = needs or _NO_NEEDS
            self.loops_of(item)
            self.selections_of(item)
        for name, item in self.functions.items():
            if item.body is not None and self.is_step(item):
                blocker = self.host_blocker(name)
                facts.steps[name] = blocker
                if blocker is not None:
                    facts.diagnostics.append(_h3101(item, blocker))
        return facts

    def run_diagnostics(self, previous: PaddingFacts | None = None) -> PaddingFacts:
        """H2001 and H3101 alone, as `run` finds them: the loops over batches, then the
        steps (whose selections are worked out as the steps reach them). What `previous`
        found for a function is taken again when neither it nor anything it calls
        changed (`changed`, found before the analysis): the functions with loops are
        moved to where they now are, the steps are taken whole and only those with a
        blocker moved."""
        facts = self.facts
        functions = self.functions
        memo = previous.found if previous is not None else None
        reused = reuse.unaffected(self, memo, self.changed)
        found = reused.found
        if reused.again is None:
            again = [name for name, item in functions.items() if item.body is not None]
        else:
            # In the file's order, as a fresh check looks at them.
            again = sorted(
                (name for name in reused.again if functions[name].body is not None),
                key=lambda name: functions[name].base,
            )
        loops, loop_symbols = facts.loops, facts.loop_symbols
        for name, old in found.items():
            if not old.loops:
                continue
            base = functions[name].base
            for span, kept, symbol in old.loops:
                where = Span(span.start + base, span.end + base)
                if kept is not None:
                    self.put_loop(where, reuse.rebased(self, kept), symbol)
                else:
                    # `put_loop` of a padded loop, written out: most loops are.
                    loops[where] = None
                    if symbol is not None:
                        loop_symbols[where] = symbol
        fresh: dict[str, reuse.Found] = {}
        for name in again:
            item = functions[name]
            fresh[name] = reuse.Found(reuse.relative_loops(self, item, self.loops_of(item)))
        facts.steps = reused.steps
        for name in reused.blocked:
            self.put_step(name, reuse.rebased(self, found[name].blocker))
        for name in again:
            item = functions[name]
            if not self.is_step(item):
                continue
            blocker = self.host_blocker(name)
            finding = fresh[name]
            finding.step = True
            try:
                finding.blocker = reuse.relative(self, blocker)
            except reuse.Elsewhere:
                finding.loops = None
            self.put_step(name, blocker)
        for name, finding in fresh.items():
            if finding.loops or finding.step:
                found[name] = finding
        if self.names is None:
            self.names = reuse.names_of(self.kinds or _kinds(self.items), None)[0]
        facts.found = reuse.Memo(
            self.names,
            reuse.context(self),
            found,
            reused.refs,
            reused.callers,
            frozenset(name for name, finding in fresh.items() if finding.loops is None),
            facts.steps,
            frozenset(name for name, blocker in facts.steps.items() if blocker is not None)
            if reused.again is None
            else reused.blocked.union(name for name in again if facts.steps.get(name) is not None),
        )
        return facts

    def put_step(self, name: str, blocker: Blocker | None) -> None:
        self.facts.steps[name] = blocker
        if blocker is not None:
            self.facts.diagnostics.append(_h3101(self.functions[name], blocker))

    def selections_of(self, item: ItemFacts) -> None:
        """Keep each boolean selection of one axis at its target's size when every
        operation on it has a masked version; record what compacts it otherwise."""
        if id(item) in self.selections_done:
            return
        self.selections_done.add(id(item))
        decl = item.item
        assert isinstance(decl, ast.FnDecl)
        types = self.types(item)
        body = decl.body if decl.body is not None else decl.expr_body
        for expr in _expressions(body):
            if type(expr) is not ast.Index or not any(
                _is_mask(types.get(getattr(i, "span", None)))
                for i in expr.items  # type: ignore[arg-type]
            ):
                continue
            span = self.absolute(item, expr.span)
            symbol = _axis_symbol(types.get(expr.span), 0)
            mask = types.get(expr.items[0].span) if len(expr.items) == 1 else None  # type: ignore[union-attr]
            if (
                symbol is None
                or not symbol.startswith("?")
                or not _is_mask(mask)
                or len(getattr(mask, "axes", None) or ()) != 1
            ):
                self.facts.selections[span] = Blocker(
                    "the selection",
                    "has a mask of more than one axis, or other indices",
                    span,
                    decl.name,
                )
                continue
            if decl.expr_body is not None and _has(types.get(decl.expr_body.span), symbol):
                blocker: Blocker | None = Blocker(
                    "the function's result",
                    "gives the selection back to its caller",
                    self.absolute(item, decl.expr_body.span),
                    decl.name,
                )
            else:
                self.selection = True
                try:
                    blocker = self.body_blocker(item, body, symbol)
                finally:
                    self.selection = False
            self.facts.selections[span] = blocker
            if blocker is None:
                self.facts.selected[span] = symbol
                self.mask_uses(item, body, symbol)

    def loops_of(self, item: ItemFacts) -> list[tuple[Span, Blocker | None, str | None]]:
        """Each loop over batches in the function: its span, what keeps its last batch from
        being padded, and its batch axis's symbol when its body uses the mask."""
        decl = item.item
        assert isinstance(decl, ast.FnDecl)
        found: list[tuple[Span, Blocker | None, str | None]] = []
        loops = _loops(decl.body) if decl.body else ()
        if not loops:
            return found
        types = self.types(item)
        for expr in loops:
            if not isinstance(types.get(expr.iterable.span), BatchesType):
                continue
            batch = types.get(expr.var.span)
            symbol = _axis_symbol(batch, 0)
            where = _batches_call(expr.iterable) or expr.iterable.span
            blocker = self.body_blocker(item, expr.body, symbol) if symbol else None
            span = self.absolute(item, where)
            masked = blocker is None and symbol is not None
            uses = symbol if masked and self.mask_uses(item, expr.body, symbol) else None
            found.append((span, blocker, uses))
            self.put_loop(span, blocker, uses)
        return found

    def put_loop(self, span: Span, blocker: Blocker | None, symbol: str | None) -> None:
        self.facts.loops[span] = blocker
        if blocker is not None:
            self.facts.diagnostics.append(_h2001(span, blocker))
        elif symbol is not None:
            self.facts.loop_symbols[span] = symbol


#: What a selection the analysis didn't reach is taken to have.
_NOT_FOLLOWED = Blocker("the selection", "wasn't followed", Span(0, 0), "")


def _is_mask(type_: Type | None) -> bool:
    return isinstance(type_, TensorType) and type_.domain.name == "Mask"


def item_text_of(node: object) -> str:
    return node.name if isinstance(node, ast.Name) else "the axis"


def _batches_call(node: object) -> Span | None:
    for expr in _expressions(node):
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.callee, ast.Name)
            and expr.callee.name == "batches"
        ):
            return expr.span
    return None


def _h2001(span: Span, blocker: Blocker) -> Diagnostic:
    return Diagnostic(
        "H2001",
        f"the last batch isn't padded to the batch size: {blocker.text}",
        Label(span, "the last batch keeps its own size"),
        secondary=[Label(blocker.span, blocker.why)],
        help="to pad it, compute what needs the operation per example, or outside the loop",
    )


def _h3101(item: ItemFacts, blocker: Blocker) -> Diagnostic:
    decl = item.item
    assert isinstance(decl, ast.FnDecl)
    name = decl.name
    via = "" if blocker.function == name else f" (in `{blocker.function}`, which it calls)"
    return Diagnostic(
        "H3101",
        f"step `{name}` can't be recorded as a CUDA graph: {blocker.text}{via}",
        Label(Span(item.base + decl.name_span.start, item.base + decl.name_span.end), "step"),
        secondary=[Label(blocker.span, f"{blocker.text}")],
        help="do the host work in the loop that calls the step, and return what it needs",
    )
