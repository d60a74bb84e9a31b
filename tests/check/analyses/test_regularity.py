"""The regularity analysis: each function's class per parameter, followed through calls and
model fields, and E3001 where value_and_grad differentiates a function discontinuous in
its model."""

from __future__ import annotations

import re

from shapescript.check.analyses.regularity import analyse, describe
from shapescript.check.analyses.regularity_operations import (
    CLASSIFIED,
    DISCONTINUOUS,
    PIECEWISE,
    SMOOTH,
)
from shapescript.check.checker import check_text
from shapescript.check.declarations.builtin_table import BUILTINS
from shapescript.check.declarations.prelude import load_prelude

HEADER = "dim D = 4\ndim C = 3\n\n"
MODELS = """
model Inner:
    param v: [C C] = zeros

model Net:
    param w: [D C] = zeros
    buffer shift: [D] = zeros
    inner: Inner
"""


def summaries(body: str):
    checked = check_text(HEADER + MODELS + body)
    errors = [d for d in checked.diagnostics if d.code.startswith("E")]
    assert not errors, [f"{d.code} {d.message}" for d in errors]
    return analyse(checked.items, checked.models, checked.source.text).summaries


def grade(body: str, function: str, param: str) -> int | None:
    summary = summaries(body)[function]
    dependence = summary.results[summary.params.index(param)]
    return None if dependence is None else dependence.grade


def test_softmax_is_smooth():
    assert grade("fn f(x: [b C]) -> [b C] = softmax(x, over=C)\n", "f", "x") == SMOOTH


def test_relu_is_piecewise_smooth():
    body = "fn f(x: [b C]) -> [b C] = x |> relu\n"
    assert grade(body, "f", "x") == PIECEWISE
    summary = summaries(body)["f"]
    assert summary.results[0].cause.text == "`relu`"


def test_maximum_and_clamp_are_piecewise_smooth():
    body = "fn f(x: [b C], y: [b C]) -> [b C] = maximum(x, clamp(y, lo=0.0))\n"
    assert grade(body, "f", "x") == PIECEWISE
    assert grade(body, "f", "y") == PIECEWISE


def test_argmax_is_discontinuous():
    body = "fn f(x: [b C]) -> [] = mean(argmax(x, over=C) to f32)\n"
    assert grade(body, "f", "x") == DISCONTINUOUS


def test_rounding_and_integer_casts_are_discontinuous():
    assert grade("fn f(x: [b C]) -> [b C] = round(x)\n", "f", "x") == DISCONTINUOUS
    body = "fn f(x: [b C]) -> [] = mean(x to i32 to f32)\n"
    assert grade(body, "f", "x") == DISCONTINUOUS


def test_a_parameter_the_result_doesnt_use_has_no_class():
    assert grade("fn f(x: [b C], y: [b C]) -> [b C] = exp(x)\n", "f", "y") is None


def test_a_mask_from_values_is_discontinuous_in_them():
    body = "fn f(x: [b C], y: [b C]) -> [b C]:\n    return masked_fill(y, x > 0.0, 0.0)\n"
    assert grade(body, "f", "x") == DISCONTINUOUS
    # The values masked_fill passes through keep their own class.
    assert grade(body, "f", "y") == SMOOTH


def test_a_causal_mask_keeps_attention_smooth():
    body = (
        "fn f(s: [b n m]) -> [b n m]:\n"
        "    return s |> masked_fill(!causal[n m], -inf) |> softmax(over=m)\n"
    )
    assert grade(body, "f", "s") == SMOOTH


def test_a_comparison_of_sizes_depends_on_no_parameter():
    body = "fn f(x: [b C], k: int) -> [b C]:\n    if k > 2:\n        return x\n    return exp(x)\n"
    assert grade(body, "f", "x") == SMOOTH


def test_a_branch_on_values_is_discontinuous():
    body = "fn f(x: [b C]) -> [b C]:\n    if sum(x) > 0.0:\n        return x\n    return exp(x)\n"
    assert grade(body, "f", "x") == DISCONTINUOUS


