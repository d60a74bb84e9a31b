"""ShapeScript has no `**` operator: `a ** b` is one E0201 whose help and quick fix write
`pow(a, b)`, and the rest of the file is checked as if it had been written so."""

from __future__ import annotations

from shapescript.analysis import analyze
from shapescript.check.checker import check_text
from shapescript.diagnostics.fixing import apply_edits
from shapescript.syntax.source import SourceFile

INIT = "dim L = 6\ndim D = 8\n\nmodel M:\n    param w: [D D] = normal(std={})\n"


def _check(text: str):
    return analyze(SourceFile.from_text("/nonexistent/power.ss", text))


def test_power_is_one_e0201_with_pow_as_its_fix() -> None:
    text = INIT.format("0.02 / (2 * L) ** 0.5")
    (diagnostic,) = _check(text)
    assert diagnostic.code == "E0201"
    assert "`**`" in diagnostic.message
    assert diagnostic.help == "write `pow((2 * L), 0.5)`"
    fixed = apply_edits(text, diagnostic.fixes[0].edits)
    assert "normal(std=0.02 / pow((2 * L), 0.5))" in fixed
    assert _check(fixed) == []


def test_the_initializer_is_still_worked_out() -> None:
    checked = check_text(INIT.format("D ** -0.5"), "power.ss")
    assert [d.code for d in checked.diagnostics] == ["E0201"]
    assert checked.models["M"].fields["w"].initializer.args["std"] == 8**-0.5


def test_power_binds_tighter_than_times_and_to_the_right() -> None:
    text = "fn f(x: [n]) -> [n] = x * 2.0 ** 3 ** 2\n"
    helps = sorted(d.help for d in _check(text))
    assert helps == ["write `pow(2.0, 3 ** 2)`", "write `pow(3, 2)`"]
