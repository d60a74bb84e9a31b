"""A file's module symbols after an edit moved their items, moved only when read.

A keystroke moves every declaration below it. Moving each of their symbols (a new
`Symbol` apiece, since its span is absolute) was the biggest part of re-checking a big
file after one, and most of those symbols are never read before the next keystroke
moves them again. `PlacedSymbols` keeps the symbols where an earlier check put them and
the item each one belongs to, and gives a symbol moved to where its item is now, made
once per analysis when first read.
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import ItemsView, Iterable, Iterator, Mapping, ValuesView

from shapescript.check.declarations.symbols import Symbol
from shapescript.syntax.source import Span

#: Makes a `Span` without its Python-level `__new__`: thousands are made at once.
_new_tuple = tuple.__new__


class PlacedSymbols(Mapping[str, Symbol]):
    """Module symbols, each moved by as much as its item moved since they were found.

    `found` holds the symbols as placed when the items were at `found_bases` (a name
    declared by the item at index `i` of `owners` is moved by `bases[i] - found_bases[i]`;
    a name with no owner isn't moved); it is shared and never changed. `made` holds what
    this analysis read (moved) or wrote, which overrides `found`. Names are kept in the
    order a dict would keep them: `found`'s, then the ones written anew.
    """

    __slots__ = ("found", "owners", "found_bases", "bases", "made", "whole", "found_names")

    def __init__(
        self,
        found: Mapping[str, Symbol],
        owners: Mapping[str, int],
        found_bases: list[int],
        bases: list[int],
        made: dict[str, Symbol] | None = None,
        found_names: list[frozenset[str] | None] | None = None,
    ) -> None:
        self.found = found
        self.owners = owners
        self.found_bases = found_bases
        self.bases = bases
        self.made: dict[str, Symbol] = {} if made is None else made
        #: Whether `made` holds every symbol, in order (`_whole`).
        self.whole = False
        #: The names of `found`, once made (`names`), in a box shared by every mapping of
        #: the same `found`: a keystroke's analysis is given the one its previous made.
        self.found_names: list[frozenset[str] | None] = (
            [None] if found_names is None else found_names
        )

    def __getitem__(self, name: str) -> Symbol:
        made = self.made.get(name)
        if made is not None:
            return made
        symbol = self.found[name]
        index = self.owners.get(name)
        if index is not None:
            offset = self.bases[index] - self.found_bases[index]
            if offset:
                start, end = symbol.span
                symbol = Symbol(
                    symbol.name,
                    symbol.kind,
                    Span(start + offset, end + offset),
                    symbol.path,
                    symbol.detail,
                    symbol.doc,
                )
        self.made[name] = symbol
        return symbol

    def get(self, name: str, default: Symbol | None = None) -> Symbol | None:  # type: ignore[override]
        made = self.made.get(name)
        if made is not None:
            return made
        return self[name] if name in self.found else default

    def __contains__(self, name: object) -> bool:
        return name in self.made or name in self.found

    # A reader on another thread may add to `made` meanwhile: it is walked as a copy.

    def __iter__(self) -> Iterator[str]:
        yield from self.found
        for name in list(self.made):
            if name not in self.found:
                yield name

    def __len__(self) -> int:
        return len(self.found) + sum(1 for name in list(self.made) if name not in self.found)

    def items(self) -> ItemsView[str, Symbol]:
        return self._whole().items()

    def values(self) -> ValuesView[Symbol]:
        return self._whole().values()

    def _whole(self) -> dict[str, Symbol]:
        """Every symbol, moved, in order: made in one pass when first asked for (a reader
        of them all, as the editor's tokens are, would otherwise move each by name)."""
        made, found, owners = self.made, self.found, self.owners
        if self.whole:
            return made
        bases, found_bases = self.bases, self.found_bases
        whole: dict[str, Symbol] = {}
        for name, symbol in found.items():
            kept = made.get(name)
            if kept is None:
                index = owners.get(name)
                offset = 0 if index is None else bases[index] - found_bases[index]
                if offset:
                    start, end = symbol.span
                    kept = Symbol(
                        name,
                        symbol.kind,
                        _new_tuple(Span, (start + offset, end + offset)),
                        symbol.path,
                        symbol.detail,
                        symbol.doc,
                    )
                else:
                    kept = symbol
            whole[name] = kept
        for name, symbol in list(made.items()):
            whole.setdefault(name, symbol)
        self.made = whole
        self.whole = True
        return whole

    def __repr__(self) -> str:
        return f"PlacedSymbols({dict(self.items())!r})"

    def __setitem__(self, name: str, symbol: Symbol) -> None:
        self.made[name] = symbol

    def setdefault(self, name: str, symbol: Symbol) -> Symbol:
        found = self.get(name)
        if found is not None:
            return found
        self.made[name] = symbol
        return symbol

    def update(self, symbols: Mapping[str, Symbol] | Iterable[tuple[str, Symbol]]) -> None:
        pairs = symbols.items() if isinstance(symbols, Mapping) else symbols
        for name, symbol in pairs:
            self.made[name] = symbol

    def kinds(self) -> dict[str, str]:
        """Each name's kind, without moving a symbol (a move keeps its kind)."""
        kinds = {name: symbol.kind for name, symbol in self.found.items()}
        for name, symbol in list(self.made.items()):
            kinds[name] = symbol.kind
        return kinds

    def names(self) -> frozenset[str]:
        """The names, as a set (`keys()` is a view whose comparisons test name by name):
        those of `found`, made once for every mapping that shares it, when this one
        wrote no others."""
        found = self.found
        others = [name for name in list(self.made) if name not in found]
        box = self.found_names
        names = box[0]
        if names is None:
            names = box[0] = frozenset(found)
        return names.union(others) if others else names

    def copy(self) -> PlacedSymbols:
        """Another mapping of the same symbols, which writes apart from this one."""
        return PlacedSymbols(
            self.found,
            self.owners,
            self.found_bases,
            self.bases,
            dict(self.made),
            self.found_names,
        )

    def unqualified(self) -> PlacedSymbols:
        """The names without a `.` (those of the file itself and the names it imports
        bare), still moved as read. `found` has none with a `.`: it holds what `collect`
        declared, plain names."""
        return PlacedSymbols(
            self.found,
            self.owners,
            self.found_bases,
            self.bases,
            {name: symbol for name, symbol in list(self.made.items()) if "." not in name},
            self.found_names,
        )


class DeclaredHere:
    """The symbols a file declares, by where their names start now (`get`, as a dict's),
    found without moving every symbol: a position is taken back to where its item was when
    the symbols were found, and the symbol there is moved alone.

    Made in one pass over the symbols, reading none of them through the mapping, so a
    reader that wants a few (the editor's tokens of the items an edit changed) moves few.
    """

    __slots__ = ("placed", "found_starts", "current", "item", "low", "high")

    def __init__(self, placed: PlacedSymbols, path: str) -> None:
        self.placed = placed
        owners = placed.owners
        #: Where each moving symbol was found, for its name.
        self.found_starts: dict[int, str] = {}
        #: The symbols whose place is known now: those that don't move and those written
        #: or moved already.
        self.current: dict[int, Symbol] = {}
        for name, symbol in placed.found.items():
            if symbol.path != path:
                continue
            if name in owners:
                self.found_starts[symbol.span.start] = name
            else:
                self.current[symbol.span.start] = symbol
        for symbol in list(placed.made.values()):
            if symbol.path == path:
                self.current[symbol.span.start] = symbol
        #: The item last asked about (its index and where it starts and ends now).
        self.item, self.low, self.high = -1, 0, -1

    def get(self, start: int, default: Symbol | None = None) -> Symbol | None:
        symbol = self.current.get(start)
        if symbol is not None:
            return symbol
        if not self.low <= start < self.high:
            self._item_at(start)
        if self.item < 0:
            return default
        placed = self.placed
        offset = placed.bases[self.item] - placed.found_bases[self.item]
        name = self.found_starts.get(start - offset)
        if name is None:
            return default
        symbol = placed.get(name)
        return symbol if symbol is not None and symbol.span.start == start else default

    def _item_at(self, start: int) -> None:
        bases = self.placed.bases
        index = bisect.bisect_right(bases, start) - 1
        self.item = index
        if index >= 0:
            self.low = bases[index]
            self.high = bases[index + 1] if index + 1 < len(bases) else sys.maxsize


class ItemBases(Mapping[str, int]):
    """Where the item that declared each name starts now (`bases[owners[name]]`), looked
    up when read: a keystroke moves every item below it, and a table of every function's
    base rewritten per keystroke is mostly never read."""

    __slots__ = ("owners", "bases")

    def __init__(self, owners: Mapping[str, int], bases: list[int]) -> None:
        self.owners = owners
        self.bases = bases

    def __getitem__(self, name: str) -> int:
        return self.bases[self.owners[name]]

    def get(self, name: str, default: int | None = None) -> int | None:  # type: ignore[override]
        index = self.owners.get(name)
        return default if index is None else self.bases[index]

    def __contains__(self, name: object) -> bool:
        return name in self.owners

    def __iter__(self) -> Iterator[str]:
        return iter(self.owners)

    def __len__(self) -> int:
        return len(self.owners)

    def __repr__(self) -> str:
        return f"ItemBases({dict(self)!r})"
