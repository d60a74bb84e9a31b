"""What a re-check keeps from the previous analysis (params read, fingerprints, bodies,
models) is dropped when what it depends on changed, so an incremental check always
answers as a fresh one does."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchmarks.generate import generate_program
from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile

READS = """\
dim D = 64

model Mlp:
    param w: [D D] = zeros
    param v: [D] = zeros

fn inner(m: Mlp, x: [b D]) -> [] = sum(x @ m.w + m.v)

fn outer(m: Mlp, x: [b D]) -> [] = inner(m, x)

fn typed(m: Mlp, x: [b D]) -> []:
    l, g = value_and_grad(outer, m, x)
    return l
"""

DIMS = """\
dim D = 8
dim E = 4

fn f(x: [n D]) -> [n D]:
    y = x * 2.0
    return y

fn g(x: [n D]) -> [n D] = f(x)
"""


def checked(text: str, previous=None):
    return check_source(SourceFile.from_text("main.ss", text), previous)


def facts(result) -> tuple:
    """What a consumer reads, with absolute positions."""
    return (
        [(d.code, d.span, d.message) for d in result.diagnostics],
        result.param_reads,
        {
            name: (symbol.kind, symbol.span, symbol.doc, symbol.detail)
            for name, symbol in result.module_symbols.items()
        },
        {
            name: (info.span, [(field.name, field.span) for field in info.fields.values()])
            for name, info in result.models.items()
        },
        [(item.base, item.body is not None) for item in result.items],
        {
            name: (info.span, [(f.name, f.span, f.symbol.span) for f in info.fields.values()])
            for name, info in result.data.items()
        },
        {
            name: (info.span, [(m.name, m.span, m.symbol.span) for m in info.metrics.values()])
            for name, info in result.logs.items()
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
    return [d.code for d in result.diagnostics]


def test_a_body_edit_that_stops_reading_a_param_reaches_the_caller_through_another_fn() -> None:
    first = checked(READS)
    assert codes(first) == []
    assert first.param_reads["typed"]["m"] == ("w", "v")
    no_v = READS.replace("x @ m.w + m.v", "x @ m.w")
    second = same_as_fresh(no_v, first)
    assert codes(second) == ["W1101"]
    assert second.param_reads["outer"]["m"] == ("w",)
    third = same_as_fresh(READS, second)
    assert codes(third) == []


def test_params_read_of_functions_the_edit_does_not_reach_are_kept() -> None:
    text = READS + "\nfn other(m: Mlp) -> [D] = m.v\n"
    first = checked(text)
    edited = text.replace("l, g = value_and_grad", "l, g =  value_and_grad")
    second = same_as_fresh(edited, first)
    kept = second.memo["param_reads"][2]
    assert kept.reused
    assert ("other", 0, None) in kept.results
    # Its entry in `param_reads` is the previous analysis's; the edited fn's is new.
    assert second.param_reads["other"] is first.param_reads["other"]
    assert second.param_reads["typed"] is not first.param_reads["typed"]


def test_a_cycle_made_by_an_edit_is_worked_out_afresh() -> None:
    text = READS + "\nfn loop(m: Mlp, x: [b D]) -> [] = sum(x @ m.w)\n"
    first = checked(text)
    cyclic = text.replace("sum(x @ m.w)\n", "loop(m, x) + outer(m, x)\n").replace(
        "inner(m, x)", "inner(m, x) + loop(m, x)"
    )
    second = same_as_fresh(cyclic, first)
    assert second.memo["param_reads"][2].cyclic
    same_as_fresh(text, second)


def test_a_body_edit_that_uses_another_dim_gets_its_own_diagnostics() -> None:
    first = checked(DIMS)
    assert codes(first) == []
    wrong = DIMS.replace("y = x * 2.0", "y = x * 2.0\n    z: [n E] = x")
    second = same_as_fresh(wrong, first)
    assert codes(second) != []
    assert same_as_fresh(DIMS, second).diagnostics == []


def test_a_declaration_edit_rechecks_what_depends_on_it() -> None:
    first = checked(DIMS)
    # `f`'s body is unchanged text, but D's value and f's signature changed under it.
    renamed = DIMS.replace("fn f(x: [n D]) -> [n D]", "fn f(x: [n E]) -> [n E]")
    second = same_as_fresh(renamed, first)
    assert codes(second) != []
    bodies = {item.item.name: item.body for item in first.items if item.body}
    assert next(i.body for i in second.items if i.item.name == "f") is not bodies["f"]
    valued = DIMS.replace("dim E = 4", "dim E = 0")
    assert "E0305" in codes(same_as_fresh(valued, first))


def test_comment_lines_added_above_a_function_move_its_reused_diagnostics() -> None:
    broken = DIMS.replace("y = x * 2.0", "y = x * unknown_name")
    first = checked(broken)
    assert codes(first) == ["E0301"]
    commented = broken.replace("fn f(", "# one\n# two\nfn f(")
    second = same_as_fresh(commented, first)
    assert second.diagnostics[0].span.start == commented.index("unknown_name")


def test_comment_lines_added_above_a_model_move_its_fields() -> None:
    first = checked(READS)
    commented = READS.replace("model Mlp:", "# about\nmodel Mlp:")
    second = same_as_fresh(commented, first)
    assert second.models["Mlp"].fields["w"].span.start == commented.index("w: [D D]")


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    ("seed", "example"), [(0, None), (1, None), (2, None), (3, "train_mlp.ss")]
)
def test_incremental_check_equals_fresh_check_on_random_edits(seed: int, example) -> None:
    rng = random.Random(seed)
    if example is None:
        text = generate_program(150, seed)
    else:
        text = (EXAMPLES / example).read_text(encoding="utf-8")
    previous = checked(text)
    snippets = [
        "",
        "x",
        " ",
        "\n",
        "m",
        "(",
        "1",
        ".w",
        "#",
        "# note $x$\n",
        "value_and_grad",
        "\nfn h() -> int = 1\n",
        "dim Q = 3\n",
        "\n    y = x\n",
    ]
    for _ in range(12):
        at = rng.randrange(len(text) + 1)
        end = min(len(text), at + rng.choice([0, 0, 1, 2, 5, 40]))
        text = text[:at] + rng.choice(snippets) + text[end:]
        previous = same_as_fresh(text, previous)


def test_dim_values_are_kept_while_the_declarations_are_the_same() -> None:
    first = checked(DIMS)
    second = same_as_fresh(DIMS.replace("y = x * 2.0", "y = x * 3.0"), first)
    assert second.memo["dims"] is first.memo["dims"]
    third = same_as_fresh(DIMS.replace("dim E = 4", "dim E = 5"), second)
    assert third.memo["dims"] is not first.memo["dims"]
    assert third.dim_values["E"] == 5


def test_dims_that_reported_problems_report_them_again_where_they_now_are() -> None:
    broken = DIMS.replace("dim E = 4", "dim E = 0")
    first = checked(broken)
    assert first.memo["dims"] is None
    moved = "# a comment above everything\n" + broken
    second = same_as_fresh(moved, first)
    assert second.diagnostics[0].span.start == moved.index("0\n")


COLLECTED = """\
import python torch
dim D = 8

