"""A curve hover on a function with a deep body: the body is turned into a curve's tree and
the tree is evaluated, ranged and written out off the interpreter's own stack, with a bound
on the tree's size, so a hover answers (with or without a curve) instead of failing with a
`RecursionError` or working for ever."""

from __future__ import annotations

import pytest

from shapescript.check.checker import check_source
from shapescript.check.program import Checked
from shapescript.syntax.limits import MAX_NESTING, MAX_TREE_DEPTH
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.curve_hover import documentation_curve
from shapescript_lsp.features.hover import HoverRenderer
from tests.hostile import programs

#: Calls nested past the interpreter's default recursion limit (two frames a level).
CALLS = 600


def checked_of(text: str) -> Checked:
    checked = check_source(SourceFile.from_text("deep.ss", text))
    assert not checked.errors, [d.code for d in checked.diagnostics]
    return checked


def hover_on_f(checked: Checked) -> str:
    text = checked.source.text
    answer = HoverRenderer(images=False).hover(checked, text.index("fn f") + 3)
    assert answer is not None
    return answer.contents.value


def nested_builtin_calls(n: int) -> str:
    return f"fn f(x: Real) -> Real = {'tanh(' * n}x{')' * n}\n"


def nested_user_calls(n: int) -> str:
    return f"fn g(x: Real) -> Real = relu(x)\nfn f(x: [n]) -> [n] = {'g(' * n}x{')' * n}\n"


def doubling_values(n: int) -> str:
    """Each value is the last one twice over: a small body whose tree, written out, doubles
    with every line."""
    lines = ["fn f(x: Real) -> Real:", "    v0 = x"]
    lines += [f"    v{i + 1} = v{i} + v{i}" for i in range(n)]
    lines.append(f"    return v{n}")
    return "\n".join(lines) + "\n"


def test_a_curve_of_calls_nested_past_the_recursion_limit_is_drawn() -> None:
    checked = checked_of(nested_builtin_calls(CALLS))
    assert "Range: " in hover_on_f(checked)
    assert "Range: " in documentation_curve(checked, "f", images=False)


def test_a_hover_on_a_function_calling_a_function_hundreds_deep_answers() -> None:
    shown = hover_on_f(checked_of(nested_user_calls(900)))
    assert shown.startswith("```shapescript\nfn f(")


def test_a_body_whose_tree_doubles_with_each_line_gets_no_curve() -> None:
    shown = hover_on_f(checked_of(doubling_values(60)))
    assert shown.startswith("```shapescript\nfn f(") and "Range:" not in shown


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    [
        nested_builtin_calls(MAX_NESTING - 1),
        nested_user_calls(MAX_NESTING - 1),
        programs.binary_chain(MAX_TREE_DEPTH - 2),
        programs.unary_run(MAX_TREE_DEPTH - 2),
    ],
    ids=["builtin_calls", "user_calls", "plus_chain", "minus_run"],
)
def test_a_hover_on_the_deepest_body_allowed_answers(text: str) -> None:
    checked = checked_of(text)
    assert hover_on_f(checked).startswith("```shapescript\nfn f(")
    documentation_curve(checked, "f", images=False)
