"""What the padding analysis found in each function, kept for the next version of the file.

A keystroke changes one function; H2001 and H3101 depend on a function's own body and on
those it calls. So a check for diagnostics keeps, for each function with loops over
batches or that is a step, those findings, with spans counted from the start of the
function they are in; the next check takes them again for every function that neither
changed nor calls, directly or through others, one that changed. The work of a keystroke
is in the functions it reaches: the functions are compared with the previous ones in one
pass by identity (`names_of`); the previous tables are taken over, shared or copied whole
(the small ones), then patched; and only the loops and the steps with blockers are moved
to where their functions now are.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Collection, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from shapescript.records import field, record, replace
from shapescript.syntax import ast
from shapescript.syntax.source import Span

if TYPE_CHECKING:
    from shapescript.check.analyses.padding import Blocker, _Analysis
    from shapescript.check.declarations.symbols import ItemFacts

#: A blocker as kept: the function it is in, and its span counted from that function's.
Kept = tuple[str, Span, "Blocker"]
#: A loop as kept: its span from its function's start, its blocker, its mask's symbol.
KeptLoop = tuple[Span, "Kept | None", "str | None"]


@record
class Found:
    """One function's findings: its loops over batches and, for a step, its blocker."""

    loops: list[KeptLoop] | None
    step: bool = False
    blocker: Kept | None = None


@record
class Names:
    """The file's functions and extern fns as one analysis looks them up: each function's
    declaration and body check in the file's order (`decls`, `bodies`, aligned with the
    function items the analysis is given), the position of the first function of each
    name (`index`), and the extern fns by name with their declarations in order."""

    decls: list[object]
    bodies: list[object]
    index: dict[str, int]
    extern_decls: list[object]
    externs: dict[str, ast.ExternFnDecl]


class Functions(Mapping[str, "ItemFacts"]):
    """The file's functions by name: the first function item of each name, looked up
    through `positions` (a name's position) in `in_order`, the items of this version."""

    __slots__ = ("positions", "in_order")

    def __init__(self, positions: dict[str, int], in_order: list[ItemFacts]) -> None:
        self.positions = positions
        self.in_order = in_order

    def __getitem__(self, name: str) -> ItemFacts:
        return self.in_order[self.positions[name]]

    def get(self, name: str, default: Any = None) -> Any:
        at = self.positions.get(name)
        return default if at is None else self.in_order[at]

    def __contains__(self, name: object) -> bool:
        return name in self.positions

    def __iter__(self) -> Iterator[str]:
        return iter(self.positions)

    def __len__(self) -> int:
        return len(self.positions)

    def items(self) -> Iterator[tuple[str, ItemFacts]]:  # type: ignore[override]
        """Each name with its function, made without a Python loop."""
        return zip(
            self.positions, map(self.in_order.__getitem__, self.positions.values()), strict=True
        )


_NOTHING: frozenset[str] = frozenset()


@record
class Links:
    """A table of names to names (`refs` or `callers`) shared by the versions of a file:
    the table of an earlier version (`base`, never changed) and what changed since
    (`changes`, an empty set for a name gone). A keystroke copies the few changes, not
    the file's table; the changes are folded into a new base once they are many."""

    base: dict[str, frozenset[str]]
    changes: dict[str, frozenset[str]] = field(default_factory=dict)

    def get(self, name: str) -> frozenset[str]:
        found = self.changes.get(name)
        if found is None:
            found = self.base.get(name, _NOTHING)
        return found

    def changed(self, changes: dict[str, frozenset[str]]) -> Links:
        """The table with `changes` too."""
        now = self.changes | changes
        if len(now) <= 64 + len(self.base) // 8:
            return Links(self.base, now)
        base = self.base | now
        for name, value in now.items():
            if not value:
                del base[name]
        return Links(base)


@record
class Memo:
    """The findings of a check for diagnostics, with what they were found from: the
    functions and extern fns (`names`), the file's context (see `context`), and which
    names each function's body uses (`refs`) with, the other way round, which functions
    use each name (`callers`)."""

    names: Names
    context: tuple[object, ...]
    #: The findings of the functions with loops or that are steps; every other function
    #: found nothing.
    found: dict[str, Found] = field(default_factory=dict)
    refs: Links | None = None
    callers: Links | None = None
    #: The functions whose findings couldn't be kept (a blocker in another file's
    #: function): found again every time.
    unkept: frozenset[str] = frozenset()
    #: Each step with its blocker, as the facts have them (absolute): copied whole by
    #: the next check, which moves only those in `blocked`.
    steps: dict[str, Blocker | None] = field(default_factory=dict)
    blocked: frozenset[str] = frozenset()


