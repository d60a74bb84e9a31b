"""Rename's rules on a checked file, without a server: the built-in a new name would hide,
which renames are checked again, and the check that refuses a rename leaving a new error."""

from __future__ import annotations

import asyncio

import pytest

from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.rename import (
    RenameRefused,
    clash,
    in_bodies,
    local_spans,
    recheck,
    target,
)

PROGRAM = """\
dim D = 8

fn f(x: [n D]) -> [n D]:
    z = x * 2.0
    w = z |> softmax(over=D)
    return w

fn g(y: [n D]) -> [n D] = y
"""


class _Store:
    search_path: list[str] = []

    @staticmethod
    def reader(path: str) -> str | None:
        return None


class _Server:
    store = _Store()


def _checked(text: str = PROGRAM):
    checked = check_source(SourceFile.from_text("/tmp/rules.ss", text))
    assert checked.errors == []
    return checked


def _spot(checked, needle: str, at: int = 0):
    return target(checked, checked.source.text.index(needle) + at)


def test_a_new_name_that_would_hide_a_built_in_the_code_uses_is_refused():
    checked = _checked()
    spot = _spot(checked, "z = x")
    spans = local_spans(checked, spot.symbol)
    assert "softmax" in clash(checked, spot.symbol, "softmax", spans)
    # a built-in the function doesn't use may be hidden
    assert clash(checked, spot.symbol, "mean", spans) is None
    function = _spot(checked, "fn g", 3)
    assert "softmax" in clash(checked, function.symbol, "softmax", [function.span])


def test_only_renames_inside_bodies_are_checked_again():
    checked = _checked()
    value = _spot(checked, "z = x")
    assert in_bodies(checked, local_spans(checked, value.symbol))
    axis = _spot(checked, "[n D]) -> [n D]:", 1)
    assert not in_bodies(checked, local_spans(checked, axis.symbol))


def test_the_check_again_refuses_a_rename_that_leaves_a_new_error():
    checked = _checked()
    spot = _spot(checked, "z = x")
    spans = local_spans(checked, spot.symbol)
    with pytest.raises(RenameRefused) as refused:
        asyncio.run(recheck(_Server(), checked, spans, "softmax", spot.symbol, {}))
    assert "E0303" in str(refused.value)
    asyncio.run(recheck(_Server(), checked, spans, "doubled", spot.symbol, {}))


def test_an_axis_a_shape_alias_brings_in_is_renamed_where_it_comes_from():
    text = "dim D = 8\ndim Img = [b D]\n\nfn g(i: Img) -> [b D] = i\n"
    checked = _checked(text)
    with pytest.raises(RenameRefused) as refused:
        _spot(checked, "[b D] = i", 1)
    assert "shape alias" in str(refused.value)
