"""Imports of other `.ss` files in the checker: qualified names and their types, where a file
is found, what is reported at the import line, and checks reused while nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.check import checker
from shapescript.check.algebra.types import format_type
from shapescript.check.checker import check_source
from shapescript.check.declarations import import_session, module_exports, module_paths
from shapescript.check.program import Checked
from shapescript.syntax.parser import parse
from shapescript.syntax.source import SourceFile

ATTENTION = """\
dim D = 4
dim Hd = 3
dim Images = [b 2 D]
domain Positive = (0, inf)

data Digit:
    x: [D]
    y: [] Index[Hd]

logs StepLogs:
    loss: [] mean

## Two layers.
model Mlp:
    param w1: [D Hd] = normal(std=0.1)
    param w2: [Hd D] = normal(std=0.1)

fn f(x: [b D]) -> [b D] = x * 2

fn forward(m: Mlp, x: [b D]) -> [b D]:
    return (x @ m.w1) @ m.w2

fn inferred(x: [b D]) = x + 1

fn positive(x: [n] Positive) -> [n] Positive = x

fn loss(m: Mlp, batch: [b] Digit) -> []:
    return cross_entropy(forward(m, batch.x) @ m.w1, batch.y, over=Hd)
"""


@pytest.fixture(autouse=True)
def fresh_cache():
    import_session.clear_cache()
    yield
    import_session.clear_cache()


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def check(path: Path, text: str | None = None, **options) -> Checked:
    source = SourceFile.from_text(str(path), path.read_text() if text is None else text)
    return check_source(source, **options)


def codes(checked: Checked) -> list[str]:
    return [diagnostic.code for diagnostic in checked.diagnostics]


def returned(checked: Checked) -> dict[str, str]:
    """Each function's result type as messages print it."""
    return {
        item.item.name: format_type(item.body.inferred)
        for item in checked.items
        if item.body is not None
    }


def test_qualified_names_have_the_other_files_types_named_as_this_file_names_them(
    tmp_path: Path,
) -> None:
    write(tmp_path, "attention.ss", ATTENTION)
    main = write(
        tmp_path,
        "main.ss",
        """\
import attention

dim E = 2 * attention.D

fn call(x: [b attention.D]) = attention.f(x)
fn of_model(m: attention.Mlp, x: [b attention.D]) = attention.forward(m, x)
fn make() = attention.Mlp.init(seed=0)
fn field(m: attention.Mlp) = m.w1
fn over(x: [b attention.D]) = softmax(attention.f(x), over=attention.D)
fn body_type(x: [b attention.D]) = attention.inferred(x)
fn alias(x: attention.Images) = x
fn a_domain(x: [n] attention.Positive) = attention.positive(x)
fn a_batch(batch: [b] attention.Digit) = batch.x
fn a_dataset(d: Dataset[attention.Digit]) = d
fn optimizer(m: attention.Mlp) = adamw(m, lr=0.1)
fn optimizer_type(s: AdamW[attention.Mlp]) = s
fn a_log(l: []) = attention.StepLogs(loss=l)
fn gradient(m: attention.Mlp, b: [n] attention.Digit):
    l, g = value_and_grad(attention.loss, m, b)
    return g
fn dim_value() = attention.D
fn sizes(x: [E]) -> [2*attention.D] = x
""",
    )
    checked = check(main)
    assert codes(checked) == []
    assert returned(checked) == {
        "call": "[b attention.D]",
        "of_model": "[b attention.D]",
        "make": "attention.Mlp",
        "field": "[attention.D attention.Hd]",
        "over": "[b attention.D] Prob over attention.D",
        "body_type": "[b attention.D]",
        "alias": "[b 2 attention.D]",
        "a_domain": "[n] attention.Positive",
        "a_batch": "[b attention.D]",
        "a_dataset": "Dataset[attention.Digit]",
        "optimizer": "AdamW[attention.Mlp]",
        "optimizer_type": "AdamW[attention.Mlp]",
        "a_log": "attention.StepLogs",
        "gradient": "Grad[attention.Mlp]",
        "dim_value": "int",
        "sizes": "[2*attention.D]",
    }


