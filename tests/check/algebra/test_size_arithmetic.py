"""Size arithmetic's shortcuts (constant factors, substitution without a Poly per step)
give what the plain term-by-term definitions give, overflow (E0414's SizeOverflow)
included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shapescript.check.algebra.sizes import LIMIT, Poly, SizeOverflow

NAMES = ["a", "b", "c", "$n.1", "?k"]
COEFFICIENTS = st.sampled_from([1, -1, 2, 3, 7, 2**60, -(2**63), 2**126, -(2**127) + 1])


def _checked(value: int) -> int:
    if not -LIMIT <= value < LIMIT:
        raise SizeOverflow(value)
    return value


def reference_multiply(left: dict, right: dict) -> dict:
    terms: dict = {}
    for m1, c1 in left.items():
        for m2, c2 in right.items():
            monomial = tuple(sorted(m1 + m2))
            terms[monomial] = _checked(terms.get(monomial, 0) + _checked(c1 * c2))
    return {m: c for m, c in terms.items() if c}


def reference_substitute(terms: dict, values: dict[str, Poly]) -> dict:
    result: dict = {}
    for monomial, coefficient in terms.items():
        term = {(): coefficient}
        for name in monomial:
            found = values.get(name)
            term = reference_multiply(term, found.terms if found is not None else {(name,): 1})
        for m, c in term.items():
            result[m] = _checked(result.get(m, 0) + c)
        result = {m: c for m, c in result.items() if c}
    return result


polys = st.dictionaries(
    st.lists(st.sampled_from(NAMES), max_size=3).map(lambda names: tuple(sorted(names))),
    COEFFICIENTS,
    max_size=4,
).map(Poly)


def outcome(make):
    try:
        return ("ok", make())
    except SizeOverflow:
        return ("overflow",)


@settings(max_examples=400, deadline=None)
@given(polys, polys)
def test_products_are_the_term_by_term_products(left: Poly, right: Poly) -> None:
    expected = outcome(lambda: reference_multiply(left.terms, right.terms))
    assert outcome(lambda: (left * right).terms) == expected
    assert outcome(lambda: (right * left).terms) == outcome(
        lambda: reference_multiply(right.terms, left.terms)
    )


@settings(max_examples=400, deadline=None)
@given(polys, st.dictionaries(st.sampled_from(NAMES), polys, max_size=3))
def test_substitution_is_the_term_by_term_substitution(size: Poly, values) -> None:
    expected = outcome(lambda: reference_substitute(size.terms, values))
    found = outcome(lambda: size.substitute(values).terms)
    assert found == expected
    if found[0] == "ok":
        # Same terms in the same order: what reads them first sees the same term.
        assert list(found[1]) == list(expected[1])


@settings(max_examples=200, deadline=None)
@given(polys, polys)
def test_sums_are_the_term_by_term_sums(left: Poly, right: Poly) -> None:
    def reference() -> dict:
        terms = dict(left.terms)
        for monomial, coefficient in right.terms.items():
            terms[monomial] = _checked(terms.get(monomial, 0) + coefficient)
        return {m: c for m, c in terms.items() if c}

    assert outcome(lambda: (left + right).terms) == outcome(reference)


@settings(max_examples=200, deadline=None)
@given(polys, polys)
def test_differences_are_sums_of_the_negation(left: Poly, right: Poly) -> None:
    def reference() -> dict:
        terms = dict(left.terms)
        for monomial, coefficient in right.terms.items():
            terms[monomial] = _checked(terms.get(monomial, 0) - coefficient)
        return {m: c for m, c in terms.items() if c}

    assert outcome(lambda: (left - right).terms) == outcome(reference)
    assert (left - left).terms == {}


@settings(max_examples=300, deadline=None)
@given(polys)
def test_sizes_print_as_their_terms_in_order(size: Poly) -> None:
    def reference() -> str:
        if not size.terms:
            return "0"
        ordered = sorted(
            size.terms.items(), key=lambda item: (-len(item[0]), item[0]) if item[0] else (1, ())
        )
        parts = []
        for index, (monomial, coefficient) in enumerate(ordered):
            factors = [
                name[1:].split(".", 1)[0] if name.startswith("$") else name for name in monomial
            ]
            if abs(coefficient) != 1 or not factors:
                factors.insert(0, str(abs(coefficient)))
            text = "*".join(factors)
            if index == 0:
                parts.append(f"-{text}" if coefficient < 0 else text)
            else:
                parts.append(f" - {text}" if coefficient < 0 else f" + {text}")
        return "".join(parts)

    assert str(size) == reference()
