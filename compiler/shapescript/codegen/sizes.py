"""Sizes the checker worked out (polynomials over size symbols) as Python expressions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from shapescript.check.algebra.sizes import Poly
from shapescript.check.algebra.types import HostType
from shapescript.syntax import ast

if TYPE_CHECKING:
    from shapescript.codegen.function import FunctionGenerator


class MissingSize(Exception):
    """A size symbol with no Python value where the code needs one."""


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
