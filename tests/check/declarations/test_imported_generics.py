"""Another file's generic functions in the checker: each call checks an instance in the
calling file, whose calls find the generic function's own file's functions first and
then the model's, and whose errors are reported at the call, naming the other file's
lines; and the standard library's `fit`."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.check.algebra.types import format_type
from shapescript.check.checker import check_source
from shapescript.check.declarations import import_session
from shapescript.check.program import Checked
from shapescript.syntax.source import SourceFile


@pytest.fixture(autouse=True)
def fresh_checks():
    import_session.clear_cache()
    yield
    import_session.clear_cache()


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def check(path: Path, text: str | None = None, previous: Checked | None = None) -> Checked:
    source = SourceFile.from_text(str(path), path.read_text() if text is None else text)
    return check_source(source, previous)


def codes(checked: Checked) -> list[tuple[str, str]]:
    """Each diagnostic's code and the source text its span covers."""
    text = checked.source.text
    return [(d.code, text[d.span.start : d.span.end]) for d in checked.diagnostics]


def returned(checked: Checked, name: str) -> str:
    for item in checked.items:
        if getattr(item.item, "name", None) == name and item.body is not None:
            return format_type(item.body.inferred)
    raise AssertionError(name)


def instances(checked: Checked) -> list[tuple[str, str]]:
    return [(instance.function, instance.python_name) for instance in checked.instances]


# The reference's generic example, with the generic step in a file of its own.
TRAINING = """\
## One SGD step on any model that has a `loss`.
fn step(mut m: M, mut opt: SGD[M], batch: [b] E) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l
"""

MAIN = """\
import training

dim D = 8
dim C = 3

model A:
    param w: [D C] = normal(std=0.1)

data Ex:
    x: [D]
    y: [] Index[C]

fn loss(m: A, batch: [b] Ex) -> []:
    return cross_entropy(batch.x @ m.w, batch.y, over=C)

fn train(mut m: A, batch: [b] Ex) -> []:
    opt = sgd(m, lr=0.1)
    return training.step(mut m, mut opt, batch)
"""


def test_the_reference_example_split_over_two_files(tmp_path: Path) -> None:
    write(tmp_path, "training.ss", TRAINING)
    checked = check(write(tmp_path, "main.ss", MAIN))
    assert codes(checked) == []
    assert returned(checked, "train") == "[]"
    assert instances(checked) == [("training.step", "_ss_step__A__Ex")]
    instance = checked.instances[0]
    assert instance.home.prefix == "training"
    assert instance.home.path == str(tmp_path / "training.ss")
    # The instance's facts are of the other file's function: its `loss` is this file's.
    assert instance.decl.name == "step"
    assert format_type(instance.signature.params[0].type) == "A"


def test_e2311_at_the_call_naming_where_the_other_file_uses_it(tmp_path: Path) -> None:
    write(tmp_path, "training.ss", TRAINING)
    without_loss = MAIN.replace(
        "fn loss(m: A, batch: [b] Ex) -> []:\n"
        "    return cross_entropy(batch.x @ m.w, batch.y, over=C)\n",
        "",
    )
    checked = check(write(tmp_path, "main.ss", without_loss))
    assert codes(checked) == [("E2311", "training.step")]
    (diagnostic,) = checked.diagnostics
    assert diagnostic.message == (
        "`step` with M = A, E = Ex needs a function `loss` that takes `A` first"
    )
    assert diagnostic.notes == ["`step` uses it at training.ss:3:27"]
    assert "fn loss(m: A, batch: [b] Ex) -> []" in diagnostic.help


def test_e2312_notes_name_the_other_files_lines(tmp_path: Path) -> None:
    write(tmp_path, "training.ss", TRAINING)
    wrong_loss = MAIN.replace(
        "fn loss(m: A, batch: [b] Ex) -> []:\n"
        "    return cross_entropy(batch.x @ m.w, batch.y, over=C)\n",
        "fn loss(m: A, batch: [b] Ex) -> [C]:\n    return sum(batch.x @ m.w, over=b)\n",
    )
    checked = check(write(tmp_path, "main.ss", wrong_loss))
    assert codes(checked) == [("E2312", "training.step")]
    (diagnostic,) = checked.diagnostics
    assert diagnostic.notes[0].startswith(
        "in `step` with M = A, E = Ex, at training.ss:3:27: error[E1106]:"
    )
    # The other file's lines aren't this file's: no label points into this one for them.
    assert diagnostic.secondary == []


