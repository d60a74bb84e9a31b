"""The records every layer of the checker shares: symbols and the references to them,
scope entries, call targets, and the facts a body or a declaration records (each item's
`Facts`), which `program.Checked` keeps per top-level item.

Spans in facts are relative to the item's chunk (as the parser gives them), so a function
body's facts can be reused unchanged when an edit elsewhere moves it.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from shapescript.check.algebra.types import Type
from shapescript.diagnostics.diagnostic import Diagnostic
from shapescript.records import record
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.algebra.assertions import Verdict
    from shapescript.check.algebra.structures import Structure

#: Kinds of symbol declared inside a function; their spans are relative to its item.
LOCAL_KINDS = frozenset({"param", "value", "axis"})


@record(frozen=True)
class Symbol:
    """A declaration a name can refer to.

    `kind` is one of: dim, alias, domain, fn, extern, model, data, logs, import,
    python_module, param, value, axis, builtin, prelude, field (a model's field, whose
    `detail` is `param w1: [D Hd]`), metric (a logs record's metric, whose `detail` is
    `loss: [] mean`). `path` is the file that declares
    it ("<builtins>" for the checker's own built-ins, "<prelude>" and "<nn>" for the stubs
    shipped with the compiler).
    """

    name: str
    kind: str
    span: Span
    path: str
    detail: str = ""
    doc: str | None = None


@record
class Reference:
    """A name at `span`: a local, built-in or prelude `symbol`, a module declaration, or a
    field of a model or data record, or a logs record's metric (`field`: the model's or
    record's name and the field's or metric's)."""

    span: Span
    symbol: Symbol | None = None
    module_name: str | None = None
    field: tuple[str, str] | None = None


@record
class ScopeEntry:
    """A name bound in a function from `visible_from` to the end of `scope`."""

    name: str
    symbol: Symbol
    type: Type
    visible_from: int
    scope: Span


@record
class CallTarget:
    """The function a call of a shared name means: one of several overloads, or an
    instance of a generic function.

    `key` is the overload's model, or the types an instance's type variables stand for,
    in the variables' order; `python_name` is the compiled function's name
    (`_ss_forward__Mlp`, `_ss_fit__Mlp__Digit`); `instance` is the instance itself.
    """

    function: str
    key: tuple[str, ...]
    python_name: str
    instance: Instance | None = None


#: The tables of `Facts`, each with the kind of container it is.
_FACT_TABLES: dict[str, type] = {
    "types": dict,
    "references": list,
    "entries": list,
    "stage_kinds": dict,
    "stage_elements": dict,
    "zip_axes": dict,
    "alignments": dict,
    "fields": dict,
    "gradients": list,
    "qualified": dict,
    "call_targets": dict,
    "structures": dict,
    "asserts": dict,
}


#: Each table's bit in `Facts._made_tables`.
_BITS: dict[str, int] = {name: 1 << number for number, name in enumerate(_FACT_TABLES)}


class Facts:
    """Types, references and bindings found in one item, with item-relative spans.

    Each table is made the first time it is read or written: an item fills two or three of
    them, and a big file has thousands of items, so thirteen empty containers apiece were
    about a sixth of a whole-file check's memory. Which tables are made is kept as bits
    (`_BITS`), so that asking for one never made (`read_table`) raises nothing.
    """

    __slots__ = (*_FACT_TABLES, "_made_tables")

    types: dict[Span, Type]
    references: list[Reference]
    entries: list[ScopeEntry]
    #: For the compiler: how each iterator stage's function runs, "elementwise" (one
    #: operation on whole tensors) or "vmap" (torch.vmap over the elements).
    stage_kinds: dict[Span, str]
    #: For the compiler: the element type a stage's function given by name (not a lambda)
    #: is applied to, by the function's span, so its `over=` finds the element's axes.
    stage_elements: dict[Span, Type]
    #: For the compiler: the axis of zip's other tensor that is iterated, by zip stage.
    zip_axes: dict[Span, int]
    #: For the compiler: how the operands of each elementwise operation (by its span) line
    #: up with its result. One entry per operand, in order: the result position of each of
    #: the operand's axes, or None when it lines up from the right as it is.
    alignments: dict[Span, tuple[tuple[int, ...] | None, ...]]
    #: For the compiler and the editor: each field read, `m.w1` or `g.w1` (by the span of
    #: the whole member expression, and of a field assignment `m.w1 = e`), as the model's
    #: name and the field's name; `Checked.models` has the field itself.
    fields: dict[Span, tuple[str, str]]
    #: Each `value_and_grad` whose function could be differentiated: the span of its
    #: function argument, the fn's name and the model's. Which params the fn reads is
    #: worked out after every body is checked (E1107, W1101), since it depends on the
    #: bodies of other functions.
    gradients: list[tuple[Span, str, str]]
    #: For the compiler and the editor: each use of another file's name, `attention.f`
    #: (by the span of the member expression), as the checker names it (`attention.f`;
    #: `b.f` for `c.f` when the file is also imported as `b`).
    qualified: dict[Span, str]
    #: For the compiler: the overload or generic instance a call means, by the span of the
    #: name that says which function (a call's callee, value_and_grad's first argument).
    #: Calls of a function that doesn't share its name have none.
    call_targets: dict[Span, CallTarget]
    #: For the editor and the Tensor view: the structure (`structures.Structure`) of each
    #: expression and binding (by the name's span) whose background the checker knows.
    structures: dict[Span, Structure]
    #: For the compiler and the editor: what the checker decided about each `assert`
    #: (`assertions.Verdict`), by the statement's span: proved ones compile to nothing.
    asserts: dict[Span, Verdict]

    def __init__(self) -> None:
        object.__setattr__(self, "_made_tables", 0)

    def __setattr__(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)
        bit = _BITS.get(name)
        if bit is not None:
            object.__setattr__(self, "_made_tables", self._made_tables | bit)

    def __getattr__(self, name: str) -> Any:
        # Only called for a table not made yet (a slot with no value), or for the bits of
        # one made without `__init__` (as a copy is, before its slots are set).
        kind = _FACT_TABLES.get(name)
        if kind is None:
            if name == "_made_tables":
                return 0
            raise AttributeError(f"'Facts' object has no attribute {name!r}")
        table = kind()
        setattr(self, name, table)
        return table

    def _tables(self) -> list[object]:
        """Every table, without making the ones not made yet (they read as empty)."""
        return [
            made if (made := _made(self, name)) is not None else kind()
            for name, kind in _FACT_TABLES.items()
        ]

    def __eq__(self, other: object) -> bool:
        if type(other) is not Facts:
            return NotImplemented
        return self._tables() == other._tables()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={table!r}" for name, table in zip(_FACT_TABLES, self._tables(), strict=True)
        )
        return f"Facts({shown})"


