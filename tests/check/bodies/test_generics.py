"""Overloaded and generic functions in the checker: which function a call picks, what an
instance is checked with, where its errors are reported, and what the compiler is told."""

from __future__ import annotations

from shapescript.check.algebra.types import format_type
from shapescript.check.checker import check_source, check_text
from shapescript.check.program import Checked
from shapescript.syntax.source import SourceFile

HEADER = """\
dim D = 4
dim C = 3

model A:
    param w: [D] = zeros

model B:
    param v: [D C] = zeros
"""


def _codes(checked: Checked) -> list[tuple[str, str]]:
    """Each diagnostic's code and the source text its span covers."""
    text = checked.source.text
    return [(d.code, text[d.span.start : d.span.end]) for d in checked.diagnostics]


def _only(checked: Checked, code: str):
    found = [d for d in checked.diagnostics if d.code == code]
    assert len(found) == 1, _codes(checked)
    return found[0]


def _type_of(checked: Checked, text: str) -> str:
    start = checked.source.text.index(text)
    found = checked.type_of(_span(start, start + len(text)))
    assert found is not None, text
    return format_type(found)


def _span(start: int, end: int):
    from shapescript.syntax.source import Span

    return Span(start, end)


# ---------------------------------------------------------------------- overloads


OVERLOADS = (
    HEADER
    + """
fn forward(m: A, x: [D]) -> [D] = x * m.w

fn forward(m: B, x: [D]) -> [C] = x @ m.v

fn both(a: A, b: B, x: [D]) -> [C]:
    y = forward(a, x)
    z = forward(b, y)
    return z
"""
)


def test_a_call_picks_the_overload_for_its_first_argument_and_gets_its_type() -> None:
    checked = check_text(OVERLOADS)
    assert _codes(checked) == []
    assert _type_of(checked, "forward(a, x)") == "[D]"
    assert _type_of(checked, "forward(b, y)") == "[C]"
    assert set(checked.overloads) == {"forward"}
    assert list(checked.overloads["forward"]) == ["A", "B"]


def test_each_overload_body_is_checked_with_its_own_model() -> None:
    checked = check_text(OVERLOADS.replace("x @ m.v", "x @ m.w"))
    assert _codes(checked) == [("E0901", "w")]


def test_the_compiler_is_told_which_overload_each_call_means() -> None:
    checked = check_text(OVERLOADS)
    both = next(item for item in checked.items if item.item.name == "both")
    text = checked.source.text
    targets = sorted(
        (both.base + span.start, target.key, target.python_name, target.instance)
        for span, target in both.body.facts.call_targets.items()
    )
    assert targets == [
        (text.index("forward(a, x)"), ("A",), "_ss_forward__A", None),
        (text.index("forward(b, y)"), ("B",), "_ss_forward__B", None),
    ]


def test_go_to_definition_on_a_call_finds_the_overload_it_picks() -> None:
    checked = check_text(OVERLOADS)
    text = checked.source.text
    target = checked.definition_at(text.index("forward(b, y)") + 1)
    assert target is not None
    assert target.span.start == text.index("forward(m: B")


def test_e2307_two_overloads_for_one_model_at_the_second() -> None:
    checked = check_text(
        HEADER + "fn f(m: A) -> [D] = m.w\nfn g(x: [D]) -> [D] = x\nfn f(m: A) -> [D] = m.w\n"
    )
    diagnostic = _only(checked, "E2307")
    text = checked.source.text
    assert diagnostic.span.start == text.rindex("fn f") + 3
    assert "model A" in diagnostic.message
    assert [label.span.start for label in diagnostic.secondary] == [text.index("fn f") + 3]


def test_e2307_a_generic_function_shares_its_name_with_no_other() -> None:
    checked = check_text(HEADER + "fn f(m: M) -> [D] = zeros_like(m.w)\nfn f(m: B) -> [D] = m.w\n")
    assert [code for code, _ in _codes(checked)] == ["E2307"]


def test_e0302_for_two_functions_that_take_no_model_first() -> None:
    checked = check_text(HEADER + "fn f(x: [D]) -> [D] = x\nfn f(x: [D]) -> [D] = x\n")
    assert [code for code, _ in _codes(checked)] == ["E0302"]


def test_e2308_a_model_none_of_the_overloads_takes_at_the_first_argument() -> None:
    checked = check_text(
        OVERLOADS
        + "model Z:\n    param z: [D] = zeros\n\nfn h(z: Z, x: [D]) -> [D] = forward(z, x)\n"
    )
    assert _codes(checked) == [("E2308", "z")]
    assert "A or B" in _only(checked, "E2308").notes[0]


