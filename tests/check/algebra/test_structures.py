"""The structure the checker records: a causal mask's background, carried through
masked_fill and softmax along the mask's columns, and dropped by anything else."""

from __future__ import annotations

from shapescript.check.algebra.structures import Structure
from shapescript.check.checker import check_text

ATTENTION = (
    "fn attend(q: [b H n Dh], k: [b H m Dh], v: [b H m Dh]) -> [b H n Dh]:\n"
    "    s = einsum(q, k: b H n Dh, b H m Dh -> b H n m)\n"
    "    mask = causal[n m]\n"
    "    masked = masked_fill(s, !mask, -inf)\n"
    "    p = softmax(masked, over=m)\n"
    "    lp = log_softmax(masked, over=m)\n"
    "    q2 = softmax(masked, over=n)\n"
    "    e = exp(masked)\n"
    "    kept = masked_fill(s, mask, -inf)\n"
    "    zeroed = masked_fill(s, !causal[n m], 0.0)\n"
    "    return einsum(p, v: b H n m, b H m Dh -> b H n Dh)\n"
)


def structure_at(checked, needle: str) -> Structure | None:
    return checked.structure_at(checked.source.text.index(needle))


def test_a_causal_mask_and_what_masked_fill_and_softmax_make_of_it() -> None:
    checked = check_text(ATTENTION)
    assert checked.diagnostics == []
    assert structure_at(checked, "mask = ") == Structure("n", "m", "false")
    assert structure_at(checked, "!mask") == Structure("n", "m", "true")
    assert structure_at(checked, "masked = ") == Structure("n", "m", "-inf")
    assert structure_at(checked, "p = ") == Structure("n", "m", "0")
    assert structure_at(checked, "lp = ") == Structure("n", "m", "-inf")
    assert structure_at(checked, "zeroed = ") == Structure("n", "m", "0")


def test_other_operations_drop_it() -> None:
    checked = check_text(ATTENTION)
    assert structure_at(checked, "s = ") is None
    assert structure_at(checked, "q2 = ") is None, "a softmax along the rows"
    assert structure_at(checked, "e = ") is None
    assert structure_at(checked, "kept = ") is None, "filling the band, not the background"


def test_it_is_recorded_apart_from_the_types() -> None:
    checked = check_text(ATTENTION)
    facts = checked.items[0].body.facts
    spans = [span for span in facts.structures if facts.types.get(span) is None]
    assert spans == []
    assert checked.type_text_at(checked.source.text.index("masked = ")) == "[b H n m]"


def test_an_expression_body_and_its_describing_text() -> None:
    checked = check_text(
        "fn scores(s: [n m]) -> [n m] Prob over m = "
        "softmax(masked_fill(s, !causal[n m], -inf), over=m)\n"
    )
    assert checked.diagnostics == []
    facts = checked.items[0].body.facts
    text = checked.source.text
    found = {text[span.start : span.end].split("(")[0]: s for span, s in facts.structures.items()}
    assert found["causal[n m]"] == Structure("n", "m", "false")
    assert found["masked_fill"] == Structure("n", "m", "-inf")
    found = found["softmax"]
    assert found == Structure("n", "m", "0")
    assert found.describe() == "causal: 0 where m > n"
    assert found.number == 0.0
    assert Structure("n", "m", "false").number == 0.0
    assert Structure("n", "m", "-inf").number == float("-inf")


def test_a_function_has_the_structure_of_what_it_returns() -> None:
    checked = check_text(
        ATTENTION
        + "fn masked(s: [n m]) -> [n m]:\n"
        + "    if true:\n"
        + "        return masked_fill(s, !causal[n m], -inf)\n"
        + "    return masked_fill(s, !causal[n m], -inf)\n"
        + "fn mixed(s: [n m]) -> [n m]:\n"
        + "    if true:\n"
        + "        return s\n"
        + "    return masked_fill(s, !causal[n m], -inf)\n"
    )
    assert checked.diagnostics == []
    found = {}
    for item in checked.items:
        decl = item.item
        found[decl.name] = item.body.facts.structures.get(decl.name_span)
    assert found == {"attend": None, "masked": Structure("n", "m", "-inf"), "mixed": None}


def test_pipes_carry_it_as_the_attention_example_writes_them() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "examples" / "attention.ss").read_text()
    checked = check_text(text)
    assert checked.diagnostics == []
    assert structure_at(checked, "att = ") == Structure("n", "m", "0")
    piped = check_text(
        "fn f(s: [n m]) -> [n m]:\n"
        "    a = s |> masked_fill(_, !causal[n m], -inf)\n"
        "    b = a |> exp\n"
        "    c = s |> masked_fill(!causal[n m], -inf) |> log_softmax(over=m)\n"
        "    return c\n"
    )
    assert piped.diagnostics == []
    assert structure_at(piped, "a = ") == Structure("n", "m", "-inf")
    assert structure_at(piped, "b = ") is None
    assert structure_at(piped, "c = ") == Structure("n", "m", "-inf")
