"""The did-you-mean search skips candidates that can't be close, and answers as difflib."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from shapescript.check.algebra.fixes import closest

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