def test_e2308_in_value_and_grad_for_a_model_no_loss_takes() -> None:
    checked = check_text(
        HEADER
        + "fn loss(m: A, x: [D]) -> [] = sum(x * m.w)\n"
        + "model A2:\n    param w: [D] = zeros\n"
        + "fn loss(m: A2, x: [D]) -> [] = sum(x * m.w)\n"
        + "fn g(b: B, x: [D]) -> Grad[B]:\n    l, g = value_and_grad(loss, b, x)\n    return g\n"
    )
    assert _codes(checked) == [("E2308", "b")]


def test_value_and_grad_of_an_overload_reads_that_overloads_params() -> None:
    checked = check_text(
        HEADER
        + "fn loss(m: A, x: [D]) -> [] = sum(x * m.w)\n"
        + "fn loss(m: B, x: [D]) -> [] = sum(x @ m.v)\n"
        + "fn g(b: B, x: [D]) -> Grad[B]:\n    l, g = value_and_grad(loss, b, x)\n    return g\n"
    )
    assert _codes(checked) == []


# ---------------------------------------------------------------------- generic functions


STEP = """\
dim D = 8
dim C = 3

model A:
    param w: [D C] = normal(std=0.1)

data Ex:
    x: [D]
    y: [] Index[C]

fn loss(m: A, batch: [b] Ex) -> []:
    return cross_entropy(batch.x @ m.w, batch.y, over=C)

## One SGD step on any model that has a `loss`.
fn step(mut m: M, mut opt: SGD[M], batch: [b] E) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l

fn train(mut m: A, batch: [b] Ex) -> []:
    opt = sgd(m, lr=0.1)
    return step(mut m, mut opt, batch)
"""


def test_the_reference_step_checks_and_records_its_instance() -> None:
    checked = check_text(STEP)
    assert _codes(checked) == []
    step = checked.signatures["step"]
    assert step.type_variables == {"M": "model", "E": "data record"}
    (instance,) = checked.instances
    assert instance.function == "step"
    assert instance.bindings == (("M", "A"), ("E", "Ex"))
    assert instance.python_name == "_ss_step__A__Ex"
    assert [format_type(p.type) for p in instance.signature.params] == ["A", "SGD[A]", "[b] Ex"]
    # The instance's body has its own facts, with the overload-free call of loss.
    facts = instance.item.body.facts
    assert facts.gradients and facts.gradients[0][1:] == ("loss", "A")
    assert _type_of(checked, "step(mut m, mut opt, batch)") == "[]"


def test_a_generic_function_alone_reports_nothing() -> None:
    checked = check_text("dim D = 4\nfn f(m: M, x: [D]) -> [D] = m.nothing + undefined_name\n")
    assert _codes(checked) == []


def test_one_instance_per_function_and_types() -> None:
    checked = check_text(
        STEP
        + "fn twice(mut m: A, batch: [b] Ex) -> []:\n"
        + "    opt = sgd(m, lr=0.1)\n"
        + "    l1 = step(mut m, mut opt, batch)\n"
        + "    return step(mut m, mut opt, batch)\n"
    )
    assert _codes(checked) == []
    assert [instance.python_name for instance in checked.instances] == ["_ss_step__A__Ex"]
    calls = [
        target.instance
        for item in checked.items
        if item.body is not None
        for target in item.body.facts.call_targets.values()
    ]
    assert len(calls) == 3 and all(instance is calls[0] for instance in calls)


def test_instances_of_instances_are_recorded() -> None:
    checked = check_text(
        HEADER
        + "fn inner(m: M, x: [D]) -> [D] = x * 2.0\n"
        + "fn outer(m: M, x: [D]) -> [D] = inner(m, x)\n"
        + "fn f(a: A, b: B, x: [D]) -> [D] = outer(a, x) + outer(b, x)\n"
    )
    assert _codes(checked) == []
    assert sorted(instance.python_name for instance in checked.instances) == [
        "_ss_inner__A",
        "_ss_inner__B",
        "_ss_outer__A",
        "_ss_outer__B",
    ]


def test_an_instance_calls_the_overload_for_its_model() -> None:
    checked = check_text(
        OVERLOADS + "fn apply(m: M, x: [D]) -> [D] = x\nfn run(m: M, x: [D]) = forward(m, x)\n"
        "fn f(a: A, b: B, x: [D]) -> [C] = run(b, run(a, x))\n"
    )
    assert _codes(checked) == []
    assert _type_of(checked, "run(b, run(a, x))") == "[C]"
    assert _type_of(checked, "run(a, x)") == "[D]"
    run_b = next(i for i in checked.instances if i.python_name == "_ss_run__B")
    (target,) = run_b.item.body.facts.call_targets.values()
    assert target.python_name == "_ss_forward__B"