def test_e2310_at_the_call_of_another_files_generic_function(tmp_path: Path) -> None:
    write(tmp_path, "training.ss", TRAINING)
    no_batch = MAIN.replace(
        "return training.step(mut m, mut opt, batch)", "return training.step(mut m, mut opt, 1)"
    )
    checked = check(write(tmp_path, "main.ss", no_batch))
    assert [code for code, _ in codes(checked)] == ["E2310"]


def test_an_edit_of_the_caller_reuses_the_instance(tmp_path: Path) -> None:
    write(tmp_path, "training.ss", TRAINING)
    main = write(tmp_path, "main.ss", MAIN)
    first = check(main)
    edited = MAIN.replace("sgd(m, lr=0.1)", "sgd(m, lr=0.2)")
    second = check(main, edited, previous=first)
    assert codes(second) == []
    assert second.instances[0] is first.instances[0]


def test_an_edit_of_the_generic_file_checks_the_instance_again(tmp_path: Path) -> None:
    training = write(tmp_path, "training.ss", TRAINING)
    main = write(tmp_path, "main.ss", MAIN)
    first = check(main)
    training.write_text(TRAINING.replace("    update(mut m, mut opt, g)\n", "    x = m.nothing\n"))
    second = check(main, previous=first)
    assert [code for code, _ in codes(second)] == ["E2312"]
    assert "training.ss:4:" in second.diagnostics[0].notes[0]


# ---------------------------------------------------------------------- where calls look


LIBRARY = """\
model Toy:
    param w: [4] = zeros

## A number for a model: each model's file declares its own.
fn describe(m: Toy) -> [] = sum(m.w)

fn summary(m: M) -> [] = describe(m) + size(m)

fn size(m: M) -> [] = norm(m.w)
"""


def test_the_generic_files_names_and_then_the_models_file(tmp_path: Path) -> None:
    """`describe`, which the library declares for its own model, is found for this file's
    model in this file; `size` is the library's own generic function, though this file
    has a `size` for the model too; `norm` is the built-in, though this file declares
    one."""
    write(tmp_path, "library.ss", LIBRARY)
    main = write(
        tmp_path,
        "main.ss",
        """\
import library

model Mine:
    param w: [4] = zeros

fn describe(m: Mine) -> [] = mean(m.w)
fn size(m: Mine) -> [] = mean(m.w)
fn norm(x: [4]) -> [4] = x

fn use(m: Mine) -> [] = library.summary(m)
""",
    )
    checked = check(main)
    assert codes(checked) == []
    # An instance's name says which file's function it is where this file has a
    # function of that name too.
    assert instances(checked) == [
        ("library.summary", "_ss_summary__Mine"),
        ("library.size", "_ss_library_size__Mine"),
    ]
    targets = {
        target.function: target.python_name
        for target in checked.instances[0].item.body.facts.call_targets.values()
    }
    assert targets == {"describe": "describe", "library.size": "_ss_library_size__Mine"}


def test_a_models_file_that_isnt_the_calling_file(tmp_path: Path) -> None:
    write(tmp_path, "training.ss", TRAINING)
    write(
        tmp_path,
        "models.ss",
        MAIN.replace("import training\n", "").split("fn train(")[0],
    )
    main = write(
        tmp_path,
        "main.ss",
        """\
import models
import training

fn loss(m: models.A, x: [models.D]) -> [] = sum(x)

fn train(mut m: models.A, batch: [b] models.Ex) -> []:
    opt = sgd(m, lr=0.1)
    return training.step(mut m, mut opt, batch)
""",
    )
    checked = check(main)
    # The loss for models.A is the one next to the model, not this file's.
    assert codes(checked) == []
    targets = [
        target.python_name for target in checked.instances[0].item.body.facts.call_targets.values()
    ]
    assert targets == ["models.loss"]


