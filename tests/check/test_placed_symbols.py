"""`PlacedSymbols` reads as the dict of moved symbols it stands for."""

from __future__ import annotations

from shapescript.check.declarations.placed_symbols import PlacedSymbols
from shapescript.check.declarations.symbols import Symbol
from shapescript.syntax.source import Span


def _symbol(name: str, start: int) -> Symbol:
    return Symbol(name, "dim", Span(start, start + len(name)), "main.ss")


def test_symbols_move_with_their_items_and_keep_a_dicts_order() -> None:
    # Items 0 and 1 were at 0 and 10; item 1 is now at 15. `loose` has no item.
    found = {"a": _symbol("a", 4), "bb": _symbol("bb", 14), "loose": _symbol("loose", 30)}
    symbols = PlacedSymbols(found, {"a": 0, "bb": 1}, [0, 10], [0, 15])
    expected = {
        "a": _symbol("a", 4),
        "bb": _symbol("bb", 19),
        "loose": _symbol("loose", 30),
    }
    assert symbols["bb"] == expected["bb"] and symbols.get("bb") is symbols["bb"]
    assert symbols.get("missing") is None and "missing" not in symbols and "a" in symbols
    symbols["m.x"] = _symbol("m.x", 50)
    symbols.setdefault("a", _symbol("a", 99))
    expected["m.x"] = _symbol("m.x", 50)
    assert list(symbols) == list(expected) and len(symbols) == 4
    assert symbols.names() == set(expected)
    assert dict(symbols.items()) == expected and list(symbols.values()) == list(expected.values())
    assert symbols == expected
    assert dict(symbols.unqualified().items()) == {k: v for k, v in expected.items() if k != "m.x"}
    copied = symbols.copy()
    copied["new"] = _symbol("new", 60)
    assert "new" not in symbols and "new" in copied
