"""An architecture drawing of a model whose function nests deep: the walk over the body
runs through `run_deep`, so a hover on the model draws it instead of failing with a
`RecursionError`."""

from __future__ import annotations

import pytest

from shapescript.check.checker import check_source
from shapescript.syntax.limits import MAX_NESTING, MAX_TREE_DEPTH
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.architecture import ArchitectureSettings, architecture_hover

#: Calls nested past the interpreter's default recursion limit (two frames a level).
CALLS = 600

MODEL = "model M:\n    param w: [4] = zeros\n\n"


def nested_calls(n: int) -> str:
    return f"{MODEL}fn f(m: M, x: [4]) -> [4] = {'gelu(' * n}x * m.w{')' * n}\n"


def plus_chain(n: int) -> str:
    return f"{MODEL}fn f(m: M, x: [4]) -> [4] = x * m.w{' + x' * n}\n"


def drawing_of_m(text: str) -> str:
    checked = check_source(SourceFile.from_text("deep.ss", text))
    assert not checked.errors, [d.code for d in checked.diagnostics]
    offset = text.index("M")
    return architecture_hover(
        checked, "file:///deep.ss", offset, ArchitectureSettings(), False, "light"
    )


def test_a_model_function_with_calls_nested_past_the_recursion_limit_is_drawn() -> None:
    assert "**Architecture of M**" in drawing_of_m(nested_calls(CALLS))


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    [nested_calls(MAX_NESTING - 1), plus_chain(MAX_TREE_DEPTH - 10)],
    ids=["calls", "plus_chain"],
)
def test_a_model_function_as_deep_as_allowed_is_drawn(text: str) -> None:
    assert "**Architecture of M**" in drawing_of_m(text)
