"""`positions(n)`: the positions along an axis, `[n] Index[n]`, which broadcast by name."""

from __future__ import annotations

import pytest

from shapescript.check.algebra.types import format_type
from shapescript.check.checker import check_text
from shapescript.syntax import ast

HEAD = """\
dim V = 16
dim T = 8
dim D = 4

model Gpt:
    param wte: [V D] = normal(std=0.02)
    param wpe: [T D] = normal(std=0.02)

"""


def _type_of_first_binding(text: str) -> str:
    checked = check_text(text, "positions.ss")
    assert checked.diagnostics == [], [d.message for d in checked.diagnostics]
    item = next(i for i in checked.items if isinstance(i.item, ast.FnDecl))
    first = item.item.body[0]
    return format_type(item.body.facts.types[first.targets[0].span])


def test_positions_of_an_axis_is_its_indices() -> None:
    text = (
        HEAD
        + "fn f(ids: [b n] Index[V]) -> [b n] Index[V]:\n    p = positions(n)\n    return ids\n"
    )
    assert _type_of_first_binding(text) == "[n] Index[n]"


def test_positions_of_a_dim() -> None:
    text = HEAD + "fn f(x: [T D]) -> [T D]:\n    p = positions(T)\n    return x\n"
    assert _type_of_first_binding(text) == "[T] Index[T]"


@pytest.mark.parametrize(
    "embedded",
    [
        "embedding(positions(n) as [n] Index[T], m.wpe)",
        "m.wpe[positions(n) as [n] Index[T]]",
        "m.wpe[positions(T)]",
    ],
)
def test_position_embeddings_broadcast_by_name(embedded: str) -> None:
    length = "T" if "positions(T)" in embedded else "n"
    text = HEAD + (
        f"fn embed(m: Gpt, ids: [b {length}] Index[V]) -> [b {length} D]:\n"
        f"    x = embedding(ids, m.wte) + {embedded}\n"
        "    return x\n"
    )
    assert _type_of_first_binding(text) == f"[b {length} D]"


def test_positions_into_a_table_of_another_length_says_how_to_assert_it_fits() -> None:
    text = HEAD + (
        "fn embed(m: Gpt, ids: [b n] Index[V]) -> [b n D]:\n"
        "    return embedding(ids, m.wte) + m.wpe[positions(n)]\n"
    )
    (diagnostic,) = check_text(text, "positions.ss").diagnostics
    assert diagnostic.code == "E0507"
    assert diagnostic.help == (
        "if `n` is at most T, say so: `positions(n) as [n] Index[T]`, which is checked when it runs"
    )


@pytest.mark.parametrize(
    ("argument", "said"),
    [("3", "axis name"), ("ids", "axis name"), ("q", "unknown name `q`"), ("", "one")],
)
def test_positions_takes_one_axis_name(argument: str, said: str) -> None:
    body = f"    p = positions({argument})\n    return ids\n"
    text = HEAD + "fn f(ids: [b n] Index[V]) -> [b n] Index[V]:\n" + body
    checked = check_text(text, "positions.ss")
    (diagnostic,) = checked.diagnostics
    assert diagnostic.code in ("E0406", "E0301")
    assert said in diagnostic.message