## Doubles.
fn f(x: [n D]) -> [n D]:
    y = x * 2.0
    return y

extern fn ext(x: [n D]) -> [n D] = "torch.relu"

model M:
    param w: [D D] = zeros

fn g(x: [n D]) -> [n D] = f(x)
"""


def test_a_body_edit_reuses_the_collected_names_and_moves_them() -> None:
    first = checked(COLLECTED)
    assert first.memo["collect"] is not None
    edited = "# above\n" + COLLECTED.replace("y = x * 2.0", "y = x * 2.0 + 1.0")
    second = same_as_fresh(edited, first)
    assert second.models == checked(edited).models
    assert second.memo["collect"] is not None
    assert second.module_symbols["g"].span.start == edited.index("g(x")
    assert second.module_symbols["ext"].span.start == edited.index("ext(")
    assert second.module_symbols["M"].span.start == edited.index("M:")


def test_names_moved_by_several_edits_in_a_row_are_where_a_fresh_check_puts_them() -> None:
    # Each edit moves the names below it from where the first check put them (they are
    # moved as read), an edited function's name among them: typed in `f`, typed in `g`,
    # then a line added to `f`, which moves `g` after its edit.
    first = checked(COLLECTED)
    one = COLLECTED.replace("y = x * 2.0", "y = x * 2.0 + 1.0")
    two = one.replace("= f(x)", "= f(x) * 2.0")
    three = two.replace("y = x * 2.0 + 1.0", "y = x * 2.0 + 1.0\n    y = y + 1.0")
    texts = [one, two, three]
    previous = first
    for text in texts:
        previous = same_as_fresh(text, previous)
        assert previous.memo["collect"] is not None
        assert not isinstance(previous.module_symbols, dict)  # the names were not all moved
        for name, at in (("f", "f(x:"), ("g", "g(x"), ("ext", "ext("), ("M", "M:")):
            assert previous.module_symbols[name].span.start == text.index(at)
        assert previous.module_symbols.get("torch").span.start == text.index("torch")
        assert "D" in previous.module_symbols and "nothing" not in previous.module_symbols
        assert previous.module_symbols.get("nothing") is None
    assert list(previous.module_symbols) == list(checked(texts[-1]).module_symbols)


def test_items_taken_by_kind_from_the_previous_analysis_answer_where_they_now_are() -> None:
    # The indexes of the functions, models and top-level asserts are the previous
    # analysis's while every item keeps its kind: a failing assert below an edited body
    # is reported where it now is, and a line that turns a dim into an assert is not
    # taken for a dim.
    text = COLLECTED + "\ndim H = 5\nassert D % H == 0\nfn h(x: [n D]) -> [n D] = g(x)\n"
    first = checked(text)
    assert [(d.code, d.span.start) for d in first.diagnostics] == [("E3501", text.index("D % H"))]
    edited = text.replace("y = x * 2.0", "y = x * 2.0\n    y = y + 1.0")
    second = same_as_fresh(edited, first)
    assert second.memo["by_kind"] is first.memo["by_kind"]
    assert [(d.code, d.span.start) for d in second.diagnostics] == [
        ("E3501", edited.index("D % H"))
    ]
    assert (
        same_as_fresh(edited.replace("dim H = 5", "assert D > 5"), second).memo["by_kind"]
        is not first.memo["by_kind"]
    )


def test_a_doc_or_name_edit_changes_the_collected_names() -> None:
    first = checked(COLLECTED)
    second = same_as_fresh(COLLECTED.replace("## Doubles.", "## Twice."), first)
    assert second.module_symbols["f"].doc == "Twice."
    third = same_as_fresh(COLLECTED.replace("fn f(", "fn f2("), second)
    assert "f2" in third.module_symbols and "f" not in third.module_symbols
    fourth = same_as_fresh(COLLECTED.replace("model M:", "model N:"), third)
    assert "N" in fourth.module_symbols


def test_a_name_declared_twice_is_collected_afresh_each_time() -> None:
    twice = COLLECTED.replace("fn g(", "fn f(")
    first = checked(twice)
    assert first.memo["collect"] is None
    assert "E0302" in codes(first)
    second = same_as_fresh(twice.replace("y = x * 2.0", "y = x * 3.0"), first)
    assert "E0302" in codes(second)
    # Renamed back, each name is declared once again.
    third = same_as_fresh(COLLECTED, second)
    assert "E0302" not in codes(third)


EXPORTED = """\
dim D = 64

