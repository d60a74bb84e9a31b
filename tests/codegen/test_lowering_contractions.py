"""Einsums that are matmuls compile to `@` on views, equal to torch.einsum forward and
backward (tolerances in tests/codegen/lowering.py)."""

from __future__ import annotations

import string

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from shapescript import cli
from shapescript.codegen.lowering.contractions import einsum_call, matmul_form, product_form
from tests.codegen import lowering

DTYPES = [torch.float32, torch.bfloat16]
#: What a lowered einsum must never add: a copy, or the einsum itself.
COPIES = ("reshape", "contiguous", "clone", "einsum")


@st.composite
def contractions(draw):
    """A two-operand einsum with batch, contracted and free axes in random orders, the
    size of each axis, and whether it must lower (no group of several axes)."""
    names = iter(string.ascii_lowercase)
    counts = {
        group: draw(st.integers(low, high))
        for group, low, high in (("batch", 0, 2), ("sum", 0, 2), ("left", 0, 2), ("right", 0, 2))
    }
    groups = {group: [next(names) for _ in range(count)] for group, count in counts.items()}
    first = draw(st.permutations(groups["batch"] + groups["sum"] + groups["left"]))
    second = draw(st.permutations(groups["batch"] + groups["sum"] + groups["right"]))
    output = draw(st.permutations(groups["batch"] + groups["left"] + groups["right"]))
    sizes = {name: draw(st.integers(1, 4)) for group in groups.values() for name in group}
    several = max(counts["sum"], counts["left"], counts["right"]) > 1
    return list(first), list(second), list(output), sizes, not several


