"""A weight written transposed (`x @ w` with w: [C D] where [D C] fits) gets, on its E0401,
the help "did you mean `[D C]`?" and a quick fix that swaps the axes where it is declared."""

from __future__ import annotations

from shapescript.analysis import analyze
from shapescript.diagnostics.fixing import apply_edits, checked_fixes
from shapescript.syntax.source import SourceFile

HEAD = "dim C = 3\ndim D = 4\n\n"


def _check(text: str):
    return analyze(SourceFile.from_text("/nonexistent/weights.ss", text))


def _fixed(text: str) -> str:
    before = _check(text)
    (diagnostic,) = before
    assert diagnostic.code == "E0401"
    assert diagnostic.help == "did you mean `[D C]`?"
    (fix,) = checked_fixes(text, diagnostic, before, _check)
    fixed = apply_edits(text, fix.edits)
    assert _check(fixed) == []
    return fixed


def test_a_transposed_field_is_swapped_where_the_model_declares_it() -> None:
    text = HEAD + (
        "model M:\n    param w: [C D] = normal(std=0.02)\n\n"
        "fn f(m: M, x: [b D]) -> [b C] = x @ m.w\n"
    )
    assert "param w: [D C] = normal" in _fixed(text)


def test_a_transposed_parameter_is_swapped_in_the_signature() -> None:
    text = HEAD + "fn g(x: [b D], w: [C D]) -> [b C] = x |> matmul(w)\n"
    assert "w: [D C])" in _fixed(text)


def test_a_stacked_weight_keeps_its_leading_axes() -> None:
    text = HEAD + (
        "dim L = 2\n\nmodel M:\n    param w: [L C D] = normal(std=0.02)\n\n"
        "fn f(m: M, x: [b D], l: int) -> [b C] = x @ m.w[l]\n"
    )
    (diagnostic,) = _check(text)
    assert diagnostic.code == "E0401"
    assert diagnostic.help == "did you mean `[D C]`?"


def test_sizes_that_fit_neither_way_get_no_help() -> None:
    text = HEAD + "dim E = 5\n\nfn g(x: [b D], w: [C E]) -> [b E] = x @ w\n"
    (diagnostic,) = _check(text)
    assert diagnostic.code == "E0401"
    assert diagnostic.help is None