@record
class Reused:
    """What a check takes again from the previous one: the findings `found` of the
    functions with loops or steps that neither changed nor reach one that did (still
    to be moved to where their functions now are), the functions to look at afresh
    (`again`, in no order; None: every one), the `refs` and `callers` of `Memo` for this
    version, and the previous steps without those looked at again (`steps`, with the
    ones in `blocked` still to be moved)."""

    found: dict[str, Found]
    again: set[str] | None
    refs: Links | None
    callers: Links | None
    steps: dict[str, Blocker | None] = field(default_factory=dict)
    blocked: frozenset[str] = frozenset()


_ITEM = operator.attrgetter("item")
_BODY = operator.attrgetter("body")


def names_of(
    kinds: tuple[list[ItemFacts], list[ItemFacts]],
    memo: object,
    replaced: Collection[int] | None = None,
) -> tuple[Names, set[str] | None]:
    """This version's `Names`, with the functions and extern fns that changed since the
    previous check's (`memo`): their names, before and after (None: no previous).

    When the file has as many functions as before, they are compared side by side by
    identity, in one pass without a Python loop: each body, and each declaration but
    where the caller knows which were `replaced` (their positions among the functions,
    every other one being the previous check's own). Where nothing changed, the previous
    `Names` is this version's too; else its lists are copied and patched (never
    changed in place: the previous check's result may still be read, and another check
    may start from it again once this one is cancelled). Called under `_ANALYSING`."""
    functions, extern_items = kinds
    old = memo.names if isinstance(memo, Memo) else None
    if old is None:
        return _names(functions, extern_items), None
    changed: set[str] = set()
    decls, bodies, index = old.decls, old.bodies, old.index
    if len(functions) == len(decls):
        bodies_differ = map(operator.is_not, map(_BODY, functions), bodies)
        if replaced is None:
            differs = map(
                operator.or_, map(operator.is_not, map(_ITEM, functions), decls), bodies_differ
            )
            positions = list(itertools.compress(range(len(functions)), differs))
        else:
            positions = sorted(
                set(itertools.compress(range(len(functions)), bodies_differ)).union(replaced)
            )
        renamed = False
        if positions:
            decls, bodies = decls.copy(), bodies.copy()
        for at in positions:
            # Every item given is a function's (the caller sorted them so).
            item = functions[at]
            before: Any = decls[at]
            decl: Any = item.item
            decls[at], bodies[at] = decl, item.body
            changed.add(before.name)
            changed.add(decl.name)
            renamed = renamed or before.name != decl.name
        if renamed:
            index = _index(decls)
    else:
        decls, bodies = list(map(_ITEM, functions)), list(map(_BODY, functions))
        index = _index(decls)
        changed = _changed_by_name(old, decls, bodies, index)
    extern_decls, externs = old.extern_decls, old.externs
    if len(extern_items) != len(extern_decls) or any(
        map(operator.is_not, map(_ITEM, extern_items), extern_decls)
    ):
        extern_decls = list(map(_ITEM, extern_items))
        externs = _externs(extern_decls)
        changed.update(name for name, decl in externs.items() if old.externs.get(name) is not decl)
        changed.update(old.externs.keys() - externs.keys())
    if not changed and decls is old.decls and extern_decls is old.extern_decls:
        return old, changed
    return Names(decls, bodies, index, extern_decls, externs), changed


def _names(functions: list[ItemFacts], extern_items: list[ItemFacts]) -> Names:
    decls = list(map(_ITEM, functions))
    extern_decls = list(map(_ITEM, extern_items))
    return Names(
        decls, list(map(_BODY, functions)), _index(decls), extern_decls, _externs(extern_decls)
    )


def _index(decls: list[object]) -> dict[str, int]:
    """The position of the first function of each name."""
    index: dict[str, int] = {}
    for at, decl in enumerate(decls):
        # The type() test holds (the caller sorted the items so): it narrows for mypy.
        if type(decl) is ast.FnDecl and decl.name not in index:
            index[decl.name] = at
    return index


def _externs(decls: list[object]) -> dict[str, ast.ExternFnDecl]:
    """The extern fns by name, the last of a name winning."""
    return {decl.name: decl for decl in decls if type(decl) is ast.ExternFnDecl}


