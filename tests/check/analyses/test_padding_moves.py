"""A keystroke's padding analysis takes the previous findings of the functions it doesn't
reach and moves them to where those functions now are: the loops, the steps with their
blockers (in the step or in a function it calls) and the diagnostics must be where a
fresh check of the same text puts them, after edits above them and inside what they call,
and when a check starts again from a version another check already started from."""

from __future__ import annotations

import pytest

from shapescript.check.analyses import padding_reuse as reuse
from shapescript.check.analyses.padding import PaddingFacts, complete_facts
from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile
from tests.check.analyses.test_padding import HEADER

BODY = """
fn above(x: [n D]) -> [n D]:
    y = x * 2.0
    return y

fn noisy(x: [b D]) -> [b D]:
    print(x)
    return x

fn step(mut m: Lin, mut opt: SGD[Lin], x: [b D], y: [b] Index[C]) -> []:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    return l + sum(noisy(x))

fn quiet(mut m: Lin, mut opt: SGD[Lin], x: [b D], y: [b] Index[C]) -> []:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    return l

fn loud(mut m: Lin, mut opt: SGD[Lin], x: [b D], y: [b] Index[C]) -> []:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    print(l)
    return l

fn sorted_epoch(mut m: Lin, mut opt: SGD[Lin], train: Dataset[Ex]):
    for batch in train |> batches(8):
        print(sort(batch.x, over=b))

fn padded_epoch(mut m: Lin, mut opt: SGD[Lin], train: Dataset[Ex]):
    for batch in train |> batches(8):
        quiet(mut m, mut opt, batch.x, batch.y)
"""
TEXT = HEADER + BODY

#: Edits that move what the analysis takes again: a line in a function above them, a
#: line in the function the step calls (before its blocker), the blocker gone and back.
EDITS = [
    ("    y = x * 2.0\n", "    y = x * 2.0\n    z = y + 1.0\n"),
    ("    print(x)\n    return x\n", "    w = x\n    print(x)\n    return x\n"),
    ("    print(x)\n    return x\n", "    return x\n"),
    ("fn above(x: [n D]) -> [n D]:\n", "# a comment\nfn above(x: [n D]) -> [n D]:\n"),
    # A function more above them (the functions are then compared by name), one renamed.
    ("fn above(", "fn added(x: [n D]) -> [n D] = x\n\nfn above("),
    ("fn noisy(x: [b D]) -> [b D]:\n", "fn noisier(x: [b D]) -> [b D]:\n"),
]


def _check(text: str, previous=None):
    return check_source(SourceFile.from_text("f.ss", text), previous, padding_later=True)


def _where(facts: PaddingFacts) -> tuple:
    """What a check for diagnostics leaves in the facts, with every span (the checker
    sorts the diagnostics)."""
    found = sorted(facts.diagnostics, key=lambda d: (d.primary.span.start, d.code))
    return (facts.loops, facts.loop_symbols, facts.steps, found)


def _same_as_fresh(checked, text: str) -> None:
    fresh = _check(text)
    assert checked.diagnostics == fresh.diagnostics
    assert _where(checked.padding) == _where(fresh.padding)


def test_the_program_has_what_the_edits_move() -> None:
    checked = _check(TEXT)
    codes = sorted(d.code for d in checked.padding.diagnostics)
    assert codes == ["H2001", "H3101", "H3101"]
    assert checked.padding.steps["step"].function == "noisy"
    assert checked.padding.steps["loud"].function == "loud"
    assert checked.padding.loop_symbols


@pytest.mark.parametrize(("old", "new"), EDITS)
def test_an_edit_moves_the_findings_taken_again_where_a_fresh_check_finds_them(
    old: str, new: str
) -> None:
    assert TEXT.count(old) == 1
    edited = TEXT.replace(old, new)
    previous = _check(TEXT)
    # A first keystroke finds which functions use which; the second takes them again.
    previous = _check(TEXT + "\n", previous)
    checked = _check(edited + "\n", previous)
    _same_as_fresh(checked, edited + "\n")
    # And back, from the edited version.
    again = _check(TEXT + "\n", checked)
    _same_as_fresh(again, TEXT + "\n")