def _evaluate(form: str, first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:
    return eval(form, {"_ss_torch": torch}, {"x": first, "y": second})


@settings(max_examples=150, deadline=None)
@given(contractions(), st.sampled_from(DTYPES))
def test_a_two_operand_einsum_lowers_to_views_and_equals_einsum(case, dtype) -> None:
    first, second, output, sizes, must_lower = case

    def size_of(operand: int, position: int) -> str:
        return str(sizes[(first, second)[operand][position]])

    form = matmul_form([first, second], output, ["x", "y"], size_of)
    if not set(first) & set(second) - set(output):
        # Nothing contracted: not a matmul, but a product of broadcast views.
        assert form is None
        form = product_form([first, second], output, ["x", "y"])
        assert form is not None
    if must_lower:
        assert form is not None, (first, second, output)
    if form is None:
        return
    assert not any(copy in form for copy in COPIES), form
    written = einsum_call([first, second], output, ["x", "y"])
    inputs = [torch.randn([sizes[name] for name in side], dtype=dtype) for side in (first, second)]
    results = []
    for text in (form, written):
        leaves = [tensor.clone().requires_grad_() for tensor in inputs]
        value = _evaluate(text, *leaves)
        value.backward(torch.ones_like(value))
        results.append((value.detach(), [leaf.grad for leaf in leaves]))
    tolerance = lowering.TOLERANCES[dtype]
    torch.testing.assert_close(results[0][0], results[1][0], **tolerance)
    for got, expected in zip(results[0][1], results[1][1], strict=True):
        torch.testing.assert_close(got, expected, **tolerance)


@pytest.mark.parametrize(
    ("first", "second", "output", "expected"),
    [
        ("bhnd", "bhmd", "bhnm", "(x @ y.mT)"),
        ("bhnm", "bhmd", "bhnd", "(x @ y)"),
        ("bnd", "de", "bne", "(x @ y)"),
        # The weight first: the activations go left, so their leading axes stay.
        ("ed", "bnd", "bne", "(y @ x.mT)"),
        ("nbd", "bde", "bne", "(x.permute(1, 0, 2) @ y)"),
        # A vector: an axis of 1 in the product, squeezed away again.
        ("bnd", "bd", "bn", "(x @ y.unsqueeze(-1)).squeeze(-1)"),
        # Two contracted axes side by side and in order: flattened, a view.
        ("nhd", "hde", "ne", "(x.flatten(-2, -1) @ y.flatten(-3, -2))"),
    ],
)
def test_the_lowered_form_of_common_contractions(first, second, output, expected) -> None:
    form = matmul_form([list(first), list(second)], list(output), ["x", "y"], lambda *_: "4")
    assert form == expected


@pytest.mark.parametrize(
    ("first", "second", "output", "expected"),
    [
        # llama's rotary angles: positions times frequencies.
        ("nc", "f", "ncf", "(x[:, :, None] * y)"),
        ("bi", "bj", "bij", "(x[:, :, None] * y[:, None, :])"),
        ("ji", "j", "ij", "(x.mT * y)"),
    ],
)
def test_an_einsum_that_sums_nothing_is_a_product(first, second, output, expected) -> None:
    assert product_form([list(first), list(second)], list(output), ["x", "y"]) == expected


@pytest.mark.parametrize(
    ("sides", "output"),
    [
        (["ij"], "ji"),  # one operand
        (["ij", "jk", "kl"], "il"),  # three
        (["ii", "ij"], "j"),  # a diagonal
        (["ij", "kl"], "ijkl"),  # nothing contracted: an outer product
        (["ijk", "jl"], "il"),  # k summed in one operand only
        (["nhd", "dhe"], "ne"),  # contracted axes in another order in each operand
    ],
)
def test_an_einsum_that_isnt_a_matmul_stays_one(sides, output) -> None:
    operands = [f"t{index}" for index in range(len(sides))]
    form = matmul_form([list(side) for side in sides], list(output), operands, lambda *_: "4")
    assert form is None


ATTENTION = """
dim H = 2
fn scores(q: [b H n Dh] {dtype}, k: [b H m Dh] {dtype}) -> [b H n m] {dtype}:
    return einsum(q, k: b H n Dh, b H m Dh -> b H n m)
fn mix(att: [b H n m] {dtype}, v: [b H m Dh] {dtype}) -> [b H n Dh] {dtype}:
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
fn project(x: [n b D] {dtype}, w: [E D] {dtype}) -> [b n E] {dtype}:
    return einsum(x, w: n b D, E D -> b n E)
"""


@settings(max_examples=10, deadline=None)
@given(
    st.integers(1, 3),
    st.integers(1, 5),
    st.integers(1, 5),
    st.integers(1, 6),
    st.sampled_from(DTYPES),
)
def test_compiled_contractions_equal_their_unlowered_form(b, n, m, width, dtype) -> None:
    text = ATTENTION.format(dtype={torch.float32: "f32", torch.bfloat16: "bf16"}[dtype])

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, dtype=dtype)

    lowering.assert_same(text, "scores", [randn(b, 2, n, width), randn(b, 2, m, width)], dtype)
    lowering.assert_same(text, "mix", [randn(b, 2, n, m), randn(b, 2, m, width)], dtype)
    lowering.assert_same(text, "project", [randn(n, b, width), randn(m, width)], dtype)


def test_the_lowered_lines_say_so_and_hold_no_einsum() -> None:
    text = ATTENTION.format(dtype="f32")
    lowered = lowering.source(text, lower=True)
    written = lowering.source(text, lower=False)
    lines = [line for line in lowered.splitlines() if line.strip().startswith("return")]
    assert len(lines) == 3
    assert all(line.endswith("  # lowered: einsum as matmul") for line in lines), lines
    assert "einsum" not in "\n".join(line.split("#")[0] for line in lines)
    assert "(q @ k.mT)" in lowered
    assert "lowered:" not in written
    assert written.count("_ss_torch.einsum(") == 3


def test_build_shows_the_lowering_and_no_lowering_turns_it_off(
    tmp_path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "attention.ss").write_text(ATTENTION.format(dtype="f32"), encoding="utf-8")
    assert cli.main(["build", "attention.ss"]) == 0
    lowered = capsys.readouterr().out
    assert cli.main(["build", "--no-lowering", "attention.ss"]) == 0
    written = capsys.readouterr().out
    assert " @ k.mT)  # lowered: einsum as matmul" in lowered
    assert "_ss_torch.einsum('abcd,abed->abce', " in written
    assert "lowered:" not in written