def _changed_by_name(old: Names, decls: list, bodies: list, index: dict[str, int]) -> set[str]:
    """The functions whose declaration or body differs from `old`'s by name, or that only
    one of the versions has (when functions were added or removed)."""
    changed = {
        name
        for name, at in index.items()
        if (before := old.index.get(name)) is None
        or old.decls[before] is not decls[at]
        or old.bodies[before] is not bodies[at]
    }
    changed.update(old.index.keys() - index.keys())
    return changed


def context(analysis: _Analysis) -> tuple[object, ...]:
    """What every finding depends on: the file's dims, devices and imports."""
    imports = analysis.imports
    key = None if imports is None else getattr(imports, "key", object())
    return (analysis.dims, analysis.several, key)


def unaffected(analysis: _Analysis, memo: Any, changed: set[str] | None) -> Reused:
    """The previous findings of the functions that neither changed nor reach one that did
    (`changed`, from `names_of`), with the functions to look at again and this version's
    `refs` and `callers`. The work is in the functions that changed and those that reach
    them: the previous findings and steps are copied whole, `refs` and `callers` shared."""
    if changed is None or not isinstance(memo, Memo) or memo.context != context(analysis):
        # Nothing to take again; the names are found when an edit first needs them.
        return Reused({}, None, None, None)
    refs, callers = memo.refs, memo.callers
    affected = set(changed)
    if changed:
        if refs is None or callers is None:
            # Found for the functions as they are now: those that changed are counted
            # below as new, with nothing used before.
            refs, callers = _links(analysis, changed)
        new_refs: dict[str, frozenset[str]] = {}
        new_callers: dict[str, frozenset[str]] = {}
        for name in changed:
            item = analysis.functions.get(name)
            used = analysis.referenced(item) if item is not None else _NOTHING
            old_used = refs.get(name)
            if used == old_used:
                continue
            new_refs[name] = used
            for callee in old_used - used:
                before = new_callers.get(callee)
                new_callers[callee] = (callers.get(callee) if before is None else before) - {name}
            for callee in used - old_used:
                before = new_callers.get(callee)
                new_callers[callee] = (callers.get(callee) if before is None else before) | {name}
        if new_refs:
            refs, callers = refs.changed(new_refs), callers.changed(new_callers)
        stack = list(changed)
        while stack:
            for caller in callers.get(stack.pop()):
                if caller not in affected:
                    affected.add(caller)
                    stack.append(caller)
    again = affected | memo.unkept
    found = dict(memo.found)
    steps = dict(memo.steps)
    for name in again:
        found.pop(name, None)
        steps.pop(name, None)
    functions = analysis.functions
    return Reused(
        found,
        {name for name in again if name in functions},
        refs,
        callers,
        steps,
        memo.blocked - again,
    )


def _links(analysis: _Analysis, leaving_out: set[str]) -> tuple[Links, Links]:
    """The names each function's body uses, and the functions that use each name, for
    every function but those `leaving_out`."""
    refs = {
        name: analysis.referenced(item)
        for name, item in analysis.functions.items()
        if name not in leaving_out
    }
    callers: dict[str, set[str]] = {}
    for name, used in refs.items():
        for callee in used:
            callers.setdefault(callee, set()).add(name)
    return Links(refs), Links({name: frozenset(found) for name, found in callers.items()})


def relative(analysis: _Analysis, blocker: Blocker | None) -> Kept | None:
    """A blocker kept with its span counted from its function's start; `Elsewhere` for
    one in another file's function, whose finding isn't kept."""
    if blocker is None:
        return None
    item = analysis.functions.get(blocker.function)
    if item is None:
        raise Elsewhere
    base = item.base
    return (blocker.function, Span(blocker.span.start - base, blocker.span.end - base), blocker)


def rebased(analysis: _Analysis, kept: Kept | None) -> Blocker | None:
    """A kept blocker where its function now is."""
    if kept is None:
        return None
    function, span, blocker = kept
    base = analysis.functions[function].base
    return replace(blocker, span=Span(span.start + base, span.end + base))


def relative_loops(analysis: _Analysis, item: Any, loops: list) -> list[KeptLoop] | None:
    """A function's loops kept relative to it; None when one's blocker is in another file."""
    base = item.base
    try:
        return [
            (Span(span.start - base, span.end - base), relative(analysis, blocker), symbol)
            for span, blocker, symbol in loops
        ]
    except Elsewhere:
        return None


class Elsewhere(Exception):
    """A blocker in another file's function, which isn't kept."""
