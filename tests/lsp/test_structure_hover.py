"""The hover of a value whose structure the checker knows names it."""

from __future__ import annotations

from shapescript.check.checker import check_text
from shapescript_lsp.features.hover import HoverRenderer

PROGRAM = """\
fn attend(s: [b n m]) -> [b n m] Prob over m:
    masked = masked_fill(s, !causal[n m], -inf)
    p = softmax(masked, over=m)
    return p
"""


def hover_text(needle: str, after: int = 0) -> str:
    checked = check_text(PROGRAM)
    assert checked.diagnostics == []
    hover = HoverRenderer(images=False).hover(checked, PROGRAM.index(needle) + after)
    assert hover is not None
    return hover.contents.value


def test_a_masked_value_s_hover_names_its_structure() -> None:
    assert "Structure: `causal: -inf where m > n`" in hover_text("masked =")
    assert "Structure: `causal: -inf where m > n`" in hover_text("masked, over", 1)
    assert "Structure: `causal: 0 where m > n`" in hover_text("return p", 7)


def test_a_value_without_one_does_not() -> None:
    assert "Structure" not in hover_text("s: [b", 0)


def test_a_function_s_hover_names_the_structure_of_what_it_returns() -> None:
    assert "Structure: `causal: 0 where m > n`" in hover_text("attend")
