"""The function bodies an analysis checked, kept whole for the next analysis.

A keystroke in a big file changes one function of tens of thousands. The next analysis
copies the table of bodies by key (at C speed) and drops the entries of the functions that
are not the same objects any more, rather than looking at every function in turn: the work
left is the edited bodies' check and the few bodies whose results must be looked at each
time. The other functions' items keep their bodies (`checker._item_facts`).
"""

from __future__ import annotations

from shapescript.check.bodies.generics import LOCATED_CODES
from shapescript.check.declarations.symbols import BodyResult, has_table
from shapescript.records import record

#: A body's memo key: the function's text, its place in its chunk, the declarations'
#: fingerprint.
BodyKey = tuple[str, int, int]


@record
class BodiesMemo:
    """The bodies of one analysis by key, how many functions have one, and the indexes
    (ascending) of the functions the next analysis must look at apart. (Each body is
    also its function's `ItemFacts.body`.)"""

    by_key: dict[BodyKey, BodyResult]
    count: int
    #: The functions left without a body (one whose return type couldn't be inferred):
    #: the next analysis tries them again.
    unchecked: list[int]
    #: The bodies with diagnostics, which move with their functions.
    with_diagnostics: list[int]
    #: The bodies reporting errors of the instances they call, which name those
    #: instances' lines (`generics.body_reusable`).
    located: list[int]
    #: The bodies that differentiate something (their reads are checked).
    differentiating: list[int]
    #: The bodies that call a function by a name shared by several (generic instances).
    calling: list[int]


def lendable(memo: object) -> BodiesMemo | None:
    """The previous analysis's bodies memo when a keystroke's analysis may copy its table
    (`Program.keep_bodies`): it has one, with one key per body."""
    if isinstance(memo, BodiesMemo) and len(memo.by_key) == memo.count:
        return memo
    return None


def memo_of(
    by_key: dict[BodyKey, BodyResult], results: dict[int, BodyResult], functions: list[int]
) -> BodiesMemo:
    """The memo of a whole analysis's bodies (`results`, by index); `functions` are the
    indexes of its functions, in order."""
    with_diagnostics: list[int] = []
    located: list[int] = []
    differentiating: list[int] = []
    calling: list[int] = []
    unchecked: list[int] = []
    for index in functions:
        result = results.get(index)
        if result is None:
            unchecked.append(index)
            continue
        _sort(index, result, with_diagnostics, located, differentiating, calling)
    return BodiesMemo(
        by_key, len(results), unchecked, with_diagnostics, located, differentiating, calling
    )


def patched(
    previous: BodiesMemo,
    by_key: dict[BodyKey, BodyResult],
    results: dict[int, BodyResult],
    looked_at: list[int],
    dropped: int,
) -> BodiesMemo:
    """The memo of an analysis that took `previous`, dropped `dropped` of its bodies and
    looked again at the functions at `looked_at` (ascending), finding `results`: its
    lists are the previous ones with those indexes sorted again."""
    again = set(looked_at)
    with_diagnostics = [index for index in previous.with_diagnostics if index not in again]
    located = [index for index in previous.located if index not in again]
    differentiating = [index for index in previous.differentiating if index not in again]
    calling = [index for index in previous.calling if index not in again]
    unchecked = [index for index in previous.unchecked if index not in again]
    fresh: tuple[list[int], ...] = ([], [], [], [], [])
    count = previous.count - dropped
    for index in looked_at:
        result = results.get(index)
        if result is None:
            fresh[4].append(index)
            continue
        count += 1
        _sort(index, result, *fresh[:4])
    return BodiesMemo(
        by_key,
        count,
        _merged(unchecked, fresh[4]),
        _merged(with_diagnostics, fresh[0]),
        _merged(located, fresh[1]),
        _merged(differentiating, fresh[2]),
        _merged(calling, fresh[3]),
    )


def _sort(
    index: int,
    result: BodyResult,
    with_diagnostics: list[int],
    located: list[int],
    differentiating: list[int],
    calling: list[int],
) -> None:
    """Put `index` in the lists its body belongs to."""
    if result.diagnostics:
        with_diagnostics.append(index)
        if any(diagnostic.code in LOCATED_CODES for diagnostic in result.diagnostics):
            located.append(index)
    facts = result.facts
    if has_table(facts, "gradients") and facts.gradients:
        differentiating.append(index)
    if has_table(facts, "call_targets"):
        calling.append(index)


def _merged(kept: list[int], fresh: list[int]) -> list[int]:
    """Two ascending lists of indexes as one."""
    if not fresh:
        return kept
    return sorted(kept + fresh)