def test_another_files_dim_is_not_this_files_dim_of_the_same_size(tmp_path: Path) -> None:
    write(tmp_path, "attention.ss", ATTENTION)
    main = write(
        tmp_path,
        "main.ss",
        "import attention\n\ndim D = 4\n\nfn mix(x: [n D], y: [n attention.D]) = x + y\n",
    )
    checked = check(main)
    assert codes(checked) == ["E0404"]
    assert "`D` and `attention.D`" in checked.diagnostics[0].message


def test_messages_name_the_other_files_model(tmp_path: Path) -> None:
    write(tmp_path, "attention.ss", ATTENTION)
    main = write(
        tmp_path,
        "main.ss",
        """\
import attention

dim D = 4

model Local:
    param w: [D] = zeros

fn wrong(m: Local, x: [b attention.D]) = attention.forward(m, x)
fn no_field(m: attention.Mlp) = m.w3
""",
    )
    checked = check(main)
    assert codes(checked) == ["E0904", "E0901"]
    assert "it is a Local, not a attention.Mlp" in checked.diagnostics[0].message
    assert checked.diagnostics[1].message == "attention.Mlp has no field `w3`"


def test_a_file_imported_under_two_names_names_its_dims_after_the_plain_import(
    tmp_path: Path,
) -> None:
    write(tmp_path, "models/attention.ss", ATTENTION)
    main = write(
        tmp_path,
        "main.ss",
        """\
import models.attention as other
import models.attention

fn f(x: [b other.D]) = other.f(x)
fn g(m: other.Mlp) -> attention.Mlp = m
""",
    )
    checked = check(main)
    assert codes(checked) == []
    assert returned(checked) == {"f": "[b attention.D]", "g": "attention.Mlp"}
    infos = checked.imports.infos
    assert [(info.name, info.module, info.prefix) for info in infos] == [
        ("other", "models.attention", "attention"),
        ("attention", "models.attention", "attention"),
    ]
    assert infos[0].path == str(tmp_path / "models" / "attention.ss")


def test_an_import_with_as_alone_names_the_file_by_its_alias(tmp_path: Path) -> None:
    write(tmp_path, "models/attention.ss", ATTENTION)
    main = write(
        tmp_path, "main.ss", "import models.attention as att\n\nfn f() = att.Mlp.init(seed=1)\n"
    )
    checked = check(main)
    assert codes(checked) == []
    assert returned(checked) == {"f": "att.Mlp"}


def test_a_file_imported_through_another_is_named_through_it(tmp_path: Path) -> None:
    write(tmp_path, "layers.ss", "dim H = 2\n\nmodel L:\n    param v: [H] = ones\n")
    write(
        tmp_path,
        "block.ss",
        "import layers\n\nfn make() = layers.L.init(seed=0)\nfn read(l: layers.L) = l.v\n",
    )
    main = write(
        tmp_path,
        "main.ss",
        """\
import block

fn made() = block.make()
fn field() = block.read(block.make())
fn not_a_name(x: [block.layers.H]) = x
""",
    )
    checked = check(main)
    assert codes(checked) == ["E2304"]
    assert returned(checked)["made"] == "block.layers.L"
    assert returned(checked)["field"] == "[block.layers.H]"


def test_names_the_file_does_not_declare(tmp_path: Path) -> None:
    write(tmp_path, "attention.ss", ATTENTION + "import python torch\n")
    main = write(
        tmp_path,
        "main.ss",
        """\
import attention

fn a(x: [n]) = attention.nothing(x)
fn b(x: attention.Nothing) = x
fn c() = attention.torch
fn d(x: [n]) = nothing_imported.f(x)
fn e(x: nothing_imported.T) = x
""",
    )
    checked = check(main)
    assert codes(checked) == ["E2304", "E2304", "E2304", "E0301", "E0301"]
    assert checked.diagnostics[0].message == (
        "`attention.ss` (imported as `attention`) declares no `nothing`"
    )


def test_a_missing_file_leaves_its_names_unknown_silently(tmp_path: Path) -> None:
    main = write(
        tmp_path,
        "main.ss",
        "import attentoin\n\nfn f(x: [n attentoin.D]) = attentoin.f(x)\n",
    )
    checked = check(main)
    assert codes(checked) == ["E2301"]
    assert checked.diagnostics[0].message == (
        "no file `attentoin.ss` next to this file, on the search path or in the standard library"
    )
    assert checked.imports.infos[0].path is None


