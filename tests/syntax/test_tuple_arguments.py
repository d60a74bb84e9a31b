"""ShapeScript has no tuples: `betas=(0.9, 0.95)`, as PyTorch writes AdamW's, is one E0201
that says to write `beta1=0.9, beta2=0.95` (with that edit as a fix), and the rest of the
file is checked as if it had been written so."""

from __future__ import annotations

from shapescript.analysis import analyze
from shapescript.diagnostics.fixing import apply_edits
from shapescript.syntax.source import SourceFile

HEAD = "dim D = 4\nmodel M:\n    param w: [D D] = zeros\n"


def _check(text: str):
    return analyze(SourceFile.from_text("/nonexistent/opt.ss", text))


def test_betas_as_a_tuple_is_one_diagnostic_with_a_fix() -> None:
    call = "adamw(m, lr=3e-4, betas=(0.9, 0.95), weight_decay=0.1)"
    text = HEAD + f"fn make(m: M) -> AdamW[M] = {call}\n"
    (diagnostic,) = _check(text)
    assert diagnostic.code == "E0201"
    assert "tuple" in diagnostic.message
    assert text[diagnostic.span.start : diagnostic.span.end] == "betas=(0.9, 0.95)"
    assert diagnostic.help == "write `beta1=0.9, beta2=0.95`"
    (fix,) = diagnostic.fixes
    fixed = apply_edits(text, fix.edits)
    assert "adamw(m, lr=3e-4, beta1=0.9, beta2=0.95, weight_decay=0.1)" in fixed
    assert _check(fixed) == []


def test_the_rest_of_the_call_is_still_checked() -> None:
    text = HEAD + "fn make(m: M) -> AdamW[M] = adamw(m, lr=3e-4, betas=(0.9, 0.95), eps=true)\n"
    assert [d.code for d in _check(text)] == ["E0201", "E0502"]


def test_another_tuple_argument_says_there_are_no_tuples() -> None:
    text = HEAD + "fn make(m: M) -> SGD[M] = sgd(m, lr=(0.1, 0.2))\n"
    (diagnostic,) = _check(text)
    assert diagnostic.code == "E0201"
    assert "no tuples" in diagnostic.message and "`lr=`" in diagnostic.message
    assert not diagnostic.fixes