def test_classes_follow_calls_by_their_summaries():
    body = (
        "fn pick(x: [b C]) -> [b] Index[C] = argmax(x, over=C)\n\n"
        "fn outer(x: [b C]) -> [] = mean(pick(x) to f32)\n\n"
        "fn kink(x: [b C]) -> [b C] = abs(x)\n\n"
        "fn twice(x: [b C]) -> [b C] = kink(kink(x))\n"
    )
    found = summaries(body)
    outer = found["outer"].results[0]
    assert outer.grade == DISCONTINUOUS
    assert outer.cause.text == "`argmax`"
    assert "`pick`" in [step.text for step in outer.path]
    assert found["twice"].results[0].grade == PIECEWISE


def test_classes_follow_model_fields_and_held_models_but_not_buffers():
    body = (
        "fn through_w(m: Net, x: [b D]) -> [b C] = x @ m.w |> relu\n\n"
        "fn through_inner(m: Net, x: [b C]) -> [b C] Binary = sign(x @ m.inner.v)\n\n"
        "fn sign(x: [b C]) -> [b C] Binary = (x > 0.0) to f32\n\n"
        "fn buffer_only(m: Net, x: [b D]) -> [b D] = round(x - m.shift)\n"
    )
    found = summaries(body)
    assert found["through_w"].results[0].grade == PIECEWISE
    assert [step.text for step in found["through_w"].results[0].path][:2] == ["`m`", "`m.w`"]
    assert found["through_inner"].results[0].grade == DISCONTINUOUS
    assert found["buffer_only"].results[0] is None


def test_a_loop_carries_classes_to_the_fixpoint():
    body = (
        "fn f(x: [b C], y: [b C]) -> [b C]:\n"
        "    h = x\n"
        "    g = x\n"
        "    for i in 0..3:\n"
        "        h = g\n"
        "        g = relu(y)\n"
        "    return h\n"
    )
    assert grade(body, "f", "y") == PIECEWISE
    assert grade(body, "f", "x") == SMOOTH


def test_iterator_chains_follow_their_stage_functions():
    body = (
        "fn above(threshold: float, x: Real) -> Mask = x > threshold\n\n"
        "fn rows(x: [n C]) -> [] = x |> map(row => sum(relu(row)), over=n) |> sum\n\n"
        "fn kept(x: [n C]) -> [] = (x |> map(row => sum(row), over=n) "
        "|> filter(t => t > 0.0) |> sum)\n\n"
        "fn big(x: [n]) -> [] = x |> filter(above(0.5, _)) |> sum\n\n"
        "fn positive(x: Real) -> Mask = x > 0.0\n\n"
        "fn named(x: [n]) -> [] = x |> filter(positive) |> sum\n\n"
        "fn rounded(x: [n]) -> [] = x |> map(round) |> sum\n"
    )
    found = summaries(body)
    assert found["rows"].results[0].grade == PIECEWISE
    assert found["kept"].results[0].grade == DISCONTINUOUS
    assert found["big"].results[0].grade == DISCONTINUOUS
    assert found["named"].results[0].grade == DISCONTINUOUS
    assert found["rounded"].results[0].grade == DISCONTINUOUS


def test_a_long_chain_of_calls_needs_no_recursion():
    count = 400
    lines = ["fn f0(x: [b C]) -> [b C] = round(x)\n"]
    lines += [f"fn f{i}(x: [b C]) -> [b C] = f{i - 1}(x)\n" for i in range(1, count)]
    found = summaries("\n".join(reversed(lines)))
    assert found[f"f{count - 1}"].results[0].grade == DISCONTINUOUS


def test_every_library_operation_has_a_class():
    prelude = load_prelude()
    library = set(BUILTINS) | {name for name in prelude.signatures if "." not in name}
    assert library - CLASSIFIED == set()


def test_describe_writes_the_class_and_its_cause():
    found = summaries("fn f(m: Net, x: [b D], k: int) -> [b C] = x @ m.w |> relu\n")
    line = describe(found["f"], lambda step: 7, ["m", "x"])
    assert line == (
        "Regularity: piecewise-smooth in `m` (`relu`, line 7), piecewise-smooth in `x` "
        "(`relu`, line 7)"
    )


# ---------------------------------------------------------------------- E3001

LOSS_THROUGH_ARGMAX = """
fn pick(m: Net, x: [b D]) -> []:
    return mean(argmax(x @ m.w, over=C) to f32)

fn step(m: Net, x: [b D]) -> Grad[Net]:
    l, g = value_and_grad(pick, m, x)
    return g
"""

