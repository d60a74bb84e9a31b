"""shapescript.compile(): text to a fresh module, refused whole when the file has errors."""

from __future__ import annotations

import sys
import traceback

import pytest
import torch

import shapescript

DOUBLE = "devices cpu\n\nfn double(x: [n]) -> [n] = x * 2\n"


def test_compile_returns_a_module_registered_nowhere() -> None:
    module = shapescript.compile(DOUBLE, "double.ss")
    assert module.__name__ == "double"
    assert module.__file__ == "double.ss"
    assert "double" not in sys.modules
    assert module.double(torch.tensor([1.0, 2.0])).tolist() == [2.0, 4.0]
    assert shapescript.compile(DOUBLE) is not shapescript.compile(DOUBLE)


def test_compile_with_a_name_registers_the_module() -> None:
    module = shapescript.compile(DOUBLE, "double.ss", name="ss_compiled_double")
    try:
        assert sys.modules["ss_compiled_double"] is module
    finally:
        del sys.modules["ss_compiled_double"]


def test_file_with_errors_raises_from_its_first_error_line() -> None:
    text = "fn ok(x: [n]) -> [n] = x\n\nfn bad(x: [n]) -> [n] = x + y\n"
    with pytest.raises(shapescript.ShapeScriptError) as caught:
        shapescript.compile(text, "broken.ss")
    error = caught.value
    assert [diag.code for diag in error.diagnostics] == ["E0301"]
    assert str(error).startswith("error[E0301]")
    last = traceback.extract_tb(error.__traceback__)[-1]
    assert (last.filename, last.lineno) == ("broken.ss", 3)
    assert last.line == "fn bad(x: [n]) -> [n] = x + y"


def test_devices_for_a_file_without_a_devices_line() -> None:
    module = shapescript.compile("fn f(x: [n]) -> [n] = x\n", devices="cpu")
    assert module.f(torch.ones(2)).shape == (2,)


def test_devices_that_disagree_with_the_file_are_e1006() -> None:
    text = "devices cuda[0]\n\nfn double(x: [n]) -> [n] = x * 2\n"
    with pytest.raises(shapescript.ShapeScriptError) as caught:
        shapescript.compile(text, "model.ss", devices="cuda[1]")
    (diag,) = caught.value.diagnostics
    assert diag.code == "E1006"
    assert "error[E1006]: the file declares `devices cuda[0]`, but `--devices` says `cuda[1]`" in (
        str(caught.value)
    )


def test_runtime_error_traceback_names_the_ss_line() -> None:
    shapescript.devices("cpu")
    text = "fn f(x: [n]) -> [n] = x\n\nfn g(x: [n 2]) -> [n 2] = x\n"
    module = shapescript.compile(text, "<checks>")
    with pytest.raises(shapescript.ShapeError) as caught:
        module.g(torch.ones(3))
    assert caught.value.parameter == "x"
    entries = [
        e for e in traceback.extract_tb(caught.value.__traceback__) if e.filename == "<checks>"
    ]
    assert entries[-1].lineno == 3
    assert entries[-1].line == "fn g(x: [n 2]) -> [n 2] = x"


def test_check_modes_given_to_compile() -> None:
    shapescript.devices("cpu")
    text = "fn f(x: [n 2]) -> [n 2] = x\n"
    unchecked = shapescript.compile(text, "f.ss", checks="never")
    assert unchecked.f(torch.ones(3)).shape == (3,)
    with pytest.raises(shapescript.ShapeError):
        shapescript.compile(text, "f.ss", checks="always").f(torch.ones(3))
    with pytest.raises(ValueError, match="always, debug, never"):
        shapescript.compile(text, "f.ss", checks="sometimes")
