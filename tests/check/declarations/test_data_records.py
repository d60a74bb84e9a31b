"""Data records, batches and datasets in the checker: the diagnostics by code and span, the
types of batches and their fields, the loop over batches, and what is recorded for the
compiler and the editor."""

from __future__ import annotations

import re

import pytest

from shapescript.check.algebra.types import (
    BatchesType,
    BatchType,
    DatasetType,
    HostType,
    TensorType,
    format_type,
)
from shapescript.check.checker import check_text
from shapescript.syntax.source import Span

HEADER = """\
dim D = 4
dim C = 3

## One labelled example.
data Digit:
    ## The pixels.
    img: [D]
    label: [] Index[C]

data Pair:
    a: [D]
"""


def _diagnostics(body: str) -> list[tuple[str, str]]:
    """Each error's code and the text its span covers."""
    text = HEADER + body
    checked = check_text(text, "t.ss")
    return [(d.code, text[d.span.start : d.span.end]) for d in checked.diagnostics]


def _type_of(text: str, snippet: str, occurrence: int = 0):
    """The recorded type of the `occurrence`th appearance of `snippet` as whole words."""
    checked = check_text(text, "t.ss")
    found = list(re.finditer(rf"(?<!\w){re.escape(snippet)}(?!\w)", text))[occurrence]
    return checked.type_of(Span(found.start(), found.end()))


# ---------------------------------------------------------------------- declarations


def test_a_record_records_its_fields_with_sizes_dtypes_and_docs() -> None:
    checked = check_text(HEADER, "t.ss")
    assert not checked.diagnostics
    info = checked.data["Digit"]
    assert info.ok and info.doc == "One labelled example."
    assert list(info.fields) == ["img", "label"]
    img, label = info.fields["img"], info.fields["label"]
    assert (img.shape, img.dtype, img.type_text, img.doc) == ((4,), "f32", "[D]", "The pixels.")
    assert (label.shape, label.dtype, label.type_text) == ((), "i64", "[] Index[C]")
    assert label.type.domain.name == "Index"
    assert HEADER[img.span.start : img.span.end] == "img"


def test_go_to_definition_of_a_batch_field_finds_the_record_field() -> None:
    text = HEADER + "fn f(batch: [b] Digit) -> [b D] = batch.img\n"
    checked = check_text(text, "t.ss")
    use = text.rindex("img")
    symbol = checked.definition_at(use + 1)
    assert symbol is not None and symbol.kind == "field"
    assert text[symbol.span.start : symbol.span.end] == "img"
    assert symbol.span.start == text.index("img")


@pytest.mark.parametrize(
    ("field", "code", "spanned"),
    [
        ("tokens: [?n]", "E1302", "[?n]"),
        ("tokens: [n]", "E0301", "n"),
        ("count: int", "E1302", "int"),
        ("scale: Real", "E1302", "Real"),
        ("other: Pair", "E1302", "Pair"),
        ("train: Dataset[Pair]", "E1302", "Dataset[Pair]"),
        ("mode: Mode", "E1302", "Mode"),
        ("def: [D]", "E1302", "def"),
        ("_x: [D]", "E1302", "_x"),
        ("img: [D]", "E0302", "img"),
    ],
)
def test_invalid_fields(field: str, code: str, spanned: str) -> None:
    found = _diagnostics(f"data Bad:\n    img: [D]\n    {field}\n")
    assert found == [(code, spanned)]


def test_a_record_with_a_bad_field_is_not_ok_and_leaves_the_field_out() -> None:
    checked = check_text(HEADER + "data Bad:\n    a: [D]\n    b: int\n", "t.ss")
    info = checked.data["Bad"]
    assert not info.ok and list(info.fields) == ["a"]


# ---------------------------------------------------------------------- batches and fields


def test_batch_fields_get_the_batch_axes_first() -> None:
    text = HEADER + "fn f(batch: [b t] Digit, x: Digit) -> [] = sum(batch.label) + sum(x.img)\n"
    label = _type_of(text, "batch.label")
    assert isinstance(label, TensorType) and format_type(label) == "[b t] Index[C]"
    img = _type_of(text, "x.img")
    assert format_type(img) == "[D]"
    assert _type_of(text, "batch", 1) == BatchType("Digit", label.axes[:2])
    assert format_type(_type_of(text, "x")) == "Digit"


def test_unknown_field_suggests_a_close_one() -> None:
    text = HEADER + "fn f(batch: [b] Digit) -> [b D] = batch.imgs\n"
    checked = check_text(text, "t.ss")
    (diagnostic,) = checked.diagnostics
    assert diagnostic.code == "E1301"
    assert text[diagnostic.span.start : diagnostic.span.end] == "imgs"
    assert diagnostic.help == "did you mean `img`?"