LOSS_THROUGH_RELU = """
fn hinge(m: Net, x: [b D]) -> []:
    return mean(x @ m.w |> relu)

fn step(m: Net, x: [b D]) -> Grad[Net]:
    l, g = value_and_grad(hinge, m, x)
    return g
"""


def test_a_loss_through_argmax_is_refused_with_the_path():
    checked = check_text(HEADER + MODELS + LOSS_THROUGH_ARGMAX)
    found = [d for d in checked.diagnostics if d.code == "E3001"]
    assert len(found) == 1
    diagnostic = found[0]
    text = checked.source.text
    assert text[diagnostic.span.start : diagnostic.span.end] == "pick"
    assert "`argmax`" in diagnostic.message
    argmax_line = text[: text.index("argmax")].count("\n") + 1
    assert f"line {argmax_line}" in diagnostic.message
    (secondary,) = diagnostic.secondary
    assert text[secondary.span.start : secondary.span.end] == "argmax"
    (note,) = diagnostic.notes
    assert re.search(r"`m` \(line \d+\) → `m.w` \(line \d+\) → `argmax` \(line \d+\)", note)
    assert "softmax" in (diagnostic.help or "")


def test_a_loss_through_relu_is_differentiated():
    checked = check_text(HEADER + MODELS + LOSS_THROUGH_RELU)
    assert [d.code for d in checked.diagnostics if d.code.startswith("E")] == []


def test_a_deep_expression_in_a_loss_is_followed_without_a_recursion_error():
    chain = " + ".join(["x"] * 5000)
    body = (
        f"fn deep(m: Net, x: [b D]) -> [] = sum(({chain}) @ m.w |> round)\n\n"
        "fn step(m: Net, x: [b D]) -> Grad[Net]:\n"
        "    l, g = value_and_grad(deep, m, x)\n"
        "    return g\n"
    )
    checked = check_text(HEADER + MODELS + body)
    assert [d.code for d in checked.diagnostics] == ["E3001"]


# ---------------------------------------------------------------------- reuse

EDITED = """
fn scores(m: Net, x: [b D]) -> [b C] = x @ m.w |> relu

fn loss(m: Net, x: [b D]) -> [] = mean(scores(m, x))

fn other(m: Net, x: [b D]) -> [] = mean(x @ m.w)

fn step(m: Net, x: [b D]) -> Grad[Net]:
    l, g = value_and_grad(loss, m, x)
    l2, g2 = value_and_grad(other, m, x)
    return g
"""


def _scans(monkeypatch) -> list[str]:
    from shapescript.check.analyses import regularity

    scanned: list[str] = []
    run = regularity._Scan.run

    def counted(self):
        scanned.append(self.function.owner)
        return run(self)

    monkeypatch.setattr(regularity._Scan, "run", counted)
    return scanned


def _check(text: str, previous=None):
    from shapescript.check.checker import check_source
    from shapescript.syntax.source import SourceFile

    return check_source(SourceFile.from_text("edited.ss", text), previous)


def test_an_edit_elsewhere_reuses_the_summaries_at_their_new_place(monkeypatch):
    first = _check(HEADER + MODELS + EDITED.replace("|> relu", "|> round"))
    scanned = _scans(monkeypatch)
    moved_text = "# a comment that moves everything\n" + HEADER + MODELS
    moved = _check(moved_text + EDITED.replace("|> relu", "|> round"), first)
    assert scanned == []
    (error,) = [d for d in moved.diagnostics if d.code == "E3001"]
    text = moved.source.text
    round_line = text[: text.index("|> round")].count("\n") + 1
    assert f"at line {round_line}" in error.message
    (secondary,) = error.secondary
    assert text[secondary.span.start : secondary.span.end] == "round"


def test_an_edit_in_a_callee_analyses_it_and_its_callers_again(monkeypatch):
    first = _check(HEADER + MODELS + EDITED)
    assert [d.code for d in first.diagnostics if d.code.startswith("E")] == []
    scanned = _scans(monkeypatch)
    edited = _check(HEADER + MODELS + EDITED.replace("|> relu", "|> round"), first)
    assert sorted(scanned) == ["loss", "scores"]
    assert [d.code for d in edited.diagnostics if d.code.startswith("E")] == ["E3001"]


