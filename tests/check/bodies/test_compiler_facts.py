"""Facts the checker records for the compiler: dtypes it must not lose, and the element a
stage's function given by name is applied to."""

from __future__ import annotations

from shapescript.check.algebra.types import format_type
from shapescript.check.checker import check_text


def type_at(checked, needle: str) -> str:
    return checked.type_text_at(checked.source.text.index(needle))


def test_an_extern_call_has_its_arguments_float_dtype() -> None:
    checked = check_text(
        "fn f(x: [b D] f64, w: [D C] f64) -> [b C] f64:\n"
        "    y = gelu(x)\n"
        "    z = exp(x to f32)\n"
        "    return y @ w\n"
    )
    assert checked.diagnostics == []
    assert type_at(checked, "y = ").endswith(" f64")
    assert not type_at(checked, "z = ").endswith(" f32")


def test_a_conversion_keeps_a_float_dtype_and_makes_the_default_from_masks_and_bytes() -> None:
    checked = check_text(
        "fn f(x: [n] Additive f64, m: [n] Mask, u: [n] u8, s: [n] Unit f16):\n"
        "    a = x to Binary\n"
        "    b = m to Binary\n"
        "    c = u to Unit\n"
        "    d = s |> to Signed\n"
        "    e = s to Signed f32\n"
    )
    assert checked.diagnostics == []
    assert type_at(checked, "a = ") == "[n] Binary f64"
    assert type_at(checked, "b = ") == "[n] Binary"
    assert type_at(checked, "c = ") == "[n] Unit"
    assert type_at(checked, "d = ") == "[n] Signed f16"
    assert type_at(checked, "e = ") == "[n] Signed"


def test_the_element_of_a_stage_function_given_by_name_is_recorded() -> None:
    checked = check_text("fn f(x: [n D]) -> [n] = x |> map(sum(over=D), over=n)\n")
    assert checked.diagnostics == []
    facts = checked.items[0].body.facts
    (element,) = facts.stage_elements.values()
    assert format_type(element) == "[D]"


def test_a_user_domain_in_a_signature_has_its_interval() -> None:
    checked = check_text("domain Temp = [0.05, 10]\nfn f(t: [n] Temp) -> [n] = t * 2.0\n")
    assert checked.diagnostics == []
    domain = checked.signatures["f"].params[0].type.domain
    assert domain.name == "Temp"
    assert (round(domain.interval.lo, 6), domain.interval.hi) == (0.05, 10.0)


def test_a_reduction_gives_its_dtype_and_reduce_needs_one() -> None:
    checked = check_text(
        "fn f(x: [b n] i64, m: [b n] i32) -> [b]:\n"
        "    a = reduce(x, b n -> b, mean)\n"
        "    c = mean(m, over=n)\n"
        "    d = reduce(m, b n -> b, sum)\n"
        "    e = reduce(x, b n -> b, max)\n"
        "    return a + c\n"
    )
    assert checked.diagnostics == []
    assert type_at(checked, "a = ") == "[b]"
    assert type_at(checked, "c = ") == "[b]"
    assert type_at(checked, "d = ").endswith("i64")
    assert type_at(checked, "e = ").endswith("i64")
    missing = check_text("fn f(x: [b n]) -> [b] = reduce(x, b n -> b)\n")
    assert [diag.code for diag in missing.diagnostics] == ["E0406"]


def test_the_batch_axes_of_a_matmul_are_lined_up_by_name() -> None:
    checked = check_text(
        "fn f(x: [b H n d], y: [H b d m]) -> [b H n m] = x @ y\n"
        "fn g(x: [b n d], y: [d m]) -> [b n m] = x @ y\n"
    )
    assert checked.diagnostics == []
    transposed, plain = (item.body.facts.alignments for item in checked.items)
    assert list(transposed.values()) == [(None, (1, 0, 2, 3))]
    assert plain == {}
