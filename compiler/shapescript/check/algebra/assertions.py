"""Static asserts: relations between sizes, decided for every value they can take.

A relation compares two sizes (polynomials in dims and generic sizes). Dims are replaced
by their values; a generic size is taken to be at least 1 and an unknown one (`?k`, `$v`)
at least 0. A relation is proved when it holds for every such value, refuted when it
fails for every one, and undecided otherwise. The proofs are sufficient, not complete:
a polynomial is shown to be at least 0 when, after writing each generic `n` as `n' + 1`,
every coefficient is at least 0 (a fact `p >= 0` from an earlier assert may be taken
away from it first). An undecided relation is checked at run time.

Divisibility, `a % b == 0` (the relation `%`), is proved when `b` is a single term that
divides every term of `a` (after dims are replaced: `D % H == 0` with their values, or
`(2*n + 4) % 2 == 0`), when a constant `b` divides `a` at every residue of its symbols
(`(n*n + n) % 2 == 0`), or when it follows in one step from earlier facts: an equality
`a' == c` lets `a` be changed by `a' - c` (`D == h*k` proves `D % h == 0`), and an earlier
`a' % b' == 0` proves it for `a` a multiple of `a'` when `b` divides `b'`, or when
`a - a'` is a multiple of `b`. It is refuted when `b` is a constant and no residue of the
symbols makes `a` a multiple of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from shapescript.check.algebra.sizes import InexactDivision, Poly, SizeOverflow, format_size
from shapescript.records import record

#: The comparisons an assert may make, and the one each turns into when its sides swap.
SWAPPED = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
#: What each comparison becomes when it fails.
NEGATED = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}

#: The relation `left % right == 0`: `right` divides `left`.
DIVIDES = "%"
#: The most assignments of residues tried to decide divisibility by a constant.
RESIDUE_LIMIT = 4096

PROVED = "proved"
REFUTED = "refuted"
RUNTIME = "runtime"


@record(frozen=True)
class Relation:
    """`left op right` over sizes."""

    op: str
    left: Poly
    right: Poly

    def substitute(self, values: Mapping[str, Poly]) -> Relation:
        return Relation(self.op, self.left.substitute(values), self.right.substitute(values))

    def __str__(self) -> str:
        if self.op == DIVIDES:
            left, right = format_size(self.left), format_size(self.right)
            if len(self.left.terms) > 1:
                left = f"({left})"
            if not (self.right.single_symbol() or self.right.is_const) or right.startswith("-"):
                right = f"({right})"
            return f"{left} % {right} == 0"
        return f"{format_size(self.left)} {self.op} {format_size(self.right)}"


@record(frozen=True)
class Verdict:
    """What the checker decided about one assert: `kind` is PROVED, REFUTED or RUNTIME;
    `detail` says why (the counterexample of a refuted one)."""

    kind: str
    detail: str = ""


def _is_free(name: str) -> bool:
    return not name.startswith("?") and not name.startswith("$")


def _shifted(size: Poly) -> Poly:
    """`size` with each generic `n` written as `n + 1`, so every symbol ranges over n >= 0."""
    return size.substitute(
        {name: Poly.symbol(name) + 1 for name in size.symbols() if _is_free(name)}
    )


def _plainly_non_negative(size: Poly) -> bool:
    return all(coefficient >= 0 for coefficient in _shifted(size).terms.values())


def non_negative(size: Poly, facts: Iterable[Poly] = ()) -> bool:
    """Provably at least 0, alone or once one known non-negative fact is taken away."""
    if _plainly_non_negative(size):
        return True
    return any(_plainly_non_negative(size - fact) for fact in facts)


def _differences(relation: Relation) -> list[Poly]:
    """Sizes that are all at least 0 exactly when the relation holds (`==` gives two)."""
    left, right = relation.left, relation.right
    op = relation.op
    if op == "<=":
        return [right - left]
    if op == "<":
        return [right - left - 1]
    if op == ">=":
        return [left - right]
    if op == ">":
        return [left - right - 1]
    if op == "==":
        return [right - left, left - right]
    raise ValueError(f"no differences for {op}")


def holds(relation: Relation, facts: Iterable[Poly] = ()) -> bool:
    """Whether the relation holds for every value of its sizes."""
    facts = list(facts)
    if relation.op == "!=":
        return holds(Relation("<", relation.left, relation.right), facts) or holds(
            Relation(">", relation.left, relation.right), facts
        )
    return all(non_negative(size, facts) for size in _differences(relation))


def decide(
    relation: Relation,
    dims: Mapping[str, Poly],
    facts: Iterable[Poly] = (),
    divisions: Iterable[Relation] = (),
) -> str:
    """PROVED, REFUTED (fails for every value) or RUNTIME (depends on the values).
    `divisions` are divisibility relations known to hold."""
    relation = relation.substitute(dims)
    facts = [fact.substitute(dims) for fact in facts]
    if relation.op == DIVIDES:
        known = [division.substitute(dims) for division in divisions]
        return _decide_divisibility(relation.left, relation.right, facts, known)
    if holds(relation, facts):
        return PROVED
    if holds(Relation(NEGATED[relation.op], relation.left, relation.right), facts):
        return REFUTED
    return RUNTIME


def _multiple(size: Poly, divisor: Poly) -> bool:
    """Whether `size` is `divisor` times a polynomial (`divisor` a single term)."""
    if divisor.is_const and divisor.value == 0:
        return False
    try:
        size.divide_exact(divisor)
    except (InexactDivision, SizeOverflow):
        return False
    return True


def _residues(size: Poly, modulus: int) -> set[int] | None:
    """The values of `size` modulo `modulus` over every value of its symbols (each symbol
    matters only modulo `modulus`), or None when there are too many to try."""
    names = sorted(size.symbols())
    if modulus ** len(names) > RESIDUE_LIMIT:
        return None
    found: set[int] = set()
    for index in range(modulus ** len(names)):
        values = {}
        for name in names:
            index, values[name] = divmod(index, modulus)
        total = 0
        for monomial, coefficient in size.terms.items():
            term = coefficient
            for name in monomial:
                term *= values[name]
            total += term
        found.add(total % modulus)
    return found


def _equalities(facts: list[Poly]) -> list[Poly]:
    """The facts `p >= 0` whose negation is also a fact: each `p == 0`."""
    known = set(facts)
    return [fact for fact in facts if -fact in known and not fact.is_const]


def _decide_divisibility(
    size: Poly, divisor: Poly, facts: list[Poly], divisions: list[Relation]
) -> str:
    if divisor.is_const:
        modulus = abs(divisor.value or 0)
        if modulus == 0:
            return REFUTED
        residues = _residues(size, modulus)
        if residues == {0}:
            return PROVED
        if residues is not None and 0 not in residues:
            return REFUTED
    elif len(divisor.terms) != 1:
        return RUNTIME
    if _multiple(size, divisor):
        return PROVED
    for equality in _equalities(facts):
        if _multiple(size - equality, divisor):
            return PROVED
    for known in divisions:
        divides_known = known.right == divisor or _multiple(known.right, divisor)
        if divides_known and _multiple(size, known.left):
            return PROVED
        if known.right == divisor and _multiple(size - known.left, divisor):
            return PROVED
    return RUNTIME


def facts_of(relation: Relation, dims: Mapping[str, Poly]) -> list[Poly]:
    """The sizes known to be at least 0 once the relation is known to hold."""
    if relation.op == "!=" or relation.op == DIVIDES:
        return []
    return [size.substitute(dims) for size in _differences(relation)]


def example(relation: Relation, dims: Mapping[str, Poly]) -> dict[str, int]:
    """A value for each symbol of a relation that fails for every value: the least ones."""
    relation = relation.substitute(dims)
    names = sorted(relation.left.symbols() | relation.right.symbols())
    return {name: 1 if _is_free(name) else 0 for name in names}


def written_text(text: str, start: int, end: int) -> str:
    """The source of an assert's part from `start` to `end`, widened to the parentheses it
    opens or closes: a part's span starts inside `(n + 1) % h` when it is written first."""
    while _lowest_depth(text, start, end) < 0:
        opening = text.rfind("(", 0, start)
        if opening < 0:
            break
        start = opening
    while text.count("(", start, end) > text.count(")", start, end):
        closing = text.find(")", end)
        if closing < 0:
            break
        end = closing + 1
    return text[start:end]


def _lowest_depth(text: str, start: int, end: int) -> int:
    """The least nesting of parentheses reached from `start` to `end` (below 0: a `)`
    closes one opened before `start`)."""
    depth = lowest = 0
    for character in text[start:end]:
        if character == "(":
            depth += 1
        elif character == ")":
            depth -= 1
            lowest = min(lowest, depth)
    return lowest


def evaluated(relation: Relation, values: Mapping[str, int], dims: Mapping[str, Poly]) -> str:
    """`33 <= 32`: the relation with dims and `values` put in."""
    constants = {name: Poly.const(value) for name, value in values.items()}
    shown = relation.substitute(dims).substitute(constants)
    return str(shown)