def test_search_order_next_to_the_file_then_the_search_path_then_the_standard_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second, std = tmp_path / "first", tmp_path / "second", tmp_path / "std"
    write(second, "shared.ss", "dim S = 2\n")
    write(first, "shared.ss", "dim S = 3\n")
    write(std, "fit.ss", "dim F = 5\n")
    monkeypatch.setattr(module_paths, "STD_FOLDER", str(std))
    main = write(
        tmp_path / "program",
        "main.ss",
        "import shared\nimport shapescript.std.fit as std\n\nfn f(x: [shared.S std.F]) = x\n",
    )
    on_path = check(main, search_path=[str(first), str(second)])
    assert [info.path for info in on_path.imports.infos] == [
        str(first / "shared.ss"),
        str(std / "fit.ss"),
    ]
    assert on_path.imports.signatures == {}
    write(tmp_path / "program", "shared.ss", "dim S = 7\n")
    beside = check(main, search_path=[str(first)])
    assert beside.imports.infos[0].path == str(tmp_path / "program" / "shared.ss")
    assert check(main).dim_values["shared.S"] == 7
    assert codes(check(main, search_path=[str(second)])) == []


def test_an_imported_file_is_checked_once_while_nothing_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "attention.ss", ATTENTION)
    main = write(
        tmp_path, "main.ss", "import attention\n\nfn f(x: [b attention.D]) = attention.f(x)\n"
    )
    checked_files: list[str] = []
    original = checker.check_module

    def counting(source, session):
        checked_files.append(Path(source.path).name)
        return original(source, session)

    monkeypatch.setattr(checker, "check_module", counting)
    check(main)
    check(main)
    check(main, text=main.read_text() + "fn g(x: [b attention.D]) = x\n")
    assert checked_files == ["attention.ss"]
    write(tmp_path, "attention.ss", ATTENTION.replace("x * 2", "x * 3"))
    check(main)
    assert checked_files == ["attention.ss", "attention.ss"]


def test_a_changed_import_is_seen_by_an_incremental_check(tmp_path: Path) -> None:
    attention = write(tmp_path, "attention.ss", "dim D = 4\n\nfn f(x: [b D]) = x\n")
    main = write(
        tmp_path, "main.ss", "import attention\n\nfn g(x: [b attention.D]) = attention.f(x)\n"
    )
    first = check(main)
    assert returned(first) == {"g": "[b attention.D]"}
    attention.write_text("dim D = 4\n\nfn f(x: [b D]) = sum(x, over=D)\n")
    again = check_source(first.source, first)
    assert returned(again) == {"g": "[b]"}


def test_the_reader_gives_the_text_of_unsaved_files(tmp_path: Path) -> None:
    write(tmp_path, "attention.ss", "dim D = 4\n")
    main = write(tmp_path, "main.ss", "import attention\n\nfn g() = attention.D\n")
    unsaved = {str(tmp_path / "attention.ss"): "dim E = 4\n"}

    def read(path: str) -> str | None:
        return unsaved.get(path) or import_session.read_from_disk(path)

    assert codes(check(main)) == []
    assert codes(check(main, read=read)) == ["E2304"]


def test_an_import_in_a_notebook_cell(tmp_path: Path) -> None:
    source = SourceFile.from_text(str(tmp_path / "cell_1.ss"), "%%shapescript\nimport layers\n")
    checked = checker.check_parsed(parse(source, notebook=True))
    assert codes(checked) == ["E2306"]
    assert checked.diagnostics[0].message == "`import` of a `.ss` file can't be used here"


def test_an_exported_function_calls_only_its_own_files_functions(tmp_path: Path) -> None:
    write(tmp_path, "attention.ss", ATTENTION)
    main = write(
        tmp_path,
        "main.ss",
        """\
import attention

export fn e(x: [b attention.D]) -> [b attention.D] = attention.f(x)
fn plain(x: [b attention.D]) -> [b attention.D] = attention.f(x)
""",
    )
    checked = check(main)
    assert codes(checked) == ["E2306"]
    assert checked.source.position(checked.diagnostics[0].span.start).line == 3


