"""`has_dotted_name`, which looks at name and number axes directly, agrees with the names
`map_type_expr` passes to its `rename`, whatever the axes are."""

from __future__ import annotations

import itertools

import pytest

from shapescript.check.declarations.qualified import has_dotted_name, map_type_expr
from shapescript.syntax import ast
from shapescript.syntax.parser import parse_text

AXES = ["b", "m.D", "4", "3*n.K", "n+1", "(h d)", "(h m.d)", "16gh", "16m.gh", "..."]
WORDS = ["Real", "mod.Prob", "Index[V]", "Index[m.V]", "Index[2*m.V]"]


def _renamed_names(written: ast.TypeExpr) -> list[str]:
    names: list[str] = []

    def rename(name: str, span: object) -> str:
        names.append(name)
        return name

    map_type_expr(written, rename)
    return names


def _types() -> list[ast.TypeExpr]:
    shapes = [""] + [f"[{' '.join(pair)}] " for pair in itertools.product(AXES, repeat=2)]
    found = []
    for shape, word in itertools.product(shapes, WORDS):
        parsed = parse_text(f"fn f(x: {shape}{word}) -> int = 0\n")
        (function,) = parsed.module.items
        if isinstance(function, ast.FnDecl):
            found.append(function.params[0].type)
    return found


def test_the_types_cover_each_kind_of_axis() -> None:
    kinds = {type(axis) for written in _types() if written.shape for axis in written.shape.axes}
    assert {ast.SizeAxis, ast.GroupAxis, ast.GroupedSizeAxis} <= kinds


@pytest.mark.parametrize("written", _types(), ids=lambda written: str(written.span))
def test_a_dotted_name_is_found_where_rename_would_see_one(written: ast.TypeExpr) -> None:
    assert has_dotted_name(written) == any("." in name for name in _renamed_names(written))