def test_a_run_of_edits_reports_as_a_fresh_check_does():
    program = HEADER + MODELS + EDITED
    edits = [
        lambda t: t.replace("|> relu", "|> round"),
        lambda t: "# moved\n" + t,
        lambda t: t.replace("mean(x @ m.w)", "mean(argmax(x @ m.w, over=C) to f32)"),
        lambda t: t.replace("|> round", "|> abs"),
        lambda t: t.replace("fn scores", "## Scores.\nfn scores"),
        lambda t: t.replace("mean(argmax(x @ m.w, over=C) to f32)", "mean(x @ m.w)"),
    ]
    previous = _check(program)
    for edit in edits:
        program = edit(program)
        again = _check(program, previous)
        fresh = _check(program)
        assert [(d.code, d.span, d.message, d.secondary, d.notes) for d in again.diagnostics] == [
            (d.code, d.span, d.message, d.secondary, d.notes) for d in fresh.diagnostics
        ]
        previous = again


def test_axis_names_that_are_also_parameter_names_are_not_values():
    # `m` is the model and, from the einsum on, an axis too (as in examples/gpt.ss).
    body = (
        "fn f(m: Net, q: [b n D], k: [b n D]) -> [b n n]:\n"
        "    return einsum(q, k: b n D, b m D -> b n m)\n"
        "        |> masked_fill(!causal[n m], -inf)\n"
        "        |> softmax(over=m)\n"
    )
    found = summaries(body)
    assert found["f"].results[0] is None
    assert found["f"].results[1].grade == SMOOTH


EXTERNS = "".join(
    f'extern fn ext{index}(x: [b C]) -> [b C] = "mylib.ops.f{index}"\n' for index in range(8)
)


def _differentiated(count: int) -> str:
    """`count` losses through the extern fns, each differentiated by a step of its own."""
    return "".join(
        f"fn loss{index}(m: Net, x: [b D]) -> [] = mean(ext{index % 8}(x @ m.w))\n\n"
        f"fn step{index}(m: Net, x: [b D]) -> Grad[Net]:\n"
        f"    l, g = value_and_grad(loss{index}, m, x)\n"
        "    return g\n\n"
        for index in range(count)
    )


def test_a_keystroke_compares_the_extern_classes_once_not_per_function(monkeypatch):
    from shapescript.check.analyses import regularity_externs

    program = HEADER + MODELS + EXTERNS + _differentiated(40)
    first = _check(program)
    assert [d.code for d in first.diagnostics if d.code.startswith("E")] == ["E3001"] * 40
    hashed: list[object] = []
    python_class = regularity_externs.PythonClass
    original = python_class.__hash__

    def counted(self) -> int:
        hashed.append(self)
        return original(self)

    monkeypatch.setattr(python_class, "__hash__", counted)
    edited = program.replace("    return g\n", "    return  g\n", 1)
    again = _check(edited, first)
    assert [d.code for d in again.diagnostics if d.code.startswith("E")] == ["E3001"] * 40
    # The extern fns' classes are part of every summary's context: a keystroke looks at
    # them once, not once per differentiated function.
    assert len(hashed) < 40


UNRELATED = """
fn unrelated(x: [b D]) -> [b D]:
    y = x * 2.0
    return y
"""


def test_an_edit_no_differentiated_function_reaches_analyses_nothing_again(monkeypatch):
    from shapescript.check.analyses import regularity

    program = HEADER + MODELS + EDITED.replace("|> relu", "|> round") + UNRELATED
    first = _check(program)
    looked_at: list[str] = []
    callees = regularity._callees

    def counted(functions, names, previous, memo):
        looked_at.extend(function.owner for function in functions)
        return callees(functions, names, previous, memo)

    monkeypatch.setattr(regularity, "_callees", counted)
    edited = program.replace("y = x * 2.0", "y = x * 3.0")
    again = _check(edited, first)
    assert looked_at == []
    again_twice = _check(edited.replace("y = x * 3.0", "y = x * 4.0"), again)
    assert looked_at == []
    monkeypatch.undo()
    fresh = _check(edited.replace("y = x * 3.0", "y = x * 4.0"))
    assert [(d.code, d.span, d.message, d.secondary, d.notes) for d in again_twice.diagnostics] == [
        (d.code, d.span, d.message, d.secondary, d.notes) for d in fresh.diagnostics
    ]
    assert [d.code for d in fresh.diagnostics if d.code.startswith("E")] == ["E3001"]
