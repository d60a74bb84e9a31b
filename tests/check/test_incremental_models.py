"""Incremental checks of models and of the params functions read agree with fresh ones."""

from __future__ import annotations

import random

from shapescript.check.checker import check_source
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
