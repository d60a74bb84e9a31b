"""Data records, batch and dataset parameters and loops over batches, as generated code."""

from __future__ import annotations

import ast

import pytest

from tests.codegen.compiled import build

PROGRAM = """\
dim D = 4
dim C = 3

## One labelled example.
data Digit:
    img: [D] Unit
    label: [] Index[C]
    weight: [] f64

model Net:
    param w: [D C] = normal(std=0.1)

fn forward(m: Net, x: [b D], mode: Mode) -> [b C] = x @ m.w |> dropout(0.5, mode)

fn loss(m: Net, batch: [b] Digit, mode: Mode) -> [] NonNeg:
    return cross_entropy(forward(m, batch.img, mode), batch.label, over=C)

fn total(m: Net, train: Dataset[Digit], epochs: int, mode: Mode) -> []:
    s = sum(zeros_like(m.w))
    for epoch in 0..epochs:
        for batch in train |> shuffle(seed=epoch) |> batches(2):
            s = s + loss(m, batch, mode) + (b to f32)
    return s

fn pair(x: [b t] Digit, y: [b D]) -> [b t D] = x.img
"""


def _source(**options) -> str:
    generated = build(PROGRAM, "digits.ss", **options)
    assert not generated.unsupported, generated.unsupported
    return generated.source


def _class(source: str, name: str) -> ast.ClassDef:
    tree = ast.parse(source)
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)


def test_a_record_compiles_to_a_record_class_with_its_fields() -> None:
    source = _source(value_checks="always")
    digit = _class(source, "Digit")
    assert ast.unparse(digit.bases[0]) == "_ss_rt.data.Record"
    assert ast.get_docstring(digit) == "One labelled example."
    text = ast.unparse(digit)
    assert "_ss_name = 'Digit'" in text
    assert (
        "_ss_rt.data.RecordField('img', (4,), 'f32', 'digits.ss:6:5', '[D] Unit', "
        "lambda v: (~((v >= 0.0) & (v <= 1.0))).any(), 'values in Unit [0, 1]')"
    ) in text
    assert (
        "_ss_rt.data.RecordField('label', (), 'i64', 'digits.ss:7:5', '[] Index[C]', "
        "lambda v: ((v < 0) | (v >= 3)).any(), 'indices in [0, 3)')"
    ) in text
    assert "RecordField('weight', (), 'f64', 'digits.ss:8:5', '[] f64', None, None)" in text


def test_domain_tests_follow_the_value_check_mode() -> None:
    never = ast.unparse(_class(_source(value_checks="never"), "Digit"))
    assert "lambda" not in never
    assert "RecordField('label', (), 'i64', 'digits.ss:7:5', '[] Index[C]', None, None)" in never
    debug = ast.unparse(_class(_source(value_checks="debug"), "Digit"))
    assert "(lambda v: ((v < 0) | (v >= 3)).any()) if __debug__ else None" in debug


def test_a_batch_parameter_becomes_a_batch_and_gives_its_sizes() -> None:
    source = _source()
    assert (
        "batch = _ss_rt.data.as_batch(batch, Digit, 'digits.ss:15:17', 'batch', function='loss')"
        in source
    )
    assert "b = _ss_len(batch)" in source
    assert "_ss_rt.padding.cross_entropy(_ss_in_forward(m, batch.img," in source
    assert ", batch.label, -1, _ss_pads, ((0, 'b'),))" in source


def test_a_batch_axis_given_by_a_tensor_too_is_checked_after_it() -> None:
    source = _source()
    body = source[source.index("def pair(") :]
    assert "t = x.img.shape[1]" in body
    assert body.index("b = _ss_s1[0]") < body.index("if _ss_len(x) != b:")
    assert (
        "raise _ss_rt.ShapeError(f'its batch axis 1 should be b = {b}, got {_ss_len(x)}', "
        "path='digits.ss', line=25, column=9, function='pair', parameter='x')"
    ) in body
    unchecked = _source(checks="never")
    assert "if _ss_len(x) != b:" not in unchecked
    assert (
        "x = _ss_rt.data.as_batch(x, Digit, 'digits.ss:25:9', 'x', function='pair', axes=2)"
    ) in unchecked


