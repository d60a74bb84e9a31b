"""The size solver: equations between sizes, solved one unknown at a time.

Dims are replaced by their values first. Then the solver keeps looking for an equation
with exactly one unsolved variable that appears linearly, `a*var + b = 0`, and solves
it as `var = -b / a`, which must be exact. When no equation makes progress, equations
without variables must hold, and variables left over can't be inferred.
"""

from __future__ import annotations

from collections.abc import Mapping

from shapescript.check.algebra.sizes import LIMIT, ZERO, InexactDivision, Poly, SizeOverflow
from shapescript.records import field, record


def is_variable(name: str) -> bool:
    return name.startswith("$")


@record
class Equation:
    """`lhs = rhs`, with whatever the caller needs to report a failure (`origin`)."""

    lhs: Poly
    rhs: Poly
    origin: object = None


@record
class Failure:
    """An equation that failed, with the code it fails with."""

    equation: Equation
    code: str
    lhs: Poly
    rhs: Poly


@record
class Solution:
    values: dict[str, Poly] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)

    def apply(self, size: Poly) -> Poly:
        return size.substitute(self.values)


def _variables(size: Poly) -> set[str]:
    return {name for monomial in size.terms for name in monomial if name.startswith("$")}


def _difference(lhs: Poly, rhs: Poly) -> Poly:
    """`lhs - rhs`, term by term into one dict (as `Poly.__sub__`, without its steps)."""
    if lhs.terms == rhs.terms:
        return ZERO
    terms = dict(lhs.terms)
    get = terms.get
    for monomial, coefficient in rhs.terms.items():
        value = get(monomial, 0) - coefficient
        if not -LIMIT <= value < LIMIT:
            raise SizeOverflow(value)
        terms[monomial] = value
    if 0 in terms.values():
        terms = {m: c for m, c in terms.items() if c != 0}
    return Poly._of(terms)


def _solved_alone(difference: Poly, name: str) -> Poly | None:
    """The common equation `±name + b = 0`, with `name` in no other term: `name = ∓b`, as
    `linear_in` and `divide_exact` would find it, without their steps; None otherwise."""
    terms = difference.terms
    key = (name,)
    coefficient = terms.get(key)
    if coefficient != 1 and coefficient != -1:
        return None
    value: dict[tuple[str, ...], int] = {}
    for monomial, term in terms.items():
        if monomial is key or monomial == key:
            continue
        if name in monomial:
            return None
        value[monomial] = -term if coefficient == 1 else term
    return Poly._of(value)


def solve(
    equations: list[Equation],
    dims: Mapping[str, Poly],
    known: Mapping[str, Poly] | None = None,
) -> Solution:
    """Solve the equations; each one that can't hold is reported once in `failures`."""
    solution = Solution(dict(known or {}))
    pending: list[tuple[Equation, Poly]] = []
    for equation in equations:
        try:
            difference = _difference(equation.lhs, equation.rhs).substitute(dims)
        except SizeOverflow:
            solution.failures.append(Failure(equation, "E0414", equation.lhs, equation.rhs))
            continue
        if difference.terms:
            # An equation whose sides are the same size holds, whatever is solved.
            pending.append((equation, difference))
    progress = True
    while progress:
        progress = False
        remaining: list[tuple[Equation, Poly]] = []
        for equation, difference in pending:
            try:
                difference = difference.substitute(solution.values)
            except SizeOverflow:
                solution.failures.append(Failure(equation, "E0414", equation.lhs, equation.rhs))
                continue
            unsolved = _variables(difference)
            if len(unsolved) != 1:
                remaining.append((equation, difference))
                continue
            (name,) = unsolved
            value = _solved_alone(difference, name)
            if value is not None:
                solution.values[name] = value
                progress = True
                continue
            parts = difference.linear_in(name)
            if parts is None:
                remaining.append((equation, difference))
                continue
            a, b = parts
            try:
                value = (-b).divide_exact(a)
            except InexactDivision:
                solution.failures.append(Failure(equation, "E0402", equation.lhs, equation.rhs))
                continue
            except SizeOverflow:
                solution.failures.append(Failure(equation, "E0414", equation.lhs, equation.rhs))
                continue
            solution.values[name] = value
            progress = True
        pending = remaining
    for equation, difference in pending:
        difference = difference.substitute(solution.values)
        if _variables(difference):
            solution.failures.append(Failure(equation, "E0409", equation.lhs, equation.rhs))
        elif difference.terms:
            solution.failures.append(Failure(equation, "E0401", equation.lhs, equation.rhs))
    return solution


def sizes_equal(a: Poly, b: Poly, dims: Mapping[str, Poly]) -> bool:
    """Whether two sizes are provably equal once dims are replaced by their values."""
    if a == b:
        return True
    try:
        return not (a - b).substitute(dims).terms
    except SizeOverflow:
        return False