fn helper(x: [n D]) -> [n D]:
    print(x)
    return x

fn other(x: [n D]) -> [n D]:
    y = x * 2.0
    return y

export fn f(x: [n D]) -> [n D]:
    return helper(x)
"""


def test_the_export_check_is_reused_and_moved_while_what_it_walked_is_the_same(
    monkeypatch,
) -> None:
    from shapescript.check import exports

    first = checked(EXPORTED)
    assert codes(first) == ["E1704"]
    moved = "# a line above\n" + EXPORTED.replace("x * 2.0", "x * 3.0")
    walks = []
    walk = exports._walk
    monkeypatch.setattr(exports, "_walk", lambda *a, **k: walks.append(1) or walk(*a, **k))
    reused = checked(moved, first)
    assert walks == []
    assert [(d.code, d.span) for d in reused.diagnostics] == [
        (d.code, d.span) for d in checked(moved).diagnostics
    ]
    monkeypatch.undo()
    second = same_as_fresh(moved, first)
    assert second.diagnostics[0].span.start == moved.index("print(x)")
    # An edit of a body the check walked is checked again.
    third = same_as_fresh(moved.replace("    print(x)\n", ""), second)
    assert codes(third) == []
    fourth = same_as_fresh(moved, third)
    assert codes(fourth) == ["E1704"]
    # A function the export newly reaches is walked.
    reaching = moved.replace("return helper(x)", "return other(x)").replace(
        "y = x * 3.0", "y = x * 3.0\n    print(y)"
    )
    fifth = same_as_fresh(reaching, fourth)
    assert [d.span.start for d in fifth.diagnostics] == [reaching.index("print(y)")]
    # No export left, then one again.
    unexported = reaching.replace("export fn f", "fn f")
    sixth = same_as_fresh(unexported, fifth)
    assert codes(sixth) == []
    seventh = same_as_fresh(unexported.replace("x * 3.0", "x * 6.0"), sixth)
    assert codes(seventh) == []
    assert codes(same_as_fresh(reaching, seventh)) == ["E1704"]


RECORDS = """\
dim D = 64

