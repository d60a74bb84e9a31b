"""A field read on a value that has no fields (a tensor, a host scalar, a string, a
function, split's results) is one E0301 at the field's name, never a clean check."""

from __future__ import annotations

import pytest

from shapescript.check.checker import check_text


def problems(text: str) -> list[tuple[str, str, str]]:
    """Each diagnostic's code, the source text its span covers, and its message."""
    checked = check_text(text, "members.ss")
    return [(d.code, text[d.span.start : d.span.end], d.message) for d in checked.diagnostics]


@pytest.mark.parametrize(
    ("signature", "read", "kind"),
    [
        ("x: [n]", "x.foo", "a tensor"),
        ("x: int", "x.nope", "an int"),
        ("x: float", "x.real", "a float"),
        ("x: bool", "x.value", "a bool"),
    ],
)
def test_a_field_of_a_value_without_fields_is_e0301(signature: str, read: str, kind: str) -> None:
    text = f"fn f({signature}) = {read}\n"
    [(code, covered, message)] = problems(text)
    assert code == "E0301"
    assert covered == read.split(".")[1]
    assert kind in message and "has no fields" in message


def test_a_chain_of_fields_is_one_error_at_the_first() -> None:
    text = "fn f(x: [n]) -> [n]:\n    return x.foo.bar\n"
    assert [(code, covered) for code, covered, _ in problems(text)] == [("E0301", "foo")]


def test_the_message_names_the_value_and_its_type() -> None:
    text = "fn f(x: [n]) -> [n]:\n    return x.shape\n"
    [(_, _, message)] = problems(text)
    assert "`x`" in message and "[n]" in message


def test_a_string_a_function_and_split_results_have_no_fields() -> None:
    text = (
        'fn f() = "abc".size\n'
        "fn g(x: [n]) -> [n] = x\n"
        "fn h() = g.name\n"
        "fn k(x: [n]) = topk(x, 2, over=n).first\n"
    )
    assert [(code, covered) for code, covered, _ in problems(text)] == [
        ("E0301", "size"),
        ("E0301", "name"),
        ("E0301", "first"),
    ]


def test_fields_that_exist_still_check_clean() -> None:
    text = (
        "dim D = 4\n"
        "model Mlp:\n    param w: [D D] = zeros\n"
        "data Digit:\n    img: [D]\n"
        "fn f(m: Mlp, b: [n] Digit) -> [n D] = b.img @ m.w\n"
    )
    assert problems(text) == []


def test_a_method_call_on_a_tensor_says_to_pass_the_value_to_the_function() -> None:
    checked = check_text("fn f(x: [n]) = x.sum()\n", "members.ss")
    [diagnostic] = checked.diagnostics
    assert diagnostic.code == "E0301"
    assert diagnostic.help is not None and "`sum(x)`" in diagnostic.help
