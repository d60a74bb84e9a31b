"""Hovers over a program whose field reads on a tensor and an int are E0301: every offset
answers without raising, and the values keep their types."""

from __future__ import annotations

from shapescript.check.checker import check_text
from shapescript_lsp.features.hover import HoverRenderer

PROGRAM = (
    "fn f(x: [n]) -> [n]:\n    return x.foo.bar\nfn g(x: int) -> int:\n    return x.nope.sum()\n"
)


def test_hovers_over_fields_of_values_without_fields() -> None:
    checked = check_text(PROGRAM, "members.ss")
    assert [d.code for d in checked.diagnostics] == ["E0301", "E0301"]
    renderer = HoverRenderer(images=False)
    answers = {offset: renderer.hover(checked, offset) for offset in range(len(PROGRAM))}
    tensor = answers[PROGRAM.index("x.foo")]
    number = answers[PROGRAM.index("x.nope")]
    assert tensor is not None and "x: [n]" in tensor.contents.value
    assert number is not None and "x: int" in number.contents.value
