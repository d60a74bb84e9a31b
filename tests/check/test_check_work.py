"""How much work the checker does per declaration, counted rather than timed: on a big
file each pass over the models reads each model's fields once."""

from __future__ import annotations

from shapescript.analysis import check
from shapescript.check.declarations import nested_models
from shapescript.syntax.source import SourceFile

MODELS = """
dim D = 4
dim L = 2

model Inner:
    param w: [D D] = zeros

model Middle:
    inner: Inner
    param b: [D] = zeros

model Outer:
    h: [L] Middle
    last: Inner
"""


def test_the_nesting_checks_read_each_models_held_models_once(monkeypatch) -> None:
    read: list[str] = []
    held = nested_models._held

    def counting(info):
        read.append(info.name)
        return held(info)

    monkeypatch.setattr(nested_models, "_held", counting)
    checked = check(SourceFile.from_text("models.ss", MODELS))
    assert not checked.errors
    assert sorted(read) == ["Inner", "Middle", "Outer"]


def test_a_keystroke_in_one_body_looks_up_the_signature_of_that_function_alone(
    monkeypatch,
) -> None:
    from benchmarks.generate import generate_program
    from shapescript.check.checker import check_source
    from shapescript.check.declarations import overloads

    text = generate_program(300, 0)
    previous = check_source(SourceFile.from_text("big.ss", text), padding_later=True)
    looked_up: list[str] = []
    signature_of = overloads.signature_of

    def counted(scope, decl):
        looked_up.append(decl.name)
        return signature_of(scope, decl)

    monkeypatch.setattr(overloads, "signature_of", counted)
    body = text.index("\n    ", text.index("\nfn ") + 1) + 5
    edited = text[:body] + "zz = 1\n    " + text[body:]
    again = check_source(SourceFile.from_text("big.ss", edited), previous, padding_later=True)
    # The other bodies are the previous analysis's: nothing of theirs is looked up again.
    assert looked_up == ["attention1"]
    functions = sum(1 for item in again.module.items if item.__class__.__name__ == "FnDecl")
    assert functions > 20
    fresh = check_source(SourceFile.from_text("big.ss", edited), padding_later=True)
    assert again.diagnostics == fresh.diagnostics


#: Two functions whose parameters have one shape in several type objects (a domain apart),
#: and the padding analysis meets them all; neither needs a mask.
ALIKE = """
dim D = 4

fn first(x: [b n D], y: [b n D]) -> [b n D] = x + y

fn second(x: [b n D] Unit) -> [b n D] = x * 2.0
"""


def test_the_padding_analysis_keeps_one_value_per_shape_and_per_empty_need(
    monkeypatch,
) -> None:
    from shapescript.check.analyses import padding

    found: list[object] = []
    shape_of = padding._shape_of

    def recording(type_):
        shape = shape_of(type_)
        if shape[0]:
            found.append(shape)
        return shape

    monkeypatch.setattr(padding, "_shape_of", recording)
    checked = check(SourceFile.from_text("alike.ss", ALIKE))
    assert not checked.errors
    # Several type objects of the shape `[b n D]` (equal written types are one object,
    # so one of them is in another domain), one value for their shape.
    assert len(found) >= 2
    assert len({id(shape) for shape in found}) == 1
    needs = checked.padding.needs
    assert needs["first"] == needs["second"] == frozenset()
    assert needs["first"] is needs["second"]


def test_calls_of_functions_without_asserts_look_for_no_assert_relations(monkeypatch) -> None:
    from shapescript.check.bodies import asserts

    text = """
dim D = 4
fn plain(x: [b D]) -> [b D]:
    y = x * 2.0
    return y
fn checked(x: [b n]) -> [b n]:
    assert n > 1
    return x
fn caller(x: [b D]) -> [b D]:
    y = plain(x) + plain(x)
    return checked(y)
"""
    looked: list[str] = []
    relations = asserts.signature_relations

    def counting(signature, dims):
        looked.append(signature.name)
        return relations(signature, dims)

    monkeypatch.setattr(asserts, "signature_relations", counting)
    checked = check(SourceFile.from_text("asserts.ss", text))
    assert not checked.errors
    # Only the callee with an assert has its relations worked out (each one needs a set
    # of every dim of the file).
    assert looked == ["checked"]
