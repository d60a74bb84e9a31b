"""A dim that doesn't divide is reported once (E0305); nothing that follows only from it."""

from __future__ import annotations

from pathlib import Path

from shapescript.check.checker import check_text

GPT = Path(__file__).parents[3] / "examples" / "gpt.ss"

HEADS = """\
dim D = 30
dim H = 4
dim Dh = D / H

model M:
    param w_qkv: [D 3*D] = normal(std=0.02)

fn attention(m: M, x: [b n D]) -> [b H n n]:
    q, k, v = x @ m.w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    return einsum(q, k: b H n Dh, b H m Dh -> b H n m)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
"""


def test_a_wrong_head_count_is_one_e0305() -> None:
    checked = check_text(HEADS, "heads.ss")
    found = [(d.code, HEADS[d.span.start : d.span.end]) for d in checked.diagnostics]
    assert found == [("E0305", "D / H")]


def test_gpt_with_an_indivisible_width_reports_only_the_dim() -> None:
    text = GPT.read_text().replace("dim D = 256", "dim D = 30")
    assert "dim D = 30" in text
    checked = check_text(text, "gpt.ss")
    codes = [d.code for d in checked.diagnostics]
    assert "E0301" not in codes and "E0302" not in codes
    assert codes == ["E0305"]


def test_names_of_a_pattern_that_fails_stay_bound() -> None:
    text = (
        "fn f(x: [n 10]) -> [n 10]:\n"
        "    y = rearrange(x, n (h 3) -> n h 3)\n"
        "    z = causal[n h]\n"
        "    return x\n"
    )
    checked = check_text(text, "bound.ss")
    assert [d.code for d in checked.diagnostics] == ["E0402"]


def test_a_dim_broken_by_another_is_quiet_in_causal_and_in_fields() -> None:
    text = """\
dim D = 66
dim H = 4
dim Dh = D / H
dim Dh2 = Dh / 2

model M:
    param w: [D (H Dh)] = normal(std=0.02)
    param rot: [Dh2] = zeros

fn mask(x: [b n Dh2]) -> [Dh2 Dh2] Mask:
    return causal[Dh2 Dh2]
"""
    checked = check_text(text, "llama_like.ss")
    found = [(d.code, text[d.span.start : d.span.end]) for d in checked.diagnostics]
    assert found == [("E0305", "D / H")]
