"""The compiler on deep programs: what Python can compile runs, the rest is reported."""

from __future__ import annotations

import pytest

from shapescript.analysis import check
from shapescript.codegen import BuildOptions, generate
from shapescript.syntax.source import SourceFile


def _generate(terms: int):
    text = "fn f(x: [n]) -> [n] = " + " + ".join(["x"] * terms) + "\n"
    checked = check(SourceFile.from_text("deep.ss", text))
    assert not checked.errors
    return generate(checked, BuildOptions(devices="cpu"))


def test_a_long_chain_within_pythons_limits_compiles() -> None:
    generated = _generate(150)
    assert generated.unsupported == []
    compile(generated.tree, "deep.ss", "exec")


@pytest.mark.parametrize("terms", [300, 10_000])
def test_a_chain_past_pythons_limits_is_reported_not_crashed_on(terms: int) -> None:
    generated = _generate(terms)
    (message, _span), *_ = generated.unsupported
    assert "nested too deeply for Python" in message
    namespace: dict = {"__file__": "deep.ss"}
    exec(compile(generated.tree, "deep.ss", "exec"), namespace)
    with pytest.raises(NotImplementedError, match="nested too deeply"):
        namespace["f"]()