@pytest.mark.parametrize(
    ("body", "code", "spanned"),
    [
        ("fn f(p: [b] Pair) -> [b D] = g(p)\n", "E1303", "p"),
        ("fn f(x: [b D]) -> [b D] = g(x)\n", "E1303", "x"),
        ("fn f(x: Digit) -> [1 D] = g(x)\n", "E1303", "x"),
        ("fn f(x: [b t] Digit) -> [b D] = g(x)\n", "E1303", "x"),
        ("fn f(t: Dataset[Digit]) -> [1 D] = g(t)\n", "E1303", "t"),
        ("fn f(x: [b] Digit) -> Dataset[Digit] = x\n", "E1303", "x"),
        ("fn f(x: [b] Digit) -> [b] Pair = x\n", "E1303", "x"),
        ("fn f(x: [b] Digit, y: [c] Digit) -> [b] Digit = y\n", "E0401", "y"),
        ("fn f(x: [b] Digit) -> [b D] = x + 1.0\n", "E0412", "+"),
        ("fn f(x: [b] Digit) -> [b D] = x as [b D]\n", "E0412", "x as [b D]"),
        ("fn f(t: Dataset[Digit]) -> [] = sum(t)\n", "E0412", "t"),
        ("fn f(x: [b D]) -> [b] Digit = x as [b] Digit\n", "E0303", "[b] Digit"),
        ("fn f(x: Digit[3]) -> int = 0\n", "E0303", "Digit[3]"),
        ("fn f(x: [b] Digit i64) -> int = 0\n", "E0303", "[b] Digit i64"),
        ("fn f(t: Dataset[D]) -> int = 0\n", "E0303", "Dataset[D]"),
        ("fn f(t: [n] Dataset[Digit]) -> int = 0\n", "E0303", "[n] Dataset[Digit]"),
        ("fn f() -> int:\n    x = Digit\n    return 0\n", "E0303", "Digit"),
        ("fn f() -> int:\n    x = Pair(1)\n    return 0\n", "E0303", "Pair"),
        ("fn f(x: [b] Digit = 0) -> int = 0\n", "E0306", "0"),
    ],
)
def test_batch_and_dataset_misuse(body: str, code: str, spanned: str) -> None:
    callee = "fn g(batch: [b] Digit) -> [b D] = batch.img\n"
    assert _diagnostics(callee + body) == [(code, spanned)]


def test_a_call_solves_the_callee_batch_axis_from_the_argument() -> None:
    text = HEADER + (
        "fn g(batch: [n] Digit) -> [n C] = zeros_like(batch.img) @ zeros_like(w())\n"
        "fn w() -> [D C] = zeros_like(w())\n"
        "fn f(batch: [b] Digit) -> [b C] = g(batch)\n"
    )
    assert format_type(_type_of(text, "g(batch)")) == "[b C]"


# ---------------------------------------------------------------------- stages and loops

LOOP = (
    HEADER
    + """\
fn g(batch: [n] Digit) -> [n D] = batch.img

fn f(train: Dataset[Digit], epoch: int) -> int:
    k = 0
    for batch in train |> shuffle(seed=epoch) |> batches(8):
        y = g(batch)
        k = k + b
    for batch in train |> batches(8):
        z = batch.img
    return k
"""
)


def test_a_loop_over_batches_gives_each_loop_a_fresh_unknown_batch_axis() -> None:
    first = _type_of(LOOP, "batch", 2)
    second = _type_of(LOOP, "batch", 4)
    assert isinstance(first, BatchType) and isinstance(second, BatchType)
    assert format_type(first) == format_type(second) == "[b] Digit"
    assert [axis.size.single_symbol() for axis in first.axes] == ["?b"]
    assert [axis.size.single_symbol() for axis in second.axes] == ["?b2"]
    assert _type_of(LOOP, "g(batch)").axes[0].size == first.axes[0].size
    b = _type_of(LOOP, "b")
    assert isinstance(b, HostType) and b.size == first.axes[0].size


def test_the_stages_types() -> None:
    assert _type_of(LOOP, "shuffle(seed=epoch)") == DatasetType("Digit")
    assert _type_of(LOOP, "batches(8)") == BatchesType("Digit")


def test_the_batch_axis_compares_as_an_unknown_size() -> None:
    text = HEADER + (
        "fn f(train: Dataset[Digit], x: [b D]) -> int:\n"
        "    for batch in train |> batches(8):\n"
        "        y = batch.img + x\n"
        "    return 0\n"
    )
    checked = check_text(text, "t.ss")
    (diagnostic,) = checked.diagnostics
    assert diagnostic.code == "E0401"
    assert "?b is not known to equal b" in diagnostic.notes[0]


@pytest.mark.parametrize(
    ("loop", "code", "spanned"),
    [
        ("train |> batches(8) |> shuffle(seed=0)", "E1304", "shuffle(seed=0)"),
        ("train |> batches(8) |> batches(2)", "E1304", "batches(2)"),
        ("train |> batches(0)", "E1304", "0"),
        ("x |> batches(8)", "E1304", "batches(8)"),
        ("train |> shuffle(0) |> batches(8)", "E0406", "0"),
        ("train |> batches(2.5)", "E0502", "2.5"),
        ("train |> batches(sum(x))", "E0805", "sum(x)"),
        ("train |> shuffle(seed=1)", "E0804", "train |> shuffle(seed=1)"),
    ],
)
def test_dataset_stage_errors(loop: str, code: str, spanned: str) -> None:
    body = (
        "fn f(train: Dataset[Digit], x: [n D]) -> int:\n"
        f"    for batch in {loop}:\n"
        "        return 1\n"
        "    return 0\n"
    )
    assert _diagnostics(body) == [(code, spanned)]


def test_b_is_not_the_batch_axis_where_it_already_names_something() -> None:
    text = HEADER + (
        "fn f(train: Dataset[Digit], x: [b D]) -> int:\n"
        "    for batch in train |> batches(8):\n"
        "        y = mean(batch.img, over=b)\n"
        "    return 0\n"
    )
    checked = check_text(text, "t.ss")
    assert [d.code for d in checked.diagnostics] == ["E0405"]
    assert format_type(_type_of(text, "batch.img")) == "[?b D]"


def test_a_python_value_asserted_to_be_a_dataset() -> None:
    text = HEADER + (
        "import python torch\n"
        "fn f() -> int:\n"
        '    for batch in torch.load("x") as Dataset[Digit] |> batches(8):\n'
        "        return 1\n"
        "    return 0\n"
    )
    checked = check_text(text, "t.ss")
    assert not checked.diagnostics
    assert _type_of(text, 'torch.load("x") as Dataset[Digit]') == DatasetType("Digit")