def test_a_dataset_parameter_is_checked_as_the_modes_say() -> None:
    check = "_ss_rt.data.check_dataset(train, Digit, 'digits.ss:18:18', 'train', function='total')"
    assert check in _source()
    assert check not in _source(checks="never")
    debug = _source(checks="debug")
    assert (
        "    if __debug__:\n"
        "        _ss_rt.models.check_model(m, Net, _ss_where_total_m)\n"
        "        _ss_rt.randomness.check_mode(mode, _ss_where_total_mode)\n"
        f"        {check}\n"
    ) in debug


def test_a_loop_over_batches_calls_the_stages_and_keys_modes_by_its_iterations() -> None:
    source = _source()
    assert (
        "for _ss_i2, batch in _ss_enumerate(_ss_rt.padding.batch_loop(_ss_rt.data.batches("
        "_ss_rt.data.shuffle(train, epoch), 2, Digit, 'digits.ss:21:54'), True, "
        "'digits.ss:21:54')):"
    ) in source
    assert (
        "loss(m, batch, mode.child(_ss_calls.key('loss', f'{epoch}.{_ss_i2}')), "
        "_ss_pad={'b': _ss_pads.get('?b')})"
    ) in source
    assert "_ss_torch.tensor(_ss_rt.padding.real_size(batch), dtype=_ss_f32" in source


def test_a_loop_variable_named_otherwise_reads_its_own_length() -> None:
    text = PROGRAM + (
        "fn count(train: Dataset[Digit]) -> int:\n"
        "    n = 0\n"
        "    for item in train |> batches(3):\n"
        "        n = n + b\n"
        "    return n\n"
    )
    source = build(text, "digits.ss").source
    body = source[source.index("def count(") :]
    assert (
        "for item in _ss_rt.padding.batch_loop(_ss_rt.data.batches(train, 3, Digit, "
        "'digits.ss:28:26'), True, 'digits.ss:28:26'):"
    ) in body
    assert "n = (n + _ss_rt.padding.real_size(item))" in body


def test_records_and_datasets_need_the_runtime() -> None:
    generated = build(PROGRAM, "digits.ss", standalone=True, devices="cpu")
    messages = [message for message, _ in generated.unsupported]
    assert any("data records and datasets need the shapescript runtime" in m for m in messages)


@pytest.mark.parametrize("checks", ["always", "debug", "never"])
def test_the_generated_module_compiles(checks: str) -> None:
    generated = build(PROGRAM, "digits.ss", checks=checks)
    assert generated.tree is not None
    compile(generated.tree, "digits.ss", "exec")


def test_another_files_record_is_the_class_of_the_module_its_import_binds(tmp_path) -> None:
    (tmp_path / "digits.ss").write_text(PROGRAM, encoding="utf-8")
    path = str(tmp_path / "main.ss")
    text = """\
import digits

fn images(batch: [b t] digits.Digit) -> [b t digits.D] = batch.img
fn total(m: digits.Net, train: Dataset[digits.Digit], mode: Mode) -> []:
    s = sum(zeros_like(m.w))
    for batch in train |> shuffle(seed=1) |> batches(2):
        s = s + digits.loss(m, batch, mode)
    return s
"""
    generated = build(text, path)
    assert not generated.unsupported, generated.unsupported
    source = ast.unparse(ast.parse(generated.source))
    assert (
        f"batch = _ss_rt.data.as_batch(batch, _ss_mod_digits.Digit, '{path}:3:11', 'batch', "
        "function='images', axes=2)"
    ) in source
    assert "t = batch.img.shape[1]" in source
    assert (
        f"_ss_rt.data.check_dataset(train, _ss_mod_digits.Digit, '{path}:4:25', 'train', "
        "function='total')"
    ) in source
    assert (
        "_ss_rt.data.batches(_ss_rt.data.shuffle(train, 1), 2, _ss_mod_digits.Digit, "
        f"'{path}:6:46')"
    ) in source
    assert "class Digit" not in source


def test_a_records_fields_share_one_table_of_the_dims_values(monkeypatch) -> None:
    from shapescript.codegen import casts

    tables: list[object] = []
    domain_test_with = casts.domain_test_with

    def looking(context, sizes, name, type_):
        if name == "v":  # a record field's test, not a parameter's
            tables.append(sizes)
        return domain_test_with(context, sizes, name, type_)

    monkeypatch.setattr(casts, "domain_test_with", looking)
    _source(value_checks="always")
    # One table of the file's dims for every field (each field used to make its own).
    assert len(tables) == 3
    assert all(table is tables[0] for table in tables)
    assert tables[0] == {"D": "4", "C": "3"}