def read_table(facts: Facts, name: str) -> Any:
    """A table of `facts` to read, not to change: one that was never made reads as an
    empty one, without making it."""
    if facts._made_tables & _BITS[name]:
        return getattr(facts, name)
    return _EMPTY_TABLES[name]


def has_table(facts: Facts, name: str) -> bool:
    """Whether `facts` has made its table `name` (it may be empty)."""
    return bool(facts._made_tables & _BITS[name])


#: What `read_table` gives for a table not made: an empty one that can't be changed.
_EMPTY_TABLES: dict[str, object] = {
    name: () if kind is list else MappingProxyType({}) for name, kind in _FACT_TABLES.items()
}


def _made(facts: Facts, name: str) -> object | None:
    """A table of `facts` if it was made, else None (reading it would make it)."""
    if facts._made_tables & _BITS.get(name, 0):
        return object.__getattribute__(facts, name)
    return None


@record
class BodyResult:
    """What checking one function body gave; reused while its text and context are unchanged."""

    facts: Facts
    diagnostics: list[Diagnostic]
    inferred: Type


@record
class Instance:
    """A generic function with its type variables' types put in, checked as its own
    function: its bindings as (variable, type name) pairs in the variables' order, the
    compiled function's name, the substituted signature (`signatures.Signature`), and the
    generic function's item with this instance's body facts. An instance may be reused
    by a later check after its function moved: `item.base` is where it was then, and the
    function's `ItemFacts` in `Checked.items` says where it is now."""

    function: str
    bindings: tuple[tuple[str, str], ...]
    python_name: str
    signature: object
    item: ItemFacts
    #: The declaration checked (`instance_decls`): the generic function's, with the types
    #: put in, and another file's names as this file gives them; its spans, and those of
    #: the facts, are within the generic function's item.
    decl: ast.FnDecl | None = None
    #: Where the generic function is declared.
    home: Home | None = None


@record
class Home:
    """Where a generic function is declared: its file's path and text, and where its item
    starts there; for another file's function, the prefix this file names that file by
    (`std`) and how messages name the file (`shapescript/std/fit.ss`)."""

    path: str
    text: str
    base: int
    prefix: str | None = None
    shown: str | None = None


@record
class ItemFacts:
    """One top-level item: where it is, and the facts about its declaration and body."""

    item: ast.Item
    base: int
    #: The facts about its declaration, made on first use (`declaration`): most items
    #: have none, and a big file has thousands of items.
    made_declaration: Facts | None = None
    body: BodyResult | None = None

    @property
    def declaration(self) -> Facts:
        if self.made_declaration is None:
            self.made_declaration = Facts()
        return self.made_declaration

    @property
    def span(self) -> Span:
        return Span(self.base + self.item.span.start, self.base + self.item.span.end)

    def fact_tables(self) -> list[Facts]:
        tables = [self.made_declaration] if self.made_declaration is not None else []
        if self.body is not None:
            tables.append(self.body.facts)
        return tables