def test_e2309_a_type_variable_that_names_an_axis_at_the_axis() -> None:
    checked = check_text("dim D = 4\nfn f(m: M, x: [M D]) -> [D] = x[0]\n")
    assert _codes(checked) == [("E2309", "M")]
    assert _only(checked, "E2309").span.start == checked.source.text.index("[M D]") + 1


def test_e2309_a_type_variable_only_the_return_type_has() -> None:
    checked = check_text("dim D = 4\nfn f(x: [D]) -> M = x\n")
    assert _codes(checked) == [("E2309", "M")]


def test_e2310_two_types_for_one_variable_at_the_second_argument() -> None:
    checked = check_text(
        HEADER + "fn same(a: M, b: M) -> [D] = a.w\nfn f(a: A, b: B) -> [D] = same(a, b)\n"
    )
    diagnostic = _only(checked, "E2310")
    assert checked.source.text[diagnostic.span.start : diagnostic.span.end] == "b"
    assert "both A and B" in diagnostic.message


def test_e2310_no_argument_gives_the_variable_at_the_call() -> None:
    checked = check_text(
        HEADER + "fn first(m: M, x: [D]) -> [D] = x\nfn f(x: [D]) -> [D] = first(x, x)\n"
    )
    assert _codes(checked) == [("E2310", "first")]


E2311_CHAIN = (
    HEADER
    + """
fn forward(m: A, x: [D]) -> [D] = x * m.w

fn score(m: M, x: [D]) -> [D]:
    if false:
        return forward(m, x)
    return x

fn outer(m: M, x: [D]) -> [D] = score(m, x)

fn uses_b(b: B, x: [D]) -> [D] = outer(b, x)
"""
)


def test_e2311_at_the_call_naming_the_function_and_each_use_on_the_way() -> None:
    checked = check_text(E2311_CHAIN)
    diagnostic = _only(checked, "E2311")
    text = checked.source.text
    assert diagnostic.span.start == text.index("outer(b, x)")
    assert (
        diagnostic.message == "`outer` with M = B needs a function `forward` that takes `B` first"
    )
    score_use = checked.source.position(text.index("forward(m, x)"))
    outer_use = checked.source.position(text.index("score(m, x)"))
    assert diagnostic.notes == [
        f"`score` uses it at <text>:{score_use.line}:{score_use.column}, "
        f"called by `outer` at <text>:{outer_use.line}:{outer_use.column}"
    ]
    assert diagnostic.help == "declare it, here `fn forward(m: B, x: [D])`, next to the model"
    assert [d.code for d in checked.diagnostics] == ["E2311"]


def test_e2311_for_a_loss_no_function_declares() -> None:
    checked = check_text(STEP.replace("fn loss(m: A", "fn loss2(m: A"))
    diagnostic = _only(checked, "E2311")
    assert "`loss` that takes `A` first" in diagnostic.message
    assert (
        diagnostic.help
        == "declare it, here `fn loss(m: A, batch: [b] Ex) -> []`, next to the model"
    )
    assert [d.code for d in checked.diagnostics] == ["E2311"]


def test_e2312_at_the_call_with_the_instance_error_as_a_note() -> None:
    checked = check_text(
        "dim D = 4\nmodel A:\n    param w: [D] = zeros\nfn loss(m: A) -> [D] = m.w\n"
        "fn grad_of(m: M) -> Grad[M]:\n    l, g = value_and_grad(loss, m)\n    return g\n"
        "fn f(m: A) -> Grad[A] = grad_of(m)\n"
    )
    diagnostic = _only(checked, "E2312")
    text = checked.source.text
    assert diagnostic.span.start == text.index("grad_of(m)\n")
    (note,) = diagnostic.notes
    assert "error[E1106]" in note and "`grad_of` with M = A" in note
    assert [label.span.start for label in diagnostic.secondary] == [
        text.index("loss, m)"),
    ]


def test_e2313_instances_sixteen_levels_deep() -> None:
    chain = "".join(f"fn g{i}(m: M) -> [D] = g{i + 1}(m)\n" for i in range(1, 17))
    deep = HEADER + chain + "fn g17(m: M) -> [D] = m.w\nfn f(a: A) -> [D] = g1(a)\n"
    assert _codes(check_text(deep)) == [("E2313", "g1")]
    shallow = HEADER + chain.replace("g16(m)", "m.w") + "fn f(a: A) -> [D] = g1(a)\n"
    shallow = shallow.replace("fn g16(m: M) -> [D] = g17(m)\n", "")
    assert _codes(check_text(shallow)) == []


