"""`record` behaves as the `dataclass(slots=True)` forms it replaces."""

from __future__ import annotations

import pickle

import pytest

from shapescript.records import FrozenInstanceError, field, record, replace


@record
class Point:
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)
    note: str = field(default="", repr=False, compare=False)


@record(frozen=True)
class Pair:
    left: int
    right: str = "r"


class Base:
    __slots__ = ()


@record(frozen=True)
class Leaf(Base):
    """A record under a plain slotted base."""

    value: float


def test_init_defaults_and_factories() -> None:
    first, second = Point(1), Point(2, 3)
    assert (first.x, first.y, first.tags, second.y) == (1, 0, [], 3)
    first.tags.append("a")
    assert second.tags == [] and Point(1).tags == []
    assert Point(x=4, tags=["t"]).tags == ["t"]
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]


def test_repr_eq_and_hash() -> None:
    assert repr(Point(1, 2)) == "Point(x=1, y=2, tags=[])"
    assert Point(1, note="a") == Point(1, note="b")
    assert Point(1) != Point(2) and Point(1) != (1, 0, [])
    assert Point.__hash__ is None
    assert hash(Pair(1)) == hash(Pair(1)) and Pair(1) == Pair(1) and Pair(1) != Pair(2)
    assert {Pair(1), Pair(1, "r")} == {Pair(1)}
    assert repr(Leaf(0.5)) == "Leaf(value=0.5)" and Leaf.__doc__.startswith("A record")


def test_slots_frozen_and_match() -> None:
    point = Point(1)
    point.y = 5
    assert point.y == 5 and not hasattr(point, "__dict__")
    with pytest.raises(AttributeError):
        point.z = 1  # type: ignore[attr-defined]
    with pytest.raises(FrozenInstanceError):
        Pair(1).left = 2  # type: ignore[misc]
    assert Pair.__match_args__ == ("left", "right") and Leaf.__slots__ == ("value",)
    match Pair(3, "x"):
        case Pair(left, right):
            assert (left, right) == (3, "x")


def test_replace() -> None:
    assert replace(Pair(1), right="s") == Pair(1, "s")
    with pytest.raises(TypeError):
        replace(Pair(1), middle=2)


def test_pickle_round_trip() -> None:
    for value in (Pair(1, "x"), Point(2, 3, ["a"]), Leaf(1.5)):
        assert pickle.loads(pickle.dumps(value)) == value


def test_a_field_without_default_after_one_with_is_refused_at_once() -> None:
    with pytest.raises(TypeError, match="follows"):

        @record
        class Wrong:
            first: int = 0
            second: int
