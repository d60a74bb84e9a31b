"""Sizes as polynomials with integer coefficients over size symbols, in a normal form.

A monomial is a sorted tuple of symbol names (a symbol appears once per power), and a
polynomial maps monomials to non-zero coefficients, so equal sizes are equal however
they were written: `3*H*Dh` and `3*Dh*H` are the same `Poly`.

Symbol names carry their kind: dims and generic axes are plain names (`D`, `n`),
unknown sizes start with `?` (`?k`), and the solver's variables with `$` (`$n.3`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

Monomial = tuple[str, ...]

LIMIT = 2**127


class SizeOverflow(ArithmeticError):
    """A size, or a step in working one out, doesn't fit in 128 bits (E0414)."""


class InexactDivision(ArithmeticError):
    """A division of sizes that doesn't come out whole (E0402)."""


def _checked(value: int) -> int:
    if not -LIMIT <= value < LIMIT:
        raise SizeOverflow(value)
    return value


#: `Poly.symbol`'s sizes by name, emptied when it reaches `_SYMBOLS_KEPT` names, so that
#: a long-running language server keeps a bounded number.
_SYMBOLS: dict[str, Poly] = {}
_SYMBOLS_KEPT = 65536


class Poly:
    """An immutable polynomial size. Build with `Poly.const`, `Poly.symbol` and operators."""

    __slots__ = ("terms", "_hash")

    def __init__(self, terms: Mapping[Monomial, int]) -> None:
        if 0 in terms.values():
            self.terms: dict[Monomial, int] = {m: c for m, c in terms.items() if c != 0}
        else:
            self.terms = dict(terms)
        self._hash: int | None = None

    def __reduce__(self) -> tuple[type[Poly], tuple[dict[Monomial, int]]]:
        """Pickle the terms only: the cached hash of strings differs between processes."""
        return (Poly, (self.terms,))

    # ---------------------------------------------------------------- construction

    @staticmethod
    def _of(terms: dict[Monomial, int]) -> Poly:
        """A Poly of terms that already have no zero coefficient, without copying them."""
        made = object.__new__(Poly)
        made.terms = terms
        made._hash = None
        return made

    @staticmethod
    def const(value: int) -> Poly:
        return Poly._of({(): _checked(value)}) if value else ZERO

    @staticmethod
    def symbol(name: str) -> Poly:
        """The size of one symbol; the same object for the same name, since a Poly never
        changes and a big file's types name the same few axes hundreds of thousands of
        times (a new one each time was a tenth of a check's memory)."""
        made = _SYMBOLS.get(name)
        if made is None:
            made = Poly._of({(name,): 1})
            if len(_SYMBOLS) >= _SYMBOLS_KEPT:
                _SYMBOLS.clear()
            _SYMBOLS[name] = made
        return made

    # ---------------------------------------------------------------- queries

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Poly) and self.terms == other.terms

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self.terms.items()))
        return self._hash

    @property
    def is_const(self) -> bool:
        return not self.terms or (len(self.terms) == 1 and () in self.terms)

    @property
    def value(self) -> int | None:
        """The number this size is, when it has no symbols."""
        if not self.terms:
            return 0
        if len(self.terms) == 1 and () in self.terms:
            return self.terms[()]
        return None

    def symbols(self) -> set[str]:
        return {name for monomial in self.terms for name in monomial}

    def single_symbol(self) -> str | None:
        """The symbol when this size is exactly one symbol (`n`, not `2*n` or `n+1`)."""
        if len(self.terms) == 1:
            ((monomial, coefficient),) = self.terms.items()
            if coefficient == 1 and len(monomial) == 1:
                return monomial[0]
        return None

    # ---------------------------------------------------------------- arithmetic

    def __add__(self, other: Poly | int) -> Poly:
        if type(other) is not Poly:
            other = _as_poly(other)
        if not other.terms:
            return self
        terms = dict(self.terms)
        get = terms.get
        for monomial, coefficient in other.terms.items():
            value = get(monomial, 0) + coefficient
            if not -LIMIT <= value < LIMIT:
                raise SizeOverflow(value)
            terms[monomial] = value
        if 0 in terms.values():
            terms = {m: c for m, c in terms.items() if c != 0}
        return Poly._of(terms)

    __radd__ = __add__

    def __neg__(self) -> Poly:
        return Poly._of({m: -c for m, c in self.terms.items()})

    def __sub__(self, other: Poly | int) -> Poly:
        if other.__class__ is Poly and other.terms == self.terms:
            return ZERO
        return self + (-_as_poly(other))

    def __rsub__(self, other: Poly | int) -> Poly:
        return _as_poly(other) - self

    def __mul__(self, other: Poly | int) -> Poly:
        if type(other) is not Poly:
            other = _as_poly(other)
        if len(other.terms) == 1 and () in other.terms:
            return self._scaled(other.terms[()])
        if len(self.terms) == 1 and () in self.terms:
            return other._scaled(self.terms[()])
        terms: dict[Monomial, int] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                monomial = tuple(sorted(m1 + m2)) if m1 and m2 else (m1 or m2)
                terms[monomial] = _checked(terms.get(monomial, 0) + _checked(c1 * c2))
        return Poly(terms)

    __rmul__ = __mul__

    def _scaled(self, factor: int) -> Poly:
        """Each coefficient times a non-zero number."""
        terms = {}
        for monomial, coefficient in self.terms.items():
            value = coefficient * factor
            if not -LIMIT <= value < LIMIT:
                raise SizeOverflow(value)
            terms[monomial] = value
        return Poly._of(terms)

    def divide_exact(self, divisor: Poly) -> Poly:
        """Exact division by a single term that divides every term, else InexactDivision."""
        if len(divisor.terms) != 1:
            raise InexactDivision(self, divisor)
        ((d_monomial, d_coefficient),) = divisor.terms.items()
        if d_coefficient == 0:
            raise InexactDivision(self, divisor)
        terms: dict[Monomial, int] = {}
        for monomial, coefficient in self.terms.items():
            rest = _remove_factors(monomial, d_monomial)
            if rest is None or coefficient % d_coefficient != 0:
                raise InexactDivision(self, divisor)
            terms[rest] = coefficient // d_coefficient
        return Poly(terms)

    def substitute(self, values: Mapping[str, Poly]) -> Poly:
        """Replace symbols by sizes (dims by their values, solver variables by solutions)."""
        if not values:
            return self
        terms = self.terms
        if len(terms) == 1:
            # The common sizes: a number stays as it is, and one symbol is its value (a Poly
            # is never changed, so the value itself is the result).
            ((monomial, coefficient),) = terms.items()
            if not monomial:
                return self
            if coefficient == 1 and len(monomial) == 1:
                found = values.get(monomial[0])
                return self if found is None else found
        for monomial in terms:
            for name in monomial:
                if name in values:
                    break
            else:
                continue
            break
        else:
            return self
        # As `sum(coefficient * product(value or symbol))` term by term, without making a
        # Poly for each step: the names left as they are join each monomial at the end,
        # which changes neither which terms merge nor the order they come in.
        result: dict[Monomial, int] = {}
        get = result.get
        for monomial, coefficient in self.terms.items():
            if len(monomial) < 2:
                # A number or one symbol, the most common terms: its value's terms times
                # the coefficient, added in their order (as the steps below would).
                found = values.get(monomial[0]) if monomial else None
                if found is None:
                    result[monomial] = _checked(get(monomial, 0) + coefficient)
                else:
                    for found_monomial, found_coefficient in found.terms.items():
                        result[found_monomial] = _checked(
                            get(found_monomial, 0) + _checked(coefficient * found_coefficient)
                        )
                if 0 in result.values():
                    result = {m: c for m, c in result.items() if c != 0}
                    get = result.get
                continue
            partial: dict[Monomial, int] = {(): coefficient}
            kept: list[str] = []
            for name in monomial:
                found = values.get(name)
                if found is None:
                    kept.append(name)
                    continue
                found_terms = found.terms
                if len(found_terms) == 1 and () in found_terms:
                    # A number (a dim's value): each coefficient times it.
                    factor = found_terms[()]
                    partial = {m: _checked(c * factor) for m, c in partial.items()}
                    continue
                product_terms: dict[Monomial, int] = {}
                for m1, c1 in partial.items():
                    for m2, c2 in found.terms.items():
                        merged = tuple(sorted(m1 + m2)) if m1 and m2 else (m1 or m2)
                        product_terms[merged] = _checked(
                            product_terms.get(merged, 0) + _checked(c1 * c2)
                        )
                if 0 in product_terms.values():
                    product_terms = {m: c for m, c in product_terms.items() if c != 0}
                partial = product_terms
            extra = tuple(kept)
            for partial_monomial, value in partial.items():
                if extra:
                    partial_monomial = (
                        tuple(sorted(partial_monomial + extra)) if partial_monomial else extra
                    )
                result[partial_monomial] = _checked(get(partial_monomial, 0) + value)
            if 0 in result.values():
                result = {m: c for m, c in result.items() if c != 0}
                get = result.get
        return Poly._of(result)

    def linear_in(self, name: str) -> tuple[Poly, Poly] | None:
        """Write self as `a*name + b` with `name` in neither a nor b, or None if not linear."""
        a_terms: dict[Monomial, int] = {}
        b_terms: dict[Monomial, int] = {}
        for monomial, coefficient in self.terms.items():
            count = monomial.count(name)
            if count > 1:
                return None
            if count == 1:
                rest = list(monomial)
                rest.remove(name)
                a_terms[tuple(rest)] = coefficient
            else:
                b_terms[monomial] = coefficient
        return Poly(a_terms), Poly(b_terms)

    # ---------------------------------------------------------------- printing

    def __repr__(self) -> str:
        return f"Poly({format_size(self)!r})"

    def __str__(self) -> str:
        return format_size(self)


