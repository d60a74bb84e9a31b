"""The did-you-mean search skips candidates that can't be close, and answers as difflib."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from shapescript.check.algebra.fixes import NameIndex, closest
from shapescript.check.checker import check_source, check_text
from shapescript.syntax.source import SourceFile

NAMES = st.text(alphabet="abcdeé_xy01", min_size=1, max_size=9)


def by_difflib(name: str, candidates: list[str]) -> str | None:
    matches = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    return matches[0] if matches else None


@settings(max_examples=500, deadline=None)
@given(NAMES, st.lists(NAMES, max_size=30))
def test_closest_is_difflibs_answer(name: str, candidates: list[str]) -> None:
    expected = by_difflib(name, candidates)
    assert closest(name, candidates) == expected
    # Asked again (a help and its fix ask the same), the answer is the same.
    assert closest(name, candidates) == expected


def test_a_near_miss_is_found_and_a_far_one_is_not() -> None:
    assert closest("hiden", ["hidden", "output", "h"]) == "hidden"
    assert closest("zzz", ["hidden", "output"]) is None
    assert closest("hidden", ["hiden"]) == "hiden"
    assert closest("hidden", ["other"]) is None


@settings(max_examples=300, deadline=None)
@given(NAMES, st.lists(NAMES, max_size=10), st.lists(NAMES, max_size=40))
def test_a_name_index_answers_as_difflib_over_all_the_names(
    name: str, few: list[str], many: list[str]
) -> None:
    assert closest(name, few, NameIndex(many)) == by_difflib(name, few + many)


def test_the_index_reads_only_names_of_a_length_that_can_be_close() -> None:
    short = [f"f{number}" for number in range(3000)]
    index = NameIndex(short + ["value_and_grad"])
    # A ratio of 0.75 needs lengths within 3/5 and 5/3 of each other: of 3,001 names, a
    # 15-character name looks at the one of 14 alone, a 4-character one at those of 3
    # to 6 (all but f0 to f9).
    assert list(index.near(len("xvalue_and_grad"))) == ["value_and_grad"]
    assert len(list(index.near(len("f123")))) == 2990
    assert closest("xvalue_and_grad", [], index) == "value_and_grad"


def test_analyses_of_the_same_names_share_one_index() -> None:
    text = "fn helper(x: [n]) -> [n] = x\n\nfn f(x: [n]) -> [n]:\n    return helpr(x)\n"
    first = check_text(text)
    second = check_source(SourceFile.from_text("<text>", text.replace("helpr", "helpe")), first)
    assert [d.help for d in second.diagnostics if d.code == "E0301"] == ["did you mean `helper`?"]
    assert second.memo["names"] is first.memo["names"]
    renamed = check_source(
        SourceFile.from_text("<text>", text.replace("helper", "helper2")), second
    )
    assert renamed.memo["names"] is not second.memo["names"]


def test_names_with_a_line_break_are_compared_too() -> None:
    # The index compares a length's names as lines of one string: a name that holds a
    # line break is compared on its own, and a misspelt name's line breaks don't split
    # the lines.
    index = NameIndex(["hid\nden", "hidden", "output"])
    assert closest("hid\nde", [], index) == by_difflib("hid\nde", ["hid\nden", "hidden", "output"])
    assert closest("hidde\n", [], index) == by_difflib("hidde\n", ["hid\nden", "hidden", "output"])
    assert closest("hid\nde", [], index) is not None


def test_names_too_long_for_the_columns_are_compared_too() -> None:
    long = "a" * 280 + "b" * 20
    index = NameIndex([long, "c" * 300, "short"])
    assert closest(long[:-1] + "c", [], index) == long


def test_an_index_remembers_what_it_answered(monkeypatch) -> None:
    index = NameIndex(["hidden", "output"])
    assert closest("hiden", ["x"], index) == "hidden"
    assert closest("outpt", [], index) == "output"

    def searched(self, name):
        raise AssertionError(f"searched again for {name}")

    monkeypatch.setattr(NameIndex, "sharing", searched)
    assert closest("hiden", ["x"], index) == "hidden"
    assert closest("outpt", [], index) == "output"
