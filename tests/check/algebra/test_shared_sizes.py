"""Sizes of one symbol are shared: a big file names the same axes hundreds of thousands
of times, and one object per name keeps a check's memory down."""

from __future__ import annotations

from shapescript.check.algebra import sizes
from shapescript.check.algebra.sizes import Poly


def test_a_symbol_is_one_object_however_often_it_is_named() -> None:
    assert Poly.symbol("n") is Poly.symbol("n")
    assert Poly.symbol("n") is not Poly.symbol("m")


def test_shared_sizes_still_compute_as_before() -> None:
    n = Poly.symbol("n")
    doubled = n * 2 + 1
    assert str(doubled) == str(Poly.symbol("n") * 2 + 1)
    assert Poly.symbol("n").terms == {("n",): 1}
    assert hash(n) == hash(Poly({("n",): 1}))


def test_the_table_of_names_stays_bounded(monkeypatch) -> None:
    monkeypatch.setattr(sizes, "_SYMBOLS_KEPT", 8)
    monkeypatch.setattr(sizes, "_SYMBOLS", {})
    for index in range(20):
        assert Poly.symbol(f"s{index}").single_symbol() == f"s{index}"
    assert len(sizes._SYMBOLS) <= 8