def _as_poly(value: Poly | int) -> Poly:
    return value if isinstance(value, Poly) else Poly.const(value)


def _remove_factors(monomial: Monomial, factors: Monomial) -> Monomial | None:
    rest = list(monomial)
    for factor in factors:
        if factor not in rest:
            return None
        rest.remove(factor)
    return tuple(rest)


ZERO = Poly._of({})
ONE = Poly._of({(): 1})


def _display_name(name: str) -> str:
    """Solver variables print as the generic they stand for: `$n.3` is `n`."""
    if name.startswith("$"):
        return name[1:].split(".", 1)[0]
    return name


def _term_order(item: tuple[Monomial, int]) -> tuple[int, Monomial]:
    monomial, _ = item
    return (-len(monomial), monomial) if monomial else (1, monomial)


def format_size(size: Poly) -> str:
    """A size as the reference prints it: `D`, `3*D`, `n - 1`, `gh*gw`, `196`."""
    terms = size.terms
    if not terms:
        return "0"
    if len(terms) == 1:
        # The common sizes: a number, or one symbol.
        ((monomial, coefficient),) = terms.items()
        if not monomial:
            return str(coefficient)
        if coefficient == 1 and len(monomial) == 1:
            return _display_name(monomial[0])
    parts: list[str] = []
    for index, (monomial, coefficient) in enumerate(sorted(size.terms.items(), key=_term_order)):
        magnitude = abs(coefficient)
        factors = [_display_name(name) for name in monomial]
        if magnitude != 1 or not factors:
            factors.insert(0, str(magnitude))
        text = "*".join(factors)
        if index == 0:
            parts.append(f"-{text}" if coefficient < 0 else text)
        else:
            parts.append(f" - {text}" if coefficient < 0 else f" + {text}")
    return "".join(parts)


def product(sizes: Iterable[Poly]) -> Poly:
    result = ONE
    for size in sizes:
        result = result * size
    return result
