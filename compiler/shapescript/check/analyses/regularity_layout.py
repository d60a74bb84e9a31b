"""Where a file's functions are among its item facts, kept from one analysis to the next.

A keystroke inside one function's body leaves every other item the same object (the
parser reuses the items of unchanged chunks), so the previous analysis's table of the
functions by name is taken whole and only the positions whose declaration is a new
object are looked at. Bases are read from the item facts when a step is placed, never
copied into a table per analysis: an edit moves every item after it.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Collection, Iterator, Mapping, Sequence
from itertools import compress
from operator import attrgetter, is_not

from shapescript.records import record
from shapescript.syntax import ast

_DECLARATION = attrgetter("item")


def changed_positions(old: Sequence, new: Sequence) -> list[int] | None:
    """The positions where two aligned lists hold different objects, in order; None when
    their lengths differ (they don't align)."""
    if len(old) != len(new):
        return None
    return list(compress(range(len(new)), map(is_not, old, new)))


@record
class Layout:
    """Each item's declaration, in order; the positions of the functions with bodies by
    name (a name's overloads in order); and those names."""

    decls: list
    positions: dict[str, list[int]]
    names: frozenset[str]


def layout_of(items: Sequence, previous: Layout | None) -> tuple[Layout, list[int] | None]:
    """The layout of `items` (item facts), and the positions whose declaration isn't the
    one `previous` had there (None when made afresh, as without `previous` or when the
    items don't align with its). An item whose declaration is the same object as
    `previous`'s at its position is taken to be the same function with a body or not."""
    decls = list(map(_DECLARATION, items))
    changed = changed_positions(previous.decls, decls) if previous is not None else None
    if previous is None or changed is None:
        return _fresh(items, decls), None
    positions, names = previous.positions, previous.names
    moved = [
        index
        for index in changed
        if _was_function(previous, index) != _function_name(decls[index], items[index])
    ]
    if moved:
        positions = dict(positions)
        for index in moved:
            old = _was_function(previous, index)
            if old is not None:
                kept = [at for at in positions[old] if at != index]
                if kept:
                    positions[old] = kept
                else:
                    del positions[old]
            new = _function_name(decls[index], items[index])
            if new is not None:
                found = list(positions.get(new, ()))
                insort(found, index)
                positions[new] = found
        if positions.keys() != names:
            names = frozenset(positions)
    return Layout(decls, positions, names), changed


def _fresh(items: Sequence, decls: list) -> Layout:
    positions: dict[str, list[int]] = {}
    # Run over every item of a big file when nothing can be kept: one list made per name.
    function_class = ast.FnDecl
    for index, (decl, item) in enumerate(zip(decls, items, strict=True)):
        if decl.__class__ is function_class and item.body is not None:
            same = positions.get(decl.name)
            if same is None:
                positions[decl.name] = [index]
            else:
                same.append(index)
    return Layout(decls, positions, frozenset(positions))


def _function_name(decl, item) -> str | None:
    """The name of a function with a body, else None."""
    if decl.__class__ is ast.FnDecl and item.body is not None:
        return decl.name
    return None


def _was_function(layout: Layout, index: int) -> str | None:
    """The name of the function with a body `layout` had at `index`, else None."""
    decl = layout.decls[index]
    if decl.__class__ is ast.FnDecl and index in layout.positions.get(decl.name, ()):
        return decl.name
    return None


def owner_of(name: str, overload: int) -> str:
    """How steps name the function: its name, with `#k` for the k-th overload after the first."""
    return name if overload == 0 else f"{name}#{overload}"


class Bases(Mapping):
    """Where each analysed function's item starts, by owner (see `owner_of`), read from the
    item facts when asked."""

    __slots__ = ("items", "positions", "analysed")

    def __init__(
        self, items: Sequence, positions: Mapping[str, list[int]], analysed: Collection[str]
    ) -> None:
        self.items = items
        self.positions = positions
        self.analysed = analysed

    def __getitem__(self, owner: str) -> int:
        name, _, overload = owner.partition("#")
        if name not in self.analysed:
            raise KeyError(owner)
        found = self.positions[name]
        index = int(overload) if overload else 0
        if index >= len(found):
            raise KeyError(owner)
        return self.items[found[index]].base

    def __iter__(self) -> Iterator[str]:
        for name in self.analysed:
            for overload in range(len(self.positions[name])):
                yield owner_of(name, overload)

    def __len__(self) -> int:
        return sum(len(self.positions[name]) for name in self.analysed)
