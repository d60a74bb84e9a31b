"""Another file's data records in the checker: batches and datasets of `attention.Digit`,
their fields in this file's names, loops over them, calls of the other file's functions,
and the errors, by code and span."""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.check.algebra.types import format_type
from shapescript.check.checker import check_source
from shapescript.check.declarations import import_session
from shapescript.check.program import Checked
from shapescript.syntax import ast
from shapescript.syntax.source import SourceFile

DIGITS = """\
dim D = 4
dim C = 3

data Digit:
    ## The pixels.
    img: [D]
    label: [] Index[C]

logs StepLogs:
    loss: [] mean

model Net:
    param w: [D C] = normal(std=0.1)

fn loss(m: Net, batch: [b] Digit) -> []:
    return cross_entropy(batch.img @ m.w, batch.label, over=C)
"""


@pytest.fixture(autouse=True)
def fresh_cache():
    import_session.clear_cache()
    yield
    import_session.clear_cache()


def check(folder: Path, text: str) -> Checked:
    (folder / "digits.ss").write_text(DIGITS, encoding="utf-8")
    path = folder / "main.ss"
    path.write_text(text, encoding="utf-8")
    return check_source(SourceFile.from_text(str(path), text))


def returned(checked: Checked) -> dict[str, str]:
    """Each function's result type as messages print it."""
    return {
        item.item.name: format_type(item.body.inferred)
        for item in checked.items
        if isinstance(item.item, ast.FnDecl) and item.body is not None
    }


def found(checked: Checked, text: str) -> list[tuple[str, str]]:
    """Each diagnostic's code and the text its span covers."""
    return [
        (diagnostic.code, text[diagnostic.span.start : diagnostic.span.end])
        for diagnostic in checked.diagnostics
    ]


def test_batches_and_datasets_of_another_files_record(tmp_path: Path) -> None:
    text = """\
import digits

data Pair:
    x: [digits.D]

fn images(batch: [b] digits.Digit) = batch.img
fn labels(batch: [b t] digits.Digit) = batch.label
fn dataset(d: Dataset[digits.Digit]) = d
fn their_loss(m: digits.Net, batch: [n] digits.Digit) = digits.loss(m, batch)
fn gradient(m: digits.Net, batch: [n] digits.Digit):
    l, g = value_and_grad(digits.loss, m, batch)
    return g
fn epoch(m: digits.Net, d: Dataset[digits.Digit]) -> []:
    total = 0.0 to f32
    for batch in d |> shuffle(seed=1) |> batches(8):
        total = total + digits.loss(m, batch)
    return total
fn stage(d: Dataset[digits.Digit]) = d |> batches(8)
fn own_record(p: [b] Pair) = p.x
"""
    checked = check(tmp_path, text)
    # The loop gives its batch to another file's function, which padding follows there:
    # its cross_entropy has a masked version, so the last batch is padded.
    assert found(checked, text) == []
    assert returned(checked) == {
        "images": "[b digits.D]",
        "labels": "[b t] Index[digits.C]",
        "dataset": "Dataset[digits.Digit]",
        "their_loss": "[]",
        "gradient": "Grad[digits.Net]",
        "epoch": "[]",
        "stage": "Batches[digits.Digit]",
        "own_record": "[b digits.D]",
    }
    assert set(checked.data) == {"Pair"}
    assert checked.imports.data_infos["digits.Digit"].fields["img"].shape == (4,)


def test_the_loop_variable_is_a_batch_of_the_other_files_record(tmp_path: Path) -> None:
    text = """\
import digits

fn first_images(d: Dataset[digits.Digit]) -> int:
    n = 0
    for batch in d |> batches(8):
        x = batch.img
        n = n + b
    return n
"""
    checked = check(tmp_path, text)
    assert found(checked, text) == []
    loop_variable = text.index("batch in")
    assert checked.type_text_at(loop_variable) == "[b] digits.Digit"
    assert checked.type_text_at(text.index("x = ")) == "[b digits.D]"


def test_a_field_of_another_files_record_is_defined_there(tmp_path: Path) -> None:
    text = "import digits\n\nfn images(batch: [b] digits.Digit) = batch.img\n"
    checked = check(tmp_path, text)
    symbol = checked.definition_at(text.index(".img") + 2)
    assert (symbol.name, symbol.kind, symbol.path) == ("img", "field", str(tmp_path / "digits.ss"))
    assert symbol.doc == "The pixels."
    record = checked.definition_at(text.index("digits.Digit") + len("digits.D"))
    assert (record.name, record.kind) == ("digits.Digit", "data")


def test_errors_with_another_files_records(tmp_path: Path) -> None:
    text = """\
import digits

data Pair:
    x: [digits.D]

fn no_field(batch: [b] digits.Digit) = batch.imgs
fn other_record(m: digits.Net, p: [b] Pair) = digits.loss(m, p)
fn not_declared(d: Dataset[digits.Nope]) = d
fn not_a_record(d: Dataset[digits.Net]) = d
fn logs_batch(r: [n] digits.StepLogs) = r
fn dataset_field(d: Dataset[digits.Digit]) = d.img
"""
    checked = check(tmp_path, text)
    assert found(checked, text) == [
        ("E1301", "imgs"),
        ("E1303", "p"),
        ("E2304", "digits.Nope"),
        ("E0303", "Dataset[digits.Net]"),
        ("E0303", "digits.StepLogs"),
        ("E1301", "img"),
    ]
    messages = [diagnostic.message for diagnostic in checked.diagnostics]
    assert messages[0] == "digits.Digit has no field `imgs`"
    assert checked.diagnostics[0].help == "did you mean `img`?"
    assert "it holds Pair examples, not digits.Digit" in messages[1]