data Pair:
    x: [D]
    y: [?n]

logs Step:
    loss: [] mean
    wide: [D] mean

fn f(x: [n D]) -> [n D]:
    y = x * 2.0
    return y
"""


def test_data_and_logs_records_are_reused_and_moved() -> None:
    first = checked(RECORDS)
    assert sorted(codes(first)) == ["E1302", "E1402"]
    moved = "# above\n" + RECORDS.replace("x * 2.0", "x * 3.0")
    second = same_as_fresh(moved, first)
    assert second.data["Pair"].fields["x"].span.start == moved.index("x: [D]")
    assert second.logs["Step"].metrics["loss"].span.start == moved.index("loss")
    fresh = checked(moved)
    # Moved, the records are what a fresh check makes, every field of them.
    assert second.data == fresh.data and second.logs == fresh.logs
    below = same_as_fresh(moved.replace("x * 3.0", "x * 4.0"), second)
    assert below.data["Pair"] is second.data["Pair"]
    assert below.logs["Step"] is second.logs["Step"]
    # Fixing a record's field changes its check, and the other record's is kept.
    fixed = moved.replace("y: [?n]", "y: [D]")
    third = same_as_fresh(fixed, second)
    assert codes(third) == ["E1402"]
    fourth = same_as_fresh(fixed.replace("wide: [D] mean", "wide: [] sum"), third)
    assert codes(fourth) == []
    # A dim the records use changes: both are checked again.
    same_as_fresh(fixed.replace("dim D = 64", "dim D = 32"), fourth)


def _declaration_facts(result) -> list:
    return [
        (
            sorted((r.span, r.module_name or "", r.field or ()) for r in facts.references),
            sorted((span, str(type_)) for span, type_ in facts.types.items()),
        )
        for facts in (item.declaration for item in result.items)
    ]


def test_declaration_facts_are_carried_over_while_the_declarations_are_the_same() -> None:
    first = checked(COLLECTED + RECORDS.replace("dim D = 64\n", ""))
    text = first.source.text
    model = next(i for i, item in enumerate(first.items) if getattr(item.item, "name", "") == "M")
    edited = "# above\n" + text.replace("x * 2.0", "x * 5.0")
    second = checked(edited, first)
    assert second.items[model].made_declaration is first.items[model].made_declaration
    assert _declaration_facts(second) == _declaration_facts(checked(edited))
    # A changed dim changes every declaration's facts' context: none is carried.
    resized = edited.replace("dim D = 8", "dim D = 9")
    third = checked(resized, second)
    assert third.items[model].made_declaration is not second.items[model].made_declaration
    assert _declaration_facts(third) == _declaration_facts(checked(resized))
    # An edited function signature gets its own references again.
    renamed = resized.replace("fn g(x: [n D]) -> [n D] = f(x)", "fn g(y: [D n]) -> [D n] = y")
    fourth = checked(renamed, third)
    assert _declaration_facts(fourth) == _declaration_facts(checked(renamed))


SIGNATURES = """\
dim D = 8

fn bad(x: [n D] Nope) -> [n D]:
    y = x
    return y

fn good(x: [n D]) -> [n D]:
    y = x * 2.0
    return y

