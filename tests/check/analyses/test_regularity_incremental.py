"""A keystroke's gradient checks (E3001, E1107, W1101) reuse the previous analysis's where
the edit doesn't reach, and answer as a fresh check does: with the diagnostics where the
edit moved them, and those the edit reaches worked out again."""

from __future__ import annotations

from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile

PROGRAM = """\
dim D = 4
dim C = 3

model Net:
    param w: [D C] = zeros
    param u: [D C] = zeros

fn filler(x: [b D]) -> [b D]:
    y = x * 2.0
    return y

fn scores(m: Net, x: [b D]) -> [b C] = x @ m.w |> relu

fn loss(m: Net, x: [b D]) -> [] = mean(scores(m, x))

fn rounded(m: Net, x: [b D]) -> [] = mean(x @ m.w |> round)

fn both(m: Net, x: [b D]) -> [] = mean(x @ m.w + x @ m.u)

fn step(m: Net, x: [b D]) -> Grad[Net]:
    l, g = value_and_grad(loss, m, x)
    return g

fn later(x: [b D]) -> [b D]:
    z = x * 3.0
    return z

fn step_rounded(m: Net, x: [b D]) -> Grad[Net]:
    l, g = value_and_grad(rounded, m, x)
    return g

fn step_both(m: Net, x: [b D]) -> Grad[Net]:
    l, g = value_and_grad(both, m, x)
    return g
"""


def _check(text: str, previous=None):
    return check_source(SourceFile.from_text("edited.ss", text), previous)


def _seen(checked) -> tuple:
    """What an editor shows of a check: the diagnostics in full, and the params read."""
    return (
        [(d.code, d.span, d.message, d.secondary, d.notes, d.help) for d in checked.diagnostics],
        checked.param_reads,
    )


def _codes(checked) -> list[str]:
    return [d.code for d in checked.diagnostics]


def _edits_in_a_row(program: str, edits) -> None:
    previous = _check(program)
    for edit in edits:
        edited = edit(program)
        assert edited != program, "an edit that changes nothing"
        program = edited
        again = _check(program, previous)
        assert _seen(again) == _seen(_check(program))
        previous = again


def test_the_program_reports_what_the_edits_move() -> None:
    assert sorted(_codes(_check(PROGRAM))) == ["E3001", "W1101", "W1101"]


def test_edits_above_move_the_reused_gradient_diagnostics() -> None:
    _edits_in_a_row(
        PROGRAM,
        [
            # Lines added in a body above every differentiating function.
            lambda t: t.replace("    y = x * 2.0\n", "    y = x * 2.0\n    y = y + 1.0\n"),
            lambda t: "# moved down a line\n" + t,
            # A character typed above, and one between the differentiating functions.
            lambda t: t.replace("y = y + 1.0", "y = y + 10.0"),
            lambda t: t.replace("    z = x * 3.0\n", "    z = x * 3.0\n\n    z = z * 2.0\n"),
            lambda t: t.replace("y = y + 10.0", "y = y + 1.0"),
        ],
    )


def test_edits_inside_the_functions_they_call_are_followed() -> None:
    _edits_in_a_row(
        PROGRAM,
        [
            # `loss` calls `scores`: made discontinuous, then reading the other param.
            lambda t: t.replace("C] = x @ m.w |> relu", "C] = x @ m.w |> round"),
            lambda t: "\n\n" + t,
            lambda t: t.replace("C] = x @ m.w |> round", "C] = x @ m.w + x @ m.u |> round"),
            lambda t: t.replace("C] = x @ m.w + x @ m.u |> round", "C] = x @ m.w + x @ m.u"),
            # Functions differentiated directly: `rounded` made smooth, `both` stops
            # reading `u`.
            lambda t: t.replace("mean(x @ m.w |> round)", "mean(x @ m.w |> abs)"),
            lambda t: t.replace("mean(x @ m.w + x @ m.u)", "mean(x @ m.w)"),
            lambda t: t.replace("    y = x * 2.0\n", "    y = x * 2.0\n    y = y + 1.0\n"),
            lambda t: t.replace("mean(x @ m.w |> abs)", "mean(x @ m.w |> round)"),
            lambda t: t.replace("mean(x @ m.w)\n", "mean(x @ m.w + x @ m.u)\n"),
        ],
    )


def test_edits_inside_the_differentiating_functions_are_followed() -> None:
    _edits_in_a_row(
        PROGRAM,
        [
            lambda t: t.replace("value_and_grad(loss, m, x)", "value_and_grad(rounded, m, x)"),
            lambda t: t.replace("    l, g = value_and_grad(rounded, m, x)\n", "", 1),
            lambda t: "# above\n" + t,
            lambda t: t.replace(
                "    return g\n", "    l2, g2 = value_and_grad(both, m, x)\n    return g\n", 1
            ),
            lambda t: t.replace("value_and_grad(both, m, x)\n", "value_and_grad(both, m,  x)\n"),
        ],
    )


def test_an_edit_elsewhere_looks_again_only_at_the_bodies_that_reported(monkeypatch) -> None:
    from shapescript.check.analyses import regularity_layout
    from shapescript.check.bodies import gradients

    steps = "".join(
        f"\nfn step{index}(m: Net, x: [b D]) -> Grad[Net]:\n"
        "    l, g = value_and_grad(loss, m, x)\n"
        "    return g\n"
        for index in range(20)
    )
    program = PROGRAM.replace("x @ m.w |> relu", "x @ m.w + x @ m.u |> relu") + steps
    first = _check(program)
    assert sorted(_codes(first)) == ["E3001", "W1101"]
    checked: list[str] = []
    made_afresh: list[object] = []
    check_reads = gradients._check_reads
    fresh = regularity_layout._fresh

    def counted(reporter, program, name, model, span) -> None:
        checked.append(name)
        check_reads(reporter, program, name, model, span)

    def counted_fresh(items, decls):
        made_afresh.append(items)
        return fresh(items, decls)

    monkeypatch.setattr(gradients, "_check_reads", counted)
    monkeypatch.setattr(regularity_layout, "_fresh", counted_fresh)
    edited = program.replace("y = x * 2.0", "y = x * 2.5")
    again = _check(edited, first)
    # Only the body with a W1101 is looked at again, to report it where it now is.
    assert checked == ["rounded"]
    assert made_afresh == []
    monkeypatch.undo()
    assert _seen(again) == _seen(_check(edited))


CYCLE = """\
dim D = 4
dim C = 3

model Net:
    param w: [D C] = zeros

fn a(m: Net, x: [b D], k: int) -> []:
    if k > 0:
        return b(m, x, k - 1)
    return mean(x @ m.w)

fn b(m: Net, x: [b D], k: int) -> []:
    return a(m, x, k) |> abs

fn step(m: Net, x: [b D]) -> Grad[Net]:
    l, g = value_and_grad(a, m, x, 3)
    return g
"""


def test_edits_inside_functions_that_call_each_other_are_worked_out_afresh() -> None:
    # Summaries in a cycle depend on the order they are worked out in: an edit there
    # analyses the functions again in a fresh check's order.
    _edits_in_a_row(
        CYCLE,
        [
            lambda t: t.replace("|> abs", "|> round"),
            lambda t: "# above\n" + t,
            lambda t: t.replace("mean(x @ m.w)", "mean(x @ m.w |> relu)"),
            lambda t: t.replace("|> round", "|> abs"),
        ],
    )
