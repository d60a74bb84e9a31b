"""What the debugger's variables show of a value in a `.ss` frame or a cell."""

from __future__ import annotations

import torch

from shapescript.check.algebra.types import TensorType
from shapescript.debugging import describe
from shapescript.syntax.source import SourceFile


def _type_of(text: str, name: str):
    from shapescript import analysis

    checked = analysis.check(SourceFile.from_text("t.ss", text), search_path=[])
    for item in checked.items:
        if item.body is not None:
            for entry in item.body.facts.entries:
                if entry.name == name:
                    return entry.type
    raise AssertionError(f"no {name}")


def test_a_typed_tensor_names_its_sizes_after_its_axes() -> None:
    type_ = _type_of("dim D = 4\nfn f(x: [b D]) -> [b D] = x\n", "x")
    assert isinstance(type_, TensorType)
    shown, type_text = describe(torch.zeros(2, 4), type_, "tensor(...)")
    assert shown == "[b=2 D=4] float32 tensor(...)"
    assert type_text == "[b D]"


def test_a_tensor_without_a_type_here_shows_its_plain_sizes() -> None:
    # In a cell, a value whose type uses what earlier cells declared has no type.
    shown, type_text = describe(torch.zeros(3, 5, dtype=torch.float64), None, "tensor(...)")
    assert (shown, type_text) == ("[3 5] float64 tensor(...)", None)


def test_a_value_that_is_not_a_tensor_is_shown_as_the_debugger_shows_it() -> None:
    assert describe(3, None, "3") == ("3", None)


def test_an_axis_written_as_a_number_shows_the_number_once() -> None:
    type_ = _type_of("dim D = 2\nfn f(x: [3 D]) -> [3 D] = x\n", "x")
    assert describe(torch.zeros(3, 2), type_, "t")[0] == "[3 D=2] float32 t"