fn user(x: [n D]) -> [n D] = good(x)
"""


def test_signatures_are_reused_with_their_diagnostics_reported_once_where_they_are() -> None:
    first = checked(SIGNATURES)
    assert codes(first).count("E0301") == 1
    steps = [
        "# above\n" + SIGNATURES.replace("x * 2.0", "x * 4.0"),
        # The function whose signature reports is edited inside its body.
        "# above\n" + SIGNATURES.replace("y = x\n", "y = x\n    z = y\n"),
        # A function renamed, then one added: the names differ from the previous ones.
        SIGNATURES.replace("fn good(", "fn fine(").replace("good(x)", "fine(x)"),
        SIGNATURES + "\nfn extra(x: [n D] Nope) -> [n D] = x\n",
        SIGNATURES,
    ]
    previous = first
    for text in steps:
        previous = same_as_fresh(text, previous)
        assert previous.signatures.keys() == checked(text).signatures.keys()
        assert list(previous.signatures) == list(checked(text).signatures)


def test_analyses_share_the_one_table_of_built_in_symbols() -> None:
    first = check_source(SourceFile.from_text("f.ss", DIMS))
    again = check_source(SourceFile.from_text("f.ss", DIMS + "\n"), first)
    assert first.builtin_symbols is again.builtin_symbols
    assert "softmax" in again.builtin_symbols


def test_a_body_edit_looks_again_only_at_the_bodies_that_report_something(monkeypatch) -> None:
    from shapescript.check.bodies import generics

    functions = "".join(
        f"fn f{index}(x: [n D]) -> [n D]:\n    return x * {index}.0\n\n" for index in range(60)
    )
    text = "dim D = 4\n\n" + functions + "fn bad(x: [n D]) -> [n D]:\n    return y\n"
    first = checked(text)
    asked = []
    reusable = generics.body_reusable

    def counted(program, result):
        asked.append(result)
        return reusable(program, result)

    monkeypatch.setattr(generics, "body_reusable", counted)
    edited = text.replace("x * 7.0", "x * 7.5")
    again = same_as_fresh(edited, first)
    # Of 61 bodies kept, only those reporting an instance's error (which names lines
    # elsewhere) would be looked at again: the one with a diagnostic reports another.
    assert asked == []
    assert codes(again) == ["E0301"]


class _CountedSymbols(dict):
    """A dict that counts the entries its `items()` gives."""

    given = 0

    def items(self):
        for pair in super().items():
            _CountedSymbols.given += 1
            yield pair


def test_the_gradient_check_finds_python_modules_without_reading_every_name(
    monkeypatch,
) -> None:
    from shapescript.check import checker as checker_module

    outside_of = checker_module.outside_of
    seen = []

    def counted(items, symbols, table, **named):
        found = outside_of(items, _CountedSymbols(symbols), table, **named)
        seen.append(found.python_modules)
        return found

    monkeypatch.setattr(checker_module, "outside_of", counted)
    functions = "".join(f"fn f{index}(x: [n D]) -> [n D] = x\n\n" for index in range(40))
    text = "import python math\n\n" + READS + "\n" + functions
    _CountedSymbols.given = 0
    checked(text)
    assert seen == [frozenset({"math"})]
    assert _CountedSymbols.given == 0


class _CountedResults(dict):
    """A dict that counts the entries its `items()` and iteration give."""

    given = 0

    def items(self):
        for pair in super().items():
            _CountedResults.given += 1
            yield pair

    def __iter__(self):
        for key in super().__iter__():
            _CountedResults.given += 1
            yield key


def test_a_body_edit_drops_the_params_read_results_it_reaches_without_reading_the_others() -> None:
    functions = "".join(
        f"fn loss{index}(m: Mlp, x: [b D]) -> [] = sum(x @ m.w)\n\n"
        f"fn grad{index}(m: Mlp, x: [b D]) -> Grad[Mlp]:\n"
        f"    l, g = value_and_grad(loss{index}, m, x)\n    return g\n\n"
        for index in range(30)
    )
    text = READS + "\n" + functions
    first = checked(text)
    memo = first.memo["param_reads"][2]
    assert len(memo.results) > 30
    memo.results = _CountedResults(memo.results)
    _CountedResults.given = 0
    edited = text.replace("sum(x @ m.w)\n\nfn grad7", "sum(x @ m.w + m.v)\n\nfn grad7")
    again = same_as_fresh(edited, first)
    assert _CountedResults.given == 0
    assert again.param_reads["loss7"] == {"m": ("w", "v")}


def test_a_line_that_breaks_out_of_a_body_keeps_the_other_bodies() -> None:
    # Enter typed at the start of a body line makes the rest of the line a top-level line
    # that doesn't parse. It declares nothing, so every other function's check is kept.
    text = generate_program(150, 0)
    at = text.index("    y = x\n") + len("    y = ")
    previous = checked(text)
    broken = text[:at] + "\n" + text[at:]
    after = same_as_fresh(broken, previous)
    assert any(type(item.item).__name__ == "ErrorItem" for item in after.items)
    kept_before = {id(item.body) for item in previous.items if item.body is not None}
    bodies = [item.body for item in after.items if item.body is not None]
    assert sum(id(body) not in kept_before for body in bodies) <= 1
    mended = same_as_fresh(text, after)
    bodies = [item.body for item in mended.items if item.body is not None]
    assert sum(id(body) not in kept_before for body in bodies) <= 1


@pytest.mark.parametrize("seed", [0, 1])
def test_lines_typed_at_the_start_of_body_lines_answer_as_a_fresh_check(seed: int) -> None:
    rng = random.Random(seed)
    text = generate_program(150, seed)
    previous = checked(text)
    for _ in range(8):
        starts = [i + 1 for i, c in enumerate(text) if c == "\n" and text[i + 1 : i + 5] == "    "]
        at = rng.choice(starts) + rng.choice([0, 4, 8])
        text = text[:at] + rng.choice(["\n", "\nx", "\nfn", "\ndim", "\n)"]) + text[at:]
        previous = same_as_fresh(text, previous)


GENERIC_STEP = """\
dim D = 4