def test_devices_of_an_imported_file(tmp_path: Path) -> None:
    write(tmp_path, "on_cpu.ss", "devices cpu\n\ndim D = 2\n")
    write(tmp_path, "no_devices.ss", "dim D = 2\n")
    agree = write(tmp_path, "agree.ss", "devices cpu\n\nimport on_cpu\nimport no_devices\n")
    assert codes(check(agree)) == []
    other = write(tmp_path, "other.ss", "devices mps\n\nimport on_cpu\n")
    assert codes(check(other)) == ["E2306"]
    several = write(tmp_path, "several.ss", "devices cpu[0 1]\n\nimport no_devices\n")
    assert codes(check(several)) == ["E2306"]


def test_an_import_cycle_is_reported_in_each_file_and_ends(tmp_path: Path) -> None:
    for name, imported in (("a", "b"), ("b", "c"), ("c", "a")):
        write(
            tmp_path, f"{name}.ss", f"import {imported}\n\nfn f(x: [n]) -> [n] = {imported}.f(x)\n"
        )
    for name in "abc":
        checked = check(tmp_path / f"{name}.ss")
        assert codes(checked) == ["E2302"]
    assert check(tmp_path / "a.ss").diagnostics[0].notes == [
        "the files import each other: a.ss -> b.ss -> c.ss -> a.ss"
    ]
    itself = write(tmp_path, "itself.ss", "import itself\n")
    assert codes(check(itself)) == ["E2302"]


def test_an_imported_files_warnings_are_not_reported_at_the_import(tmp_path: Path) -> None:
    write(tmp_path, "warned.ss", "fn f(x: [n]) = log(sigmoid(x))\n")
    main = write(tmp_path, "main.ss", "import warned\n")
    assert codes(check(tmp_path / "warned.ss")) == ["W0501"]
    assert codes(check(main)) == []


def test_definitions_of_qualified_names_are_in_the_other_file(tmp_path: Path) -> None:
    write(tmp_path, "attention.ss", ATTENTION)
    text = (
        "import attention\n\nfn g(m: attention.Mlp, x: [b attention.D]) = attention.forward(m, x)\n"
    )
    main = write(tmp_path, "main.ss", text)
    checked = check(main)
    call = text.index("attention.forward")
    module = checked.definition_at(call + 2)
    assert (module.name, module.kind) == ("attention", "import")
    assert module.detail == str(tmp_path / "attention.ss")
    function = checked.definition_at(call + len("attention.fo"))
    assert (function.name, function.kind, function.path) == (
        "attention.forward",
        "fn",
        str(tmp_path / "attention.ss"),
    )
    in_type = checked.definition_at(text.index("attention.Mlp") + len("attention.M"))
    assert (in_type.name, in_type.kind) == ("attention.Mlp", "model")
    assert checked.items[1].body.facts.qualified
    assert "attention.forward" in checked.items[1].body.facts.qualified.values()


def test_the_functions_of_a_models_file(tmp_path: Path) -> None:
    write(tmp_path, "attention.ss", ATTENTION)
    main = write(tmp_path, "main.ss", "import attention\n\nfn forward(x: [n]) -> [n] = x\n")
    checked = check(main)
    theirs = module_exports.functions_for_model(
        "attention.Mlp", checked.signatures, checked.imports
    )
    assert {"f", "forward", "loss"} <= set(theirs)
    assert format_type(theirs["forward"].params[0].type) == "attention.Mlp"
    assert theirs["forward"].name == "attention.forward"
    ours = module_exports.functions_for_model("Local", checked.signatures, checked.imports)
    assert ours["forward"].params[0].name == "x"


def test_a_broken_file_imported_twice_is_reported_once(tmp_path: Path) -> None:
    write(tmp_path, "broken.ss", "fn f(x: [n]) -> [n] = y\n")
    main = write(tmp_path, "main.ss", "import broken\nimport broken as again\n")
    checked = check(main)
    assert codes(checked) == ["E2303"]
    assert checked.diagnostics[0].notes == ["broken.ss:1:23: error[E0301]: unknown name `y`"]


def test_an_axis_named_over_another_files_dim(tmp_path: Path) -> None:
    write(tmp_path, "attention.ss", ATTENTION)
    main = write(
        tmp_path,
        "main.ss",
        "import attention\n\n"
        "fn p(x: [b attention.D]) -> [b attention.D] Prob over attention.D = "
        "softmax(x, over=attention.D)\n"
        "fn q(x: [b attention.D]) -> [b attention.D] Prob over attention.Hd = "
        "softmax(x, over=attention.D)\n",
    )
    assert codes(check(main)) == ["E0503"]


