"""An operand the checker knows nothing about makes the result unknown, never a guess."""

from __future__ import annotations

import pytest

from shapescript.check.algebra.types import UnknownType
from shapescript.check.checker import check_text
from shapescript.syntax import ast

EXPRESSIONS = [
    "u + x",
    "sum(u)",
    "relu(u)",
    "exp(u)",
    "-u",
    "u > 0",
    "softmax(u, over=D)",
    "mean(u, over=n)",
    "u to Binary",
    "u as Unit",
    "u |> to Binary",
    "u |> relu",
    "x |> add(u)",
    "layer_norm(u, over=D)",
    "u * 2.0",
    "max(u)",
]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_unknown_operand_gives_unknown(expression: str) -> None:
    text = f"dim D = 4\n\nfn f(x: [n D]):\n    u = nosuch\n    r = {expression}\n"
    checked = check_text(text, "u.ss")
    assert [d.code for d in checked.diagnostics] == ["E0301"]
    item = next(i for i in checked.items if isinstance(i.item, ast.FnDecl))
    assign = item.item.body[1]
    assert isinstance(item.body.facts.types[assign.targets[0].span], UnknownType)


def test_a_full_shape_is_still_known() -> None:
    text = "dim D = 4\n\nfn f(x: [n D]):\n    u = nosuch\n    r = u to [n D]\n"
    checked = check_text(text, "u.ss")
    item = next(i for i in checked.items if isinstance(i.item, ast.FnDecl))
    assign = item.item.body[1]
    assert not isinstance(item.body.facts.types[assign.targets[0].span], UnknownType)
