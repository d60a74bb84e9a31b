"""Static asserts: relations between sizes, decided for every value they can take.

A relation compares two sizes (polynomials in dims and generic sizes). Dims are replaced
by their values; a generic size is taken to be at least 1 and an unknown one (`?k`, `$v`)
at least 0. A relation is proved when it holds for every such value, refuted when it
fails for every one, and undecided otherwise. The proofs are sufficient, not complete:
a polynomial is shown to be at least 0 when, after writing each generic `n` as `n' + 1`,
every coefficient is at least 0 (a fact `p >= 0` from an earlier assert may be taken
away from it first). An undecided relation is checked at run time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from shapescript.check.algebra.sizes import Poly, format_size
from shapescript.records import record

#: The comparisons an assert may make, and the one each turns into when its sides swap.
SWAPPED = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
#: What each comparison becomes when it fails.
NEGATED = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}

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


def decide(relation: Relation, dims: Mapping[str, Poly], facts: Iterable[Poly] = ()) -> str:
    """PROVED, REFUTED (fails for every value) or RUNTIME (depends on the values)."""
    relation = relation.substitute(dims)
    facts = [fact.substitute(dims) for fact in facts]
    if holds(relation, facts):
        return PROVED
    if holds(Relation(NEGATED[relation.op], relation.left, relation.right), facts):
        return REFUTED
    return RUNTIME


def facts_of(relation: Relation, dims: Mapping[str, Poly]) -> list[Poly]:
    """The sizes known to be at least 0 once the relation is known to hold."""
    if relation.op == "!=":
        return []
    return [size.substitute(dims) for size in _differences(relation)]


def example(relation: Relation, dims: Mapping[str, Poly]) -> dict[str, int]:
    """A value for each symbol of a relation that fails for every value: the least ones."""
    relation = relation.substitute(dims)
    names = sorted(relation.left.symbols() | relation.right.symbols())
    return {name: 1 if _is_free(name) else 0 for name in names}


def evaluated(relation: Relation, values: Mapping[str, int], dims: Mapping[str, Poly]) -> str:
    """`33 <= 32`: the relation with dims and `values` put in."""
    constants = {name: Poly.const(value) for name, value in values.items()}
    shown = relation.substitute(dims).substitute(constants)
    return str(shown)