fn first(x: [D]) -> [D]:
    return x

model Plain:
    param w: [D] = zeros

data Ex:
    x: [D]

fn step(mut m: M, mut opt: SGD[M], batch: [b] E) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l

fn train(mut m: Plain, batch: [b] Ex) -> []:
    opt = sgd(m, lr=0.1)
    return step(mut m, mut opt, batch)
"""


def test_a_kept_body_reporting_an_instance_error_is_checked_again_when_the_instance_moves() -> None:
    first = checked(GENERIC_STEP)
    assert codes(first) == ["E2311"]
    # Lines added to the body above the generic step move it: the caller's note, which
    # names the step's line, is worked out again.
    moved = GENERIC_STEP.replace("    return x\n", "    y = x\n    z = y\n    return z\n", 1)
    again = same_as_fresh(moved, first)
    assert codes(again) == ["E2311"]
    assert again.diagnostics[0].notes == checked(moved).diagnostics[0].notes
    assert again.diagnostics[0].notes != first.diagnostics[0].notes


def test_the_fingerprints_patched_after_an_edit_are_those_hashed_afresh() -> None:
    previous = checked(DIMS)
    edits = [
        DIMS.replace("x * 2.0", "x * 3.0"),  # a typed body: the fingerprints stay
        DIMS.replace("x * 2.0", "x * 3.0").replace("-> [n D]:", "-> [n E]:"),  # a signature
        DIMS.replace("x * 2.0", "x * 3.0").replace("-> [n E]:", "-> [n D]:"),
    ]
    for text in edits:
        again = same_as_fresh(text, previous)
        fresh = checked(text)
        assert again.memo["declarations"] == fresh.memo["declarations"]
        assert again.memo["fingerprint_parts"].texts == fresh.memo["fingerprint_parts"].texts
        previous = again


def test_an_analysis_leaves_the_previous_one_as_it_was() -> None:
    # The items before an edit are shared with the previous analysis, which a request on
    # the previous version may still be reading.
    text = GENERIC_STEP + "\nfn last(x: [D]) -> [D]:\n    return x\n"
    previous = checked(text)
    edits = [
        text.replace("    return x\n", "    return x + x\n"),  # the last function's body
        text.replace("opt = sgd(m, lr=0.1)", "opt = sgd(m, lr=0.2)"),  # the caller's
        text.replace("    return x\n", "    y = x\n    return y\n", 1),  # the first one's
        "\n" + text.replace("    return x\n", "    y = x\n    return y\n", 1),  # all move
    ]
    for edited in edits:
        before = facts(previous)
        bodies = [item.body for item in previous.items]
        again = same_as_fresh(edited, previous)
        assert facts(previous) == before
        assert [item.body for item in previous.items] == bodies
        previous = again
    shared = zip(previous.items, checked(edits[-1], previous).items, strict=True)
    assert any(a is b for a, b in shared)


EFFECT = """\
dim D = 4

fn helper(x: [D], mode: Mode) -> [D] = dropout(x, 0.1, mode)

fn other(x: [D]) -> [D] = x

fn noisy(x: [n D], mode: Mode) -> [n D] = x |> map(row => helper(row, mode), over=n)
"""


def _here(result) -> str:
    [diagnostic] = result.diagnostics
    assert diagnostic.code == "E2403"
    [label] = diagnostic.secondary
    return result.source.text[label.span.start : label.span.end]


def test_e2403_points_at_the_effect_in_the_function_called_also_after_an_edit_between() -> None:
    first = checked(EFFECT)
    assert _here(first) == "dropout(x, 0.1, mode)"
    # A body between the two grows: the caller moves, the callee's effect doesn't.
    moved = EFFECT.replace("-> [D] = x\n", "-> [D] = x + x\n")
    assert _here(checked(moved, first)) == "dropout(x, 0.1, mode)"
