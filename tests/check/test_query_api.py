"""The query API on a checked program: types, definitions, references and scopes."""

from __future__ import annotations

from shapescript.check.algebra.types import format_type
from shapescript.check.checker import check_text

PROGRAM = """\
dim D = 8
dim Images = [b 3 16gh 16gw]

## Doubles its input.
fn double(x: [n D]) -> [n D] = x * 2.0

fn use(y: [t D], img: Images) -> [t D]:
    z = double(y)
    w = z |> softmax(over=D)
    p = exp(w)
    return double(z)
"""


def at(checked, needle: str, occurrence: int = 1, offset: int = 0) -> int:
    index = -1
    for _ in range(occurrence):
        index = checked.source.text.index(needle, index + 1)
    return index + offset


def test_type_at_names_and_expressions() -> None:
    checked = check_text(PROGRAM)
    assert checked.diagnostics == []
    assert checked.type_text_at(at(checked, "z = ")) == "[t D]"
    assert checked.type_text_at(at(checked, "double(y)", offset=8)) == "[t D]"
    assert checked.type_text_at(at(checked, "w = ")) == "[t D] Prob over D"
    assert checked.type_text_at(at(checked, "p = ")) == "[t D] [1, 2.71828]"
    assert checked.type_text_at(at(checked, "y", 2)) == "[t D]"


def test_definition_of_values_params_axes_dims_aliases_functions() -> None:
    checked = check_text(PROGRAM)
    source = checked.source.text

    def definition(needle: str, occurrence: int = 1):
        symbol = checked.definition_at(at(checked, needle, occurrence))
        assert symbol is not None, needle
        return symbol

    z_use = definition("double(z)", 1)
    assert z_use.kind == "fn" and z_use.name == "double"
    assert source[z_use.span.start : z_use.span.end] == "double"
    assert z_use.doc == "Doubles its input."
    assert definition("z |>").kind == "value"
    assert definition("y)").kind == "param"
    assert definition("D)").kind == "dim"
    assert definition("Images)").kind == "alias"
    assert definition("t D]").kind == "axis"
    softmax = definition("softmax")
    assert softmax.kind == "builtin" and softmax.path == "<builtins>"
    exp = definition("exp(")
    assert exp.kind == "prelude" and exp.path == "<prelude>"


def test_references_to_a_declaration() -> None:
    checked = check_text(PROGRAM)
    symbol = checked.definition_at(at(checked, "double(y)"))
    spans = checked.references_to(symbol)
    texts = [checked.source.text[s.start : s.end] for s in spans]
    assert texts == ["double", "double", "double"]
    assert [checked.source.position(s.start).line for s in spans] == [5, 8, 11]


def test_names_in_scope_with_types() -> None:
    checked = check_text(PROGRAM)
    inside = at(checked, "return double")
    names = checked.names_in_scope(inside)
    assert format_type(names["z"][1]) == "[t D]"
    assert format_type(names["y"][1]) == "[t D]"
    assert names["t"][0].kind == "axis"
    assert names["double"][0].kind == "fn"
    assert names["softmax"][0].kind == "builtin"
    before = checked.names_in_scope(at(checked, "z = double"))
    assert "w" not in before and "z" not in before
    elsewhere = checked.names_in_scope(at(checked, "x * 2.0"))
    assert "z" not in elsewhere and "x" in elsewhere


def test_one_wrong_argument_is_one_diagnostic() -> None:
    text = """\
dim D = 8
fn double(x: [n D]) -> [n D] = x * 2.0
fn use(y: [t 5]) -> [t D]:
    z = double(y)
    w = z + z
    v = softmax(w, over=D)
    return v
"""
    checked = check_text(text)
    assert [(d.code, checked.source.position(d.span.start).line) for d in checked.diagnostics] == [
        ("E0401", 4)
    ]
    (diagnostic,) = checked.diagnostics
    assert diagnostic.message == "`double` can't take this as `x`"
    assert diagnostic.notes[0] == "axis 2: 5 is not known to equal D"