# ---------------------------------------------------------------------- the standard library


PROGRAM = """\
import shapescript.std.fit as std

dim D = 4
dim C = 3

model Mlp:
    param w: [D C] = normal(std=0.1)

data Digit:
    x: [D]
    y: [] Index[C]

fn loss(m: Mlp, batch: [b] Digit, mode: Mode) -> []:
    return cross_entropy(batch.x @ m.w, batch.y, over=C)

fn train(mut m: Mlp, data: Dataset[Digit], sink: LogSink, epochs: int, mode: Mode):
    std.fit(mut m, data, sink, epochs, 64, 3e-4, mode)

fn again(m: Mlp, data: Dataset[Digit], sink: LogSink, epochs: int, mode: Mode) -> Mlp:
    return std.resume(m, data, sink, epochs, 64, mode)
"""


def test_std_fit_and_resume_check_for_a_model_with_a_loss(tmp_path: Path) -> None:
    checked = check(write(tmp_path, "main.ss", PROGRAM))
    assert codes(checked) == []
    # resume's `load("ckpt.pt", M, AdamW[M], int)` loads this file's Mlp.
    assert returned(checked, "again") == "Mlp"
    assert instances(checked) == [
        ("std.fit", "_ss_fit__Mlp__Digit"),
        ("std.run", "_ss_run__Mlp__Digit"),
        ("std.train_step", "_ss_train_step__Mlp__Digit"),
        ("std.resume", "_ss_resume__Mlp__Digit"),
    ]
    step = checked.instances[2]
    assert format_type(step.signature.return_type) == "std.StepLogs"


def test_std_fit_without_a_loss_is_e2311_as_the_reference_shows(tmp_path: Path) -> None:
    program = """\
import shapescript.std.fit as std

dim D = 4

model Plain:
    param w: [D] = zeros

data Ex:
    x: [D]

fn train(mut m: Plain, data: Dataset[Ex], sink: LogSink, mode: Mode):
    std.fit(mut m, data, sink, 1, 8, 0.1, mode)
"""
    checked = check(write(tmp_path, "main.ss", program))
    assert codes(checked) == [("E2311", "std.fit")]
    (diagnostic,) = checked.diagnostics
    assert diagnostic.message == (
        "`fit` with M = Plain, E = Ex needs a function `loss` that takes `Plain` first"
    )
    assert diagnostic.notes[0].startswith(
        "`train_step` uses it at <shapescript>/std/fit.ss:29:27, called by `run`"
    )
    assert diagnostic.help == (
        "declare it, here `fn loss(m: Plain, batch: [b] Ex, mode: Mode) -> []`, next to the model"
    )


def test_std_fits_own_functions_win_over_the_programs(tmp_path: Path) -> None:
    program = PROGRAM + (
        "\nfn train_step(m: Mlp) -> [] = sum(m.w)\n"
        "fn run(m: Mlp, x: int) -> int = x\n"
        "fn norm(x: [D]) -> [D] = x\n"
        "fn fit(m: Mlp) -> [] = mean(m.w)\n"
    )
    checked = check(write(tmp_path, "main.ss", program))
    assert codes(checked) == []
    # This file's own functions of those names make the instances' names say which
    # file's they are.
    assert [name for _, name in instances(checked)] == [
        "_ss_std_fit__Mlp__Digit",
        "_ss_std_run__Mlp__Digit",
        "_ss_std_train_step__Mlp__Digit",
        "_ss_resume__Mlp__Digit",
    ]


def test_a_type_variable_in_a_generic_body_is_the_type_it_stands_for() -> None:
    from shapescript.check.checker import check_text

    checked = check_text(
        """\
model A:
    param w: [4] = zeros

fn restore(like: M) -> M:
    m, opt = load("ckpt.pt", M, SGD[M])
    return m

fn use(a: A) -> A = restore(a)
"""
    )
    assert [d.code for d in checked.diagnostics] == []
    assert format_type(checked.instances[0].signature.return_type) == "A"
