"""Incremental checks of models and of the params functions read agree with fresh ones."""

from __future__ import annotations

import random

from shapescript.check.checker import check_source
from shapescript.check.declarations import model_memo
from shapescript.syntax.source import SourceFile

PROGRAM = """\
dim D = 4
dim Hd = 8

model Mlp:
    param w1: [D Hd] = normal(std=0.25)
    param b1: [Hd] = zeros
    param w2: [Hd D] = uniform(-0.5, 0.5)

fn forward(m: Mlp, x: [b D]) -> [b D]:
    h = x @ m.w1
    return h @ m.w2

fn alias(m: Mlp, x: [b D]) -> [b D]:
    n = m
    return forward(n, x)

fn through(m: Mlp, x: [b D]) -> [] = sum(m |> forward(x))

fn loss(m: Mlp, x: [b D]) -> []:
    return sum(forward(m, x))

fn grads(m: Mlp, x: [b D]) -> Grad[Mlp]:
    l, g = value_and_grad(loss, m, x)
    return g

fn grads2(m: Mlp, x: [b D]) -> Grad[Mlp]:
    l, g = value_and_grad(through, m, x)
    return g
"""

#: Edits that change what a function reads, a model's fields, or only move text.
EDITS = [
    ("h = x @ m.w1", "h = x @ m.w1 + m.b1"),
    ("return h @ m.w2", "return h @ m.w1 @ m.w2"),
    ("return forward(n, x)", "return forward(m, x)"),
    ("param b1: [Hd] = zeros", "buffer b1: [Hd] = zeros"),
    ("param w2: [Hd D]", "param w2: [Hd D]\n    param w3: [D] = ones"),
    ("sum(forward(m, x))", "sum(forward(m, x)) + sum(m.b1)"),
    ("dim D = 4\n", "dim D = 4\n\n# moved\n"),
    ("fn forward(m: Mlp", "fn forward(m: Mlp2"),
    ("model Mlp:", "model Mlp2:"),
    ("param b1: [Hd] = zeros", "param b1: [Hd] = nothing"),
    ("param w1: [D Hd]", "param _w1: [D Hd] i32"),
    ("dim Hd = 8", "dim Hd = 8\ndim E = Hd"),
    ("value_and_grad(loss, m, x)", "value_and_grad(other, m, x)"),
]


def checked(text: str, previous=None):
    return check_source(SourceFile.from_text("m.ss", text), previous)


def facts(result) -> tuple:
    return (
        [(d.code, d.span.start, d.span.end, d.message) for d in result.diagnostics],
        result.param_reads,
        result.models,
    )


def test_random_edits_agree_with_a_fresh_check() -> None:
    rng = random.Random(9)
    for _ in range(10):
        text = PROGRAM
        previous = checked(text)
        for _ in range(10):
            old, new = rng.choice(EDITS)
            if rng.random() < 0.5:
                old, new = new, old
            if old not in text:
                continue
            text = text.replace(old, new, 1)
            previous = checked(text, previous)
            assert facts(previous) == facts(checked(text))


def test_models_moved_by_a_body_edit_above_move_only_the_fields_read(monkeypatch) -> None:
    models = "".join(
        f"model M{index}:\n    param w: [D] = zeros\n    param v: [D] = ones\n"
        f"    buffer c: [D] = zeros\n\n"
        for index in range(40)
    )
    # Each model's loss is differentiated: W1101 looks for params it doesn't read.
    models += "".join(
        f"fn loss{index}(m: M{index}, x: [b D]) -> [] = sum(x * m.w)\n\n"
        f"fn grad{index}(m: M{index}, x: [b D]) -> Grad[M{index}]:\n"
        f"    l, g = value_and_grad(loss{index}, m, x)\n    return g\n\n"
        for index in range(40)
    )
    text = "dim D = 4\n\nfn f(x: [n D]) -> [n D]:\n    return x\n\n" + models
    first = checked(text)
    moved = []
    move = model_memo._shift_member

    def counted(member, offset):
        moved.append(member.name)
        return move(member, offset)

    monkeypatch.setattr(model_memo, "_shift_member", counted)
    edited = text.replace("return x", "return x * 2.0")
    again = checked(edited, first)
    # 120 fields moved down by the edit; none is read by the analysis itself.
    assert moved == []
    fresh = checked(edited)
    assert again.models["M7"].fields["v"].span == fresh.models["M7"].fields["v"].span
    assert again.models["M7"].fields["v"].symbol == fresh.models["M7"].fields["v"].symbol
    assert moved == ["v"]
    assert facts(again) == facts(fresh)
    # Moved again by the next edit, from where the first check found them.
    edited_twice = edited.replace("return x * 2.0", "return x * 3.0 + 1.0")
    twice = checked(edited_twice, again)
    assert facts(twice) == facts(checked(edited_twice))