NETS = """\
dim D = 4
dim C = 3

model A:
    param w: [D C] = normal(std=0.1)

model B:
    param v: [D C] = normal(std=0.1)

fn forward(m: A, x: [b D]) -> [b C] = x @ m.w
fn forward(m: B, x: [b D]) -> [b C] = x @ m.v

fn loss(m: A, x: [b D], y: [b] Index[C]) -> [] = cross_entropy(forward(m, x), y, over=C)

fn weights(m: A) -> [D C] = m.w

fn train(mut m: M, mut opt: SGD[M], x: [b D], y: [b] Index[C]) -> []:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    return l
"""


def test_a_call_looks_for_functions_in_the_models_file(tmp_path: Path) -> None:
    write(tmp_path, "nets.ss", NETS)
    main = write(
        tmp_path,
        "main.ss",
        """\
import nets

fn of_a(m: nets.A, x: [b nets.D]) = forward(m, x)
fn of_b(m: nets.B, x: [b nets.D]) = nets.forward(m, x)
fn only_one(m: nets.A) = weights(m)
fn gradient(m: nets.A, x: [b nets.D], y: [b] Index[nets.C]):
    l, g = value_and_grad(loss, m, x, y)
    return g
fn none_for_b(m: nets.B, x: [b nets.D], y: [b] Index[nets.C]) = loss(m, x, y)
fn nowhere(m: nets.A) = missing(m)
fn generic_of_this_file(m: M, x: [b nets.D]) = forward(m, x)
fn instance(m: nets.B, x: [b nets.D]) = generic_of_this_file(m, x)
""",
    )
    checked = check(main)
    assert codes(checked) == ["E2308", "E0301"]
    assert checked.diagnostics[0].message == "no `loss` takes the model nets.B first"
    assert returned(checked) == {
        "of_a": "[b nets.C]",
        "of_b": "[b nets.C]",
        "only_one": "[nets.D nets.C]",
        "gradient": "Grad[nets.A]",
        "none_for_b": "unknown",
        "nowhere": "unknown",
        "generic_of_this_file": "unknown",
        "instance": "[b nets.C]",
    }
    targets = {
        target.python_name
        for item in checked.items
        if item.body is not None
        for target in item.body.facts.call_targets.values()
    }
    assert {"nets._ss_forward__A", "nets._ss_forward__B", "nets.weights", "nets.loss"} <= targets


def test_the_calling_files_own_function_for_a_model_comes_first(tmp_path: Path) -> None:
    write(tmp_path, "nets.ss", NETS)
    main = write(
        tmp_path,
        "main.ss",
        "import nets\n\nfn weights(m: nets.A) -> [nets.D] = sum(m.w, over=nets.C)\n"
        "fn use(m: nets.A) = weights(m)\n",
    )
    checked = check(main)
    assert codes(checked) == []
    assert returned(checked)["use"] == "[nets.D]"


def test_another_files_generic_function_is_instantiated_here(tmp_path: Path) -> None:
    write(tmp_path, "nets.ss", NETS)
    main = write(
        tmp_path,
        "main.ss",
        """\
import nets

fn step(mut m: nets.A, x: [b nets.D], y: [b] Index[nets.C]):
    opt = sgd(m, lr=0.1)
    return nets.train(mut m, mut opt, x, y)
""",
    )
    checked = check(main)
    assert codes(checked) == []
    assert returned(checked) == {"step": "[]"}
    assert [instance.python_name for instance in checked.instances] == ["_ss_train__nets_A"]


def test_another_files_logs_record(tmp_path: Path) -> None:
    write(tmp_path, "metrics.ss", "logs StepLogs:\n    loss: [] mean\n    count: int sum\n")
    main = write(
        tmp_path,
        "main.ss",
        """\
import metrics

fn make(l: []) = metrics.StepLogs(loss=l, count=1)
fn read(r: metrics.StepLogs) = r.count
fn misspelt(l: []) = metrics.StepLogs(los=l, count=1)
""",
    )
    checked = check(main)
    assert codes(checked) == ["E1401"]
    assert checked.diagnostics[0].message == "`metrics.StepLogs` has no metric `los`"
    assert returned(checked)["make"] == "metrics.StepLogs"
    assert returned(checked)["read"] == "int"
