"""Every built-in that computes gets a picture: a function calling it on a small example is
run by the worker and drawn, as text and as an image, without error. The built-ins come
from `builtin_table.py`, so a new one without a case here fails."""

from __future__ import annotations

import asyncio
import sys

import pytest

from shapescript.analysis import check
from shapescript.check.declarations.builtin_table import BUILTINS
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.function_pictures import markdown, picture_grids
from shapescript_lsp.pictures.examples import example
from shapescript_lsp.pictures.worker import Worker

pytest.importorskip("torch")

#: The kinds of built-ins that compute values; of the pattern operations, einsum and reduce.
COMPUTING_KINDS = frozenset({"reduction", "along_axis", "elementwise", "matmul", "mask"})
COMPUTING_PATTERNS = frozenset({"einsum", "reduce"})


def _over(name: str, x: str = "[n D]", returns: str = "") -> str:
    return f"fn f(x: {x}){returns} = {name}(x, over=D)"


#: A function `f` calling each built-in, on values of the types it takes.
CASES = {
    **{name: _over(name) for name in ("sum", "mean", "max", "min", "prod", "logsumexp")},
    **{name: _over(name) for name in ("std", "var", "norm", "cumsum", "cumprod", "sort")},
    **{name: _over(name) for name in ("argsort", "argmax", "argmin")},
    "any": _over("any", "[n D] Mask"),
    "all": _over("all", "[n D] Mask"),
    "softmax": "fn f(z: [n C]) -> [n C] Prob over C = softmax(z, over=C)",
    "log_softmax": "fn f(z: [n C]) -> [n C] LogProb over C = log_softmax(z, over=C)",
    "topk": "fn f(z: [n C]) = topk(z, 3, over=C)",
    "cross_entropy": "fn f(z: [n C], y: [n] Index[C]) = cross_entropy(z, y, over=C)",
    "cat": "fn f(x: [n D], y: [n D]) = cat(x, y, over=n)",
    "stack": "fn f(x: [n D], y: [n D]) = stack(x, y, over=s)",
    "gather": "fn f(z: [n C], y: [n k] Index[C]) = gather(z, y, over=C)",
    "scatter": ("fn f(x: [n C], i: [n k] Index[C], src: [n k]) = scatter(x, i, src, over=C)"),
    "masked_fill": "fn f(s: [n m], keep: [n m] Mask) -> [n m] = masked_fill(s, !keep, -inf)",
    **{
        name: f"fn f(x: [n D]) -> [n D] = {name}(x)"
        for name in ("abs", "square", "relu", "leaky_relu", "elu", "floor", "ceil", "round")
    },
    "zeros_like": "fn f(x: [n D]) -> [n D] = zeros_like(x)",
    "pow": "fn f(x: [n D]) -> [n D] = pow(x, 3.0)",
    "positions": "fn f(x: [n D]) -> [n] Index[n] = positions(n)",
    "clamp": "fn f(x: [n D]) -> [n D] = clamp(x, -0.5, 0.5)",
    **{
        name: f"fn f(x: [n D], y: [n D]) -> [n D] = {name}(x, y)"
        for name in ("maximum", "minimum", "add", "sub", "mul", "div")
    },
    "where": "fn f(keep: [n D] Mask, x: [n D]) -> [n D] = where(keep, x, 0.0)",
    "matmul": "fn f(x: [n D], w: [D C]) -> [n C] = matmul(x, w)",
    "causal": "fn f(s: [n m]) -> [n m] Mask = causal[n m]",
    "einsum": "fn f(q: [n D], k: [m D]) = einsum(q, k: n D, m D -> n m)",
    "reduce": "fn f(x: [n D]) = reduce(x, n D -> n, mean)",
}
HEADER = "dim D = 768\ndim C = 10\n\n"


def _computing() -> list[str]:
    return sorted(
        name
        for name, entry in BUILTINS.items()
        if entry.kind in COMPUTING_KINDS or name in COMPUTING_PATTERNS
    )


def test_every_builtin_that_computes_has_a_case():
    assert sorted(CASES) == _computing()


async def _pictures() -> dict[str, str]:
    """Each built-in's text drawing, or why it has none."""
    worker = Worker(sys.executable)
    drawn: dict[str, str] = {}
    try:
        for name in _computing():
            checked = check(SourceFile.from_text(f"{name}.ss", HEADER + CASES[name] + "\n"))
            if checked.errors:
                drawn[name] = f"doesn't check: {[d.message for d in checked.errors]}"
                continue
            built = example(checked, "f")
            if built is None:
                drawn[name] = "no example"
                continue
            answer = await worker.run(built.request())
            grids = picture_grids(built, answer)
            inputs = sum(1 for argument in built.arguments if not argument.weight)
            image = markdown(grids, inputs, images=True)
            assert image.startswith("![") and "data:image/png;base64," in image, name
            drawn[name] = markdown(grids, inputs, images=False)
    finally:
        await worker.close()
    return drawn


@pytest.mark.slow
def test_every_builtin_that_computes_is_pictured_on_its_small_example():
    drawn = asyncio.run(_pictures())
    broken = {name: text for name, text in drawn.items() if not text.startswith("```text\n")}
    assert not broken
    for name, text in drawn.items():
        blocks = text.removeprefix("```text\n").removesuffix("\n```").split("\n\n")
        result = blocks[-1].splitlines()
        assert result[0].startswith("f(…)"), (name, result[0])
        assert len(result) >= 2, name
    softmax = _result(drawn["softmax"])
    assert softmax[0] == "f(…): [n C] Prob over C   (0 … 1)"
    assert all(line.endswith("Σ 1") for line in softmax[1:])
    assert "╌" in drawn["masked_fill"].split("\n\n")[-1]
    argmax = _result(drawn["argmax"])
    assert argmax[0] == "f(…): [n] Index[D]   (one-hot)"
    first = drawn["argmax"].removeprefix("```text\n").split("\n\n")[0]
    inputs = [[SHADES.index(cell) for cell in row.split()] for row in first.splitlines()[1:]]
    assert all(row.split().count("█") == 1 for row in argmax[1:])
    ones = [row.split().index("█") for row in argmax[1:]]
    assert [row[one] for row, one in zip(inputs, ones, strict=True)] == [max(r) for r in inputs]
    picks = drawn["cross_entropy"].split("\n\n")[1].splitlines()
    assert picks[0].startswith("y: [n] Index[C], the values of z it picks")
    assert [row.split().count("●") for row in picks[1:]] == [1, 1, 1]
    einsum = [row.split() for row in _result(drawn["einsum"])[1:]]
    assert [row.count("●") for row in einsum] == [0, len(einsum[1]), 0]  # q's row 1 changed


SHADES = "·░▒▓█"


def _result(text: str) -> list[str]:
    """The lines of a text drawing's last grid: the result's caption, then its rows."""
    return text.removesuffix("\n```").split("\n\n")[-1].splitlines()
