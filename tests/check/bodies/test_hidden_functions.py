"""E0303 for a call of a name that an axis or a value hides a function behind."""

from __future__ import annotations

from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile


def _only(text: str):
    [diagnostic] = check_source(SourceFile.from_text("main.ss", text)).diagnostics
    return diagnostic


def test_an_axis_of_the_same_name_is_named_as_the_axis_that_hides_the_function() -> None:
    text = "dim D = 4\n\nfn b(x: [n D]) -> [n D] = x\n\nfn a(x: [b D]) -> [b D] = b(x)\n"
    diagnostic = _only(text)
    assert diagnostic.code == "E0303"
    assert diagnostic.message == "`b` is an axis name, not a function"
    assert diagnostic.help == "the axis `b` here hides the function `b`: rename one of them"
    assert text[diagnostic.span.start : diagnostic.span.end] == "b"


def test_a_value_of_the_same_name_is_named_as_the_value_that_hides_the_function() -> None:
    text = (
        "dim D = 4\n\nfn b(x: [n D]) -> [n D] = x\n\n"
        "fn a(x: [n D]) -> [n D]:\n    b = x\n    return b(x)\n"
    )
    diagnostic = _only(text)
    assert diagnostic.message == "`b` is a value, not a function"
    assert diagnostic.help == "the value `b` here hides the function `b`: rename one of them"


def test_a_dim_called_is_a_dim_with_no_function_to_hide() -> None:
    diagnostic = _only("dim D = 4\n\nfn a(x: [n D]) -> [n D] = D(x)\n")
    assert diagnostic.message == "`D` is a dim, not a function"
    assert diagnostic.help is None
