"""What the checker says about models that hold models: the help for `param` on a model
field, the path of a model that holds itself, and the types read through held models."""

from __future__ import annotations

from shapescript.analysis import check
from shapescript.syntax.source import SourceFile

HEADER = """dim D = 4
dim L = 2

model Block:
    param w: [D D] = zeros
"""


def _errors(text: str):
    return check(SourceFile.from_text("t.ss", HEADER + text)).errors


def test_a_stack_written_as_a_param_says_to_drop_param() -> None:
    (error,) = _errors("model Net:\n    param h: [L] Block\n")
    assert error.code == "E0303"
    assert "drop `param`: write `h: [L] Block`" in error.help


def test_a_model_written_as_a_param_says_to_drop_param() -> None:
    (error,) = _errors("model Net:\n    param attn: Block\n")
    assert error.code == "E0902"
    assert "drop `param`: write `attn: Block`" in error.help


def test_a_cycle_names_its_path() -> None:
    (error,) = _errors("model A:\n    b: B\n\nmodel B:\n    a: [L] A\n")
    assert error.code == "E3401"
    assert "A.b → B.a → A" in error.message


def test_nested_reads_indexes_and_loops_check() -> None:
    text = """model Net:
    h: [L] Block
    one: Block

fn f(m: Net, x: [b D], l: int) -> [b D]:
    for blk in m.h:
        x = x @ blk.w
    return x @ m.h[l].w @ m.one.w @ m.h[1].w

fn g(mut m: Net, x: [D D]):
    m.h[0].w = x
    m.one.w = x
"""
    assert _errors(text) == []
