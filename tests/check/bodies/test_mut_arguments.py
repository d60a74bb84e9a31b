"""`mut` on an argument of an inner call says nothing of the outer call's argument."""

from __future__ import annotations

from shapescript.check.checker import check_text

PROGRAM = """model M:
    param w: [4] = zeros

fn g(mut m: M) -> M:
    m.w = m.w + 1.0
    return m

fn f(m: M) -> [4] = m.w

"""


def _codes(body: str) -> list[str]:
    return [diagnostic.code for diagnostic in check_text(PROGRAM + body).diagnostics]


def test_an_inner_call_changing_its_argument_leaves_the_outer_one_alone() -> None:
    assert _codes("fn h(mut m: M) -> [4] = f(g(mut m))\n") == []


def test_mut_for_a_parameter_the_callee_doesnt_change_is_still_e1101() -> None:
    assert _codes("fn h(mut m: M) -> [4] = f(mut m)\n") == ["E1101"]