def test_a_generic_function_that_calls_itself_with_the_same_types() -> None:
    checked = check_text(
        HEADER + "fn again(m: M, n: int) -> int:\n    if n > 0:\n        return again(m, n - 1)\n"
        "    return n\nfn f(a: A) -> int = again(a, 3)\n"
    )
    assert _codes(checked) == []
    assert [instance.python_name for instance in checked.instances] == ["_ss_again__A"]


# ---------------------------------------------------------------------- the editor's re-check


def test_an_edit_of_another_body_reuses_the_instances() -> None:
    first = check_source(SourceFile.from_text("step.ss", STEP))
    for edited in (
        # The caller's body is the same: its facts, instance included, are reused.
        STEP.replace("batch.x @ m.w, batch.y", "(batch.x @ m.w) * 1.0, batch.y"),
        # The caller is checked again, and finds the instance it made last time.
        STEP.replace("opt = sgd(m, lr=0.1)", "opt = sgd(m, lr=0.2)"),
    ):
        second = check_source(SourceFile.from_text("step.ss", edited), first)
        assert second.diagnostics == []
        assert second.instances[0] is first.instances[0]


def test_an_edit_of_the_generic_body_checks_its_callers_again() -> None:
    first = check_source(SourceFile.from_text("step.ss", STEP))
    broken = STEP.replace("update(mut m, mut opt, g)", "update(mut m, mut opt, g)\n    l2 = m.x")
    second = check_source(SourceFile.from_text("step.ss", broken), first)
    assert [d.code for d in second.diagnostics] == ["E2312"]
    third = check_source(SourceFile.from_text("step.ss", STEP), second)
    assert third.diagnostics == []


def test_lines_added_above_a_generic_function_move_its_notes() -> None:
    broken = (
        HEADER
        + "fn scale(m: M, x: [D]) -> [D] = x * m.w\nfn f(b: B, x: [D]) -> [D] = scale(b, x)\n"
    )
    first = check_source(SourceFile.from_text("s.ss", broken))
    moved = broken.replace("fn scale", "\n\nfn scale")
    second = check_source(SourceFile.from_text("s.ss", moved), first)
    line = second.source.position(moved.index("x * m.w")).line
    assert f"s.ss:{line}:" in _only(second, "E2312").notes[0]


def test_instances_stay_remembered_while_their_callers_are_reused() -> None:
    first = check_source(SourceFile.from_text("step.ss", STEP))
    # The caller's body is reused here, so no call asks for the instance...
    loss_edit = STEP.replace("batch.x @ m.w, batch.y", "(batch.x @ m.w) * 1.0, batch.y")
    second = check_source(SourceFile.from_text("step.ss", loss_edit), first)
    # ...and the next edit, of the caller, still finds it.
    caller_edit = loss_edit.replace("opt = sgd(m, lr=0.1)", "opt = sgd(m, lr=0.2)")
    third = check_source(SourceFile.from_text("step.ss", caller_edit), second)
    assert third.instances[0] is first.instances[0]


def test_instances_are_carried_through_edits_that_ask_for_none_of_them() -> None:
    text = (
        STEP
        + "fn twice(mut m: A, batch: [b] Ex) -> []:\n"
        + "    opt = sgd(m, lr=0.1)\n"
        + "    return step(mut m, mut opt, batch)\n\n"
        + "fn other(x: [D]) -> [D]:\n"
        + "    return x\n"
    )
    first = check_text(text)
    ((key, outcome),) = [(k, v) for k, v in first.memo.items() if k[0:1] == ("instance",)]
    # Edits elsewhere, one above the instance's caller: no body asks for the instance.
    previous, moved = first, text
    for edit in ("    y = x\n    return y\n", "    z = x\n    return z\n"):
        moved = "## Moved.\n" + moved.replace(moved[moved.index("fn other") :], "")
        moved += "fn other(x: [D]) -> [D]:\n" + edit
        previous = check_source(SourceFile.from_text("<text>", moved), previous)
        assert previous.memo.get(key) is outcome
    # Then an edit of the caller finds it still, as a fresh check does.
    edited = moved.replace("lr=0.1", "lr=0.2")
    last = check_source(SourceFile.from_text("<text>", edited), previous)
    fresh = check_text(edited)
    assert [i.python_name for i in last.instances] == [i.python_name for i in fresh.instances]
    assert _codes(last) == _codes(fresh) == []
    assert last.memo.get(key) is outcome