def test_a_line_above_takes_every_finding_again_moved(monkeypatch) -> None:
    previous = _check(TEXT)
    previous = _check(TEXT + "\n", previous)
    edited = "# a line above everything\n" + TEXT + "\n"
    analysed: list[set[str] | None] = []
    unaffected = reuse.unaffected

    def counted(analysis, memo, changed):
        found = unaffected(analysis, memo, changed)
        analysed.append(found.again)
        return found

    monkeypatch.setattr(reuse, "unaffected", counted)
    checked = _check(edited, previous)
    monkeypatch.undo()
    # Only the items moved: nothing is found again, everything is moved.
    assert analysed == [set()]
    _same_as_fresh(checked, edited)


def test_a_check_from_a_version_another_check_started_from_is_as_fresh() -> None:
    previous = _check(TEXT)
    previous = _check(TEXT + "\n", previous)
    first = TEXT.replace("    print(x)\n    return x\n", "    return x\n") + "\n"
    second = TEXT.replace("    y = x * 2.0\n", "    y = x * 3.0\n") + "\n"
    names = previous.padding.found.names
    decls, bodies = list(names.decls), list(names.bodies)
    _same_as_fresh(_check(first, previous), first)
    # The first check left `previous`'s tables as they were: the second starts from them.
    assert names.decls == decls and names.bodies == bodies
    _same_as_fresh(_check(second, previous), second)


def test_a_keystroke_after_a_hover_takes_the_findings_again(monkeypatch) -> None:
    previous = _check(TEXT)
    previous = _check(TEXT + "\n", previous)
    complete = complete_facts(previous)
    assert complete is not None and complete.found is not None
    edited = TEXT.replace("    y = x * 2.0\n", "    y = x * 3.0\n") + "\n"
    analysed: list[set[str] | None] = []
    unaffected = reuse.unaffected

    def counted(analysis, memo, changed):
        found = unaffected(analysis, memo, changed)
        analysed.append(found.again)
        return found

    monkeypatch.setattr(reuse, "unaffected", counted)
    checked = _check(edited, previous)
    monkeypatch.undo()
    assert analysed == [{"above"}]
    _same_as_fresh(checked, edited)


def test_links_keep_their_changes_apart_until_they_are_many() -> None:
    base = {"f": frozenset({"g"}), "g": frozenset()}
    links = reuse.Links(base)
    changed = links.changed({"f": frozenset({"h"}), "g": frozenset()})
    assert changed.base is base and base["f"] == frozenset({"g"})
    assert changed.get("f") == frozenset({"h"}) and changed.get("missing") == frozenset()
    many = {f"n{at}": frozenset({"f"}) for at in range(100)}
    folded = changed.changed(many | {"f": frozenset()})
    assert not folded.changes and "f" not in folded.base and folded.get("n7") == {"f"}
    assert base == {"f": frozenset({"g"}), "g": frozenset()}


def test_the_walk_tables_are_dropped_once_they_have_doubled() -> None:
    from benchmarks.generate import generate_program

    # Changing a dim checks every body again, with new types: the shapes of the old ones
    # would otherwise be kept for ever, one table's worth per edit.
    text = generate_program(600, 0)
    checked = _check(text)
    sizes = []
    for number in range(24):
        edited = text.replace("dim D1 = 1024", f"dim D1 = {2048 if number % 2 == 0 else 1024}")
        checked = _check(edited, checked)
        walks = checked.padding.walks
        sizes.append(
            len(walks.walked)
            + len(walks.calls)
            + len(walks.loops)
            + len(walks.names)
            + len(walks.shapes)
        )
    assert "dim D1 = 1024" in text
    assert max(sizes) <= 3 * sizes[0], sizes
