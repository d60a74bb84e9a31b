"""Generic and overloaded functions in the editor: hover on a generic function lists its
type variables and what it calls on them; `m.` completes the overload for m's model and
generic functions that take any model first."""

from __future__ import annotations

from shapescript.check.algebra.types import ModelType
from shapescript.check.checker import check_text
from shapescript_lsp.features.hover import HoverRenderer
from shapescript_lsp.features.model_members import member_candidates

PROGRAM = """\
dim D = 8

model A:
    param w: [D] = zeros

model B:
    param v: [D] = zeros

data Ex:
    x: [D]

fn forward(m: A, x: [D]) -> [D] = x * m.w

fn forward(m: B, x: [D]) -> [D] = x * m.v

fn loss(m: A, batch: [b] Ex) -> [] = sum(batch.x @ m.w)

## One SGD step on any model that has a `loss`.
fn step(mut m: M, mut opt: SGD[M], batch: [b] E) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    y = forward(m, batch.x)
    return l

fn probe(b: B, x: [D]) -> [D]:
    return x
"""


def test_hover_on_a_generic_function_lists_its_type_variables_and_needs() -> None:
    checked = check_text(PROGRAM)
    hover = HoverRenderer(images=False).hover(checked, PROGRAM.index("step(mut m") + 1)
    assert hover is not None
    text = hover.contents.value
    assert "fn step(mut m: M, mut opt: SGD[M], batch: [b] E) -> []" in text
    assert "`M` (a model), `E` (a data record)" in text
    assert "Calls on them: `loss`, `forward`," in text
    assert "update" not in text.split("Calls on them")[1]


def test_hover_on_another_function_has_no_generic_part() -> None:
    checked = check_text(PROGRAM)
    hover = HoverRenderer(images=False).hover(checked, PROGRAM.index("probe(b") + 1)
    assert hover is not None and "Generic" not in hover.contents.value


def test_m_dot_offers_the_overload_for_its_model_and_generic_functions() -> None:
    text = PROGRAM.replace("    return x\n", "    b.\n")
    checked = check_text(text)
    offset = text.index("b.\n") + 2
    candidates = member_candidates(
        checked, text, "b", ModelType("B"), offset - 2, offset, snippets=False
    )
    details = {candidate.label: candidate.detail for candidate in candidates}
    assert details["forward"] == "fn forward(m: B, x: [D]) -> [D]"
    assert details["step"].startswith("fn step(mut m: M, ")
    # B has a forward but no loss, which step needs: a call would be E2311.
    assert details["step"].endswith("(no `loss` for B: a call would be E2311)")
    assert "loss" not in details
    for_a = member_candidates(checked, text, "b", ModelType("A"), offset - 2, offset, False)
    assert "E2311" not in {c.label: c.detail for c in for_a}["step"]
