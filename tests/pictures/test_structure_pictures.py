"""A function picture hatches the background its result's structure promises."""

from __future__ import annotations

from shapescript.check.algebra.structures import Structure, returned_structure
from shapescript.check.algebra.types import TensorType
from shapescript.check.checker import check_text
from shapescript_lsp.features import function_pictures
from shapescript_lsp.pictures import grids

PROGRAM = """\
fn attend(s: [n m]) -> [n m] Prob over m:
    masked = masked_fill(s, !causal[n m], -inf)
    return softmax(masked, over=m)

fn plain(s: [n m]) -> [n m]:
    return s
"""


def test_a_function_s_result_structure_picks_the_cells_above_the_diagonal() -> None:
    checked = check_text(PROGRAM)
    assert checked.diagnostics == []
    structure = returned_structure(checked, "attend")
    assert structure is not None and structure.describe() == "causal: 0 where m > n"
    assert returned_structure(checked, "plain") is None
    result = checked.items[0].body.inferred
    assert isinstance(result, TensorType)
    grid = grids.grid("attend(…)", [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]], "prob")
    assert function_pictures._background(structure, result, grid) == {(0, 1), (0, 2), (1, 2)}
    assert function_pictures._background(None, result, grid) == frozenset()
    flipped = Structure("m", "n", "0")
    assert function_pictures._background(flipped, result, grid) == frozenset(), "not its axes"
