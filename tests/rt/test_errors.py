"""The exceptions: what their messages say, what they are, and that they need no torch."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

import shapescript
from shapescript.analysis import check
from shapescript.diagnostics.render_text import render_diagnostic
from shapescript.rt.errors import CheckFailure
from shapescript.syntax.source import SourceFile


def test_argument_error_names_place_function_and_parameter() -> None:
    error = shapescript.ShapeError(
        "expected 2 axes, got shape (3,)",
        path="model.ss",
        line=4,
        column=11,
        function="double",
        parameter="x",
    )
    assert str(error) == (
        "model.ss:4:11: in fn double, argument for parameter `x`: expected 2 axes, got shape (3,)"
    )
    assert (error.path, error.line, error.column) == ("model.ss", 4, 11)
    assert (error.function, error.parameter) == ("double", "x")
    assert error.message == "expected 2 axes, got shape (3,)"


def test_error_without_parameter_or_place_leaves_those_parts_out() -> None:
    inside = shapescript.DomainError("values above 1", path="m.ss", line=2, column=5, function="f")
    assert str(inside) == "m.ss:2:5: in fn f: values above 1"
    assert inside.parameter is None
    assert str(shapescript.DeviceError("no devices")) == "no devices"


@pytest.mark.parametrize(
    ("cls", "base"),
    [
        (shapescript.ShapeError, ValueError),
        (shapescript.DomainError, ValueError),
        (shapescript.DeviceError, RuntimeError),
    ],
)
def test_error_classes(cls: type[CheckFailure], base: type[Exception]) -> None:
    error = cls("bad", path="m.ss", line=1, column=1, function="f", parameter="x")
    assert isinstance(error, base)
    assert isinstance(error, CheckFailure)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is cls
    assert str(copy) == str(error)
    assert copy.parameter == "x"


def test_compile_error_message_is_the_rendered_diagnostics() -> None:
    text = "fn f(x: [n]) -> [n] = x + y\n"
    source = SourceFile.from_text("model.ss", text)
    checked = check(source)
    error = shapescript.ShapeScriptError(checked.diagnostics, source)
    (diagnostic,) = checked.diagnostics
    assert str(error) == render_diagnostic(diagnostic, source)
    assert str(error).startswith("error[E0301]")
    assert error.diagnostics == checked.diagnostics
    assert error.path == "model.ss"
    assert "\x1b[" not in str(error)
    assert "\x1b[" in error.render(color=True)


def test_importing_shapescript_and_its_errors_leaves_torch_alone() -> None:
    script = (
        "import sys, shapescript\n"
        "shapescript.ShapeError, shapescript.DeviceError, shapescript.ShapeScriptError\n"
        "from shapescript.cli import main\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "False"
