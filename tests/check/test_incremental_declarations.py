"""Declarations taken whole from the previous analysis after a body edit (models, data
and logs records, alias cycles, imports, function bases) are where a fresh check puts
them, with their diagnostics, after edits above them and inside the functions that use
them."""

from __future__ import annotations

from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile

DECLARATIONS = """\
dim D = 8

fn top(x: [n D]) -> [n D]:
    y = x * 2.0
    return y

model Mlp:
    param w: [D] = zeros
    param v: [D] = nothing
    inner: Leaf

model Leaf:
    buffer c: [D] = ones

data Pair:
    x: [D]
    y: [?n]

logs Step:
    loss: [] mean
    wide: [D] mean

fn pick(m: Mlp, x: [b D]) -> [b D]:
    h = x * m.w
    return h

fn loss(m: Mlp, x: [b D]) -> []:
    return sum(pick(m, x))

fn grads(m: Mlp, x: [b D]) -> Grad[Mlp]:
    l, g = value_and_grad(loss, m, x)
    return g

import nowhere.near

fn bad(x: [n D] Nope) -> [n D] = x
"""

CYCLES = """\
dim D = 4

fn top(x: [n D]) -> [n D]:
    y = x * 2.0
    return y

dim Ping = [Pong n]
dim Pong = [Ping m]

model Tree:
    param w: [D] = zeros
    left: Tree

fn below(x: [n D]) -> [n D]:
    z = x + x
    return z
"""


def checked(text: str, previous=None):
    return check_source(SourceFile.from_text("main.ss", text), previous)


def _label_spans(diagnostic) -> list:
    return [(label.span, label.message) for label in [diagnostic.primary, *diagnostic.secondary]]


def facts(result) -> tuple:
    """What a consumer reads of the declarations, with absolute positions."""
    return (
        sorted(
            (d.code, d.span, d.message, _label_spans(d), d.help or "") for d in result.diagnostics
        ),
        {
            name: (
                info.span,
                info.ok,
                [(f.name, f.span, f.symbol.span, f.model) for f in info.fields.values()],
            )
            for name, info in result.models.items()
        },
        {
            name: (info.span, [(f.name, f.span, f.symbol.span) for f in info.fields.values()])
            for name, info in result.data.items()
        },
        {
            name: (info.span, [(m.name, m.span, m.symbol.span) for m in info.metrics.values()])
            for name, info in result.logs.items()
        },
        {
            name: (symbol.kind, symbol.span, symbol.detail)
            for name, symbol in result.module_symbols.items()
        },
        [
            sorted(
                (r.span, r.module_name or "", r.field or ()) for r in item.declaration.references
            )
            for item in result.items
        ],
    )


def same_as_fresh(text: str, previous):
    incremental = checked(text, previous)
    assert facts(incremental) == facts(checked(text))
    return incremental


def codes(result) -> list[str]:
    return sorted(d.code for d in result.diagnostics)


def test_models_and_records_taken_whole_move_with_their_diagnostics() -> None:
    first = checked(DECLARATIONS)
    assert codes(first) == ["E0301", "E0903", "E1302", "E1402", "E2301", "W1101"]
    # A body edit above every declaration moves them all.
    above = DECLARATIONS.replace("y = x * 2.0", "y = x * 2.0 + 1.0")
    second = same_as_fresh(above, first)
    for kind in ("models", "data", "logs"):
        taken = second.memo[f"{kind} whole"].infos.results
        assert taken is first.memo[f"{kind} whole"].infos.results
    assert second.models["Mlp"].fields["w"].span.start == above.index("w: [D]")
    # An edit inside the function that reads a model, below the declarations.
    inside = above.replace("h = x * m.w", "h = x * m.w * 2.0")
    third = same_as_fresh(inside, second)
    assert third.models["Mlp"] is second.models["Mlp"]
    # Lines added above, then taken away again: moved twice, from where they were made.
    twice = "# one\n# two\n" + inside.replace("y = x * 2.0 + 1.0", "y = x")
    fourth = same_as_fresh(twice, third)
    same_as_fresh(inside.replace("y = x * 2.0 + 1.0", "y = x * 5.0"), fourth)


def test_a_declaration_edit_checks_them_again() -> None:
    first = checked(DECLARATIONS)
    fixed = DECLARATIONS.replace("= nothing", "= ones")
    second = same_as_fresh(fixed, first)
    assert "E0903" not in codes(second)
    third = same_as_fresh(fixed.replace("y = x * 2.0", "y = x * 3.0"), second)
    assert codes(third) == ["E0301", "E1302", "E1402", "E2301", "W1101"]


def test_cycles_found_before_are_reported_again_where_they_now_are() -> None:
    first = checked(CYCLES)
    assert codes(first) == ["E2201", "E2201", "E3401"]
    above = CYCLES.replace("y = x * 2.0", "y = x * 2.0 + 1.0")
    second = same_as_fresh(above, first)
    assert not second.models["Tree"].ok
    below = same_as_fresh(above.replace("z = x + x", "z = x + x + x"), second)
    # Without cycles, the next body edits find none, and a new one is found.
    fixed = below.source.text.replace("dim Pong = [Ping m]", "dim Pong = [D m]")
    fixed = fixed.replace("    left: Tree\n", "")
    clean = same_as_fresh(fixed, below)
    assert codes(clean) == []
    assert clean.memo["collect"].aliases_clean
    moved = same_as_fresh(fixed.replace("y = x * 2.0 + 1.0", "y = x"), clean)
    assert moved.memo["collect"].aliases_clean and moved.memo["models whole"].infos.clean
    again = same_as_fresh(fixed.replace("dim Pong = [D m]", "dim Pong = [Ping m]"), moved)
    assert codes(again) == ["E2201", "E2201"]
    held = same_as_fresh(
        fixed.replace("buffer", "param").replace("zeros\n", "zeros\n    left: Tree\n"), moved
    )
    assert codes(held) == ["E3401"]


def test_the_functions_a_body_calls_are_found_where_they_now_are() -> None:
    first = checked(DECLARATIONS)
    # The functions `grads` differentiates move; then each is edited in turn.
    above = DECLARATIONS.replace("y = x * 2.0", "y = x * 2.0 + 1.0")
    second = same_as_fresh(above, first)
    edited = above.replace("return sum(pick(m, x))", "return sum(pick(m, x) * 2.0)")
    third = same_as_fresh(edited, second)
    same_as_fresh(edited.replace("h = x * m.w", "h = x * m.w + m.v"), third)
