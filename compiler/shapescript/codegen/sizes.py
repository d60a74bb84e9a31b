"""Sizes the checker worked out (polynomials over size symbols) as Python expressions."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import HostType
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator


class MissingSize(Exception):
    """A size symbol with no Python value where the code needs one."""


class SizeNames(Mapping[str, str]):
    """Each size symbol's Python expression in one function: its own entries over the
    module's dims, which every function shares unchanged.

    It reads as the dict `base | own` would, in that order, and a copy copies only the
    function's own entries: a file's dims grow with its length, and so does its number of
    functions, so a full table per function would cost their product.
    """

    __slots__ = ("base", "own")

    def __init__(self, base: Mapping[str, str], own: dict[str, str] | None = None) -> None:
        self.base = base
        self.own: dict[str, str] = {} if own is None else own

    def __getitem__(self, symbol: str) -> str:
        own = self.own
        if symbol in own:
            return own[symbol]
        return self.base[symbol]

    def __contains__(self, symbol: object) -> bool:
        return symbol in self.own or symbol in self.base

    def get(self, symbol: str, default: str | None = None) -> str | None:  # type: ignore[override]
        own = self.own
        if symbol in own:
            return own[symbol]
        return self.base.get(symbol, default)

    def __setitem__(self, symbol: str, python: str) -> None:
        self.own[symbol] = python

    def __iter__(self) -> Iterator[str]:
        base = self.base
        yield from base
        yield from (symbol for symbol in self.own if symbol not in base)

    def __len__(self) -> int:
        base = self.base
        return len(base) + sum(1 for symbol in self.own if symbol not in base)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SizeNames) and other.base is self.base:
            # Over one base, only the symbols either table has of its own can differ.
            return self.own == other.own or all(
                self.get(symbol) == other.get(symbol) for symbol in self.own.keys() | other.own
            )
        return Mapping.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> SizeNames:
        return SizeNames(self.base, dict(self.own))

    def update(self, entries: Mapping[str, str]) -> None:
        self.own.update(entries)


def size_expr(size: Poly, names: Mapping[str, str]) -> str:
    """Python for a size: `names` gives the Python expression of each symbol in scope."""
    value = size.value
    if value is not None:
        return str(value)
    terms = []
    for monomial, coefficient in sorted(size.terms.items(), key=lambda item: item[0]):
        factors = []
        for symbol in monomial:
            if symbol not in names:
                raise MissingSize(symbol)
            factors.append(names[symbol])
        if coefficient != 1 or not factors:
            factors.insert(0, str(coefficient))
        terms.append("*".join(factors))
    return "(" + " + ".join(terms) + ")" if len(terms) > 1 else terms[0]


def pattern_name_size(gen: FunctionGenerator, name: ast.PatternName) -> str | None:
    """The Python expression of a pattern name's size, from the type recorded for it."""
    type_ = gen.view.type(name.span)
    if isinstance(type_, HostType) and type_.size is not None:
        try:
            return size_expr(type_.size, gen.sizes)
        except MissingSize:
            return None
    return gen.sizes.get(name.name)
