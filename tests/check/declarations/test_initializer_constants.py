"""An initializer's arguments are constant expressions of numbers and dims, with sqrt and
pow, worked out when the file is checked (nanoGPT's `normal(std=0.02 / sqrt(2 * L))`)."""

from __future__ import annotations

import math

import pytest

from shapescript.check.checker import check_text


def _initializer(argument: str):
    text = f"dim L = 6\ndim D = 8\n\nmodel M:\n    param w: [D D] = normal(std={argument})\n"
    checked = check_text(text, "init.ss")
    return checked, text


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        ("0.02 / sqrt(2 * L)", 0.02 / math.sqrt(12)),
        ("pow(D, -0.5)", 8**-0.5),
        ("1 / sqrt(D) * pow(2, L - 4)", 4 / math.sqrt(8)),
        ("sqrt(pow(L, 2)) / 100", 0.06),
        ("-(-0.5) / (D - 7)", 0.5),
    ],
)
def test_constant_expressions_are_worked_out(argument: str, expected: float) -> None:
    checked, _ = _initializer(argument)
    assert checked.diagnostics == []
    (field,) = checked.models["M"].fields.values()
    assert field.initializer.args["std"] == pytest.approx(expected)


@pytest.mark.parametrize(
    "argument",
    ["sqrt(-1)", "sqrt(D, L)", "exp(1.0)", "pow(0, -1)", "sqrt(x=4)", "1 / (L - 6)"],
)
def test_what_isnt_a_constant_number_is_e0903_saying_what_is_allowed(argument: str) -> None:
    checked, text = _initializer(argument)
    (diagnostic,) = checked.diagnostics
    assert diagnostic.code == "E0903"
    assert "sqrt" in diagnostic.message and "pow" in diagnostic.message
    assert text[diagnostic.span.start : diagnostic.span.end].startswith("std=")
