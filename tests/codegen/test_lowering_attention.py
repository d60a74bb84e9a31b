"""The attention pattern lowered to `F.scaled_dot_product_attention`, against the same
program compiled as written (`BuildOptions(lower=False)`), forward and backward.

Tolerances: in f32 the lowered values and gradients are within 1e-4 absolute + 1e-4
relative of the unlowered ones. In bf16 the two round at different steps, and a weight's
gradient sums many rounded products, so they are not compared with each other: each is
compared with the f32 program on the same inputs, and the lowered error may be at most
twice the unlowered error plus 3% of the largest value. (Over 180 random examples of
the two programs below, both errors reached about 3% of the largest value, and the
lowered one exceeded twice the unlowered one by at most 1.3%: CPU's fused bf16 backward
rounds x's and w_qkv's gradients differently, not worse on the whole.)
"""

from __future__ import annotations

import functools
import types
import zlib

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from shapescript.analysis import check
from shapescript.codegen import BuildOptions, generate
from shapescript.syntax.source import SourceFile

TOLERANCES = {"f32": {"atol": 1e-4, "rtol": 1e-4}}
TORCH_DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}
FAST = settings(max_examples=12, deadline=None)

#: examples/attention.ss at a small width.
PROJECTED = """
dim D = 8
dim H = 2
dim Dh = D / H

fn causal_attention(x: [b n D], w_qkv: [D 3*D], w_o: [D D]) -> [b n D]:
    q, k, v = x @ w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(w_o)
"""

#: The README's form: each step a statement of its own; every size generic.
STATEMENTS = """
fn attend(q: [b h n e] {dtype}, k: [b h n e] {dtype}, v: [b h n e] {dtype}) -> [b h n e] {dtype}:
    scores = einsum(q, k: b h n e, b h m e -> b h n m) / sqrt(e)
    p = scores
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(p, v: b h n m, b h m e -> b h n e)
"""


def _generated(text: str, lower: bool):
    checked = check(SourceFile.from_text("lowering.ss", text))
    problems = [f"{diag.code} {diag.message}" for diag in checked.errors]
    assert not problems, problems
    generated = generate(checked, BuildOptions(lower=lower))
    assert not generated.unsupported, generated.unsupported
    return generated


@functools.cache
def _module(text: str, lower: bool) -> types.ModuleType:
    generated = _generated(text, lower)
    module = types.ModuleType("lowering")
    exec(compile(generated.tree, "lowering.ss", "exec"), module.__dict__)
    return module


def _source(text: str, lower: bool = True) -> str:
    return _generated(text, lower).source


def _lowered_lines(text: str, padded: bool = False) -> list[str]:
    """The lines holding the fused call: of the plain body (a call given no masks), or with
    `padded` of the padded body, for a function that takes masks."""
    return [
        line
        for line in _source(text).splitlines()
        if "scaled_dot_product_attention" in line and ("_ss_rt.attention.padded(" in line) == padded
    ]


def _outcome(text: str, lower: bool, name: str, inputs: list[torch.Tensor], kw: dict):
    """A function's result and its float inputs' gradients (of a fixed weighted sum)."""
    leaves = [x.detach().clone().requires_grad_(x.is_floating_point()) for x in inputs]
    result = getattr(_module(text, lower), name)(*leaves, **kw)
    weights = torch.linspace(-1, 1, result.numel()).reshape(result.shape)
    (result.float() * weights).sum().backward()
    return [result, *(x.grad for x in leaves if x.requires_grad)]


def _run_both(
    text: str,
    name: str,
    inputs: list[torch.Tensor],
    dtype: str = "f32",
    reference: str | None = None,
    **kw,
):
    """Compare the function's result and gradients lowered and not. In f32 they agree
    within TOLERANCES; in bf16 each is compared with the f32 program (`reference`) on the
    same inputs, and the lowered error is at most twice the unlowered one, plus 3% of
    the largest value."""
    lowered = _outcome(text, True, name, inputs, kw)
    plain = _outcome(text, False, name, inputs, kw)
    if dtype == "f32":
        for ours, theirs in zip(lowered, plain, strict=True):
            torch.testing.assert_close(ours, theirs, **TOLERANCES["f32"])
        return
    assert reference is not None
    exact = _outcome(reference, False, name, [x.float() for x in inputs], kw)
    for ours, theirs, truth in zip(lowered, plain, exact, strict=True):
        assert ours.dtype == torch.bfloat16
        our_error = (ours.float() - truth).abs().max()
        their_error = (theirs.float() - truth).abs().max()
        # (1e-6 for a result that is all zeros, as the gradient through a single key is.)
        bound = 2 * their_error + 0.03 * truth.abs().max() + 1e-6
        assert our_error <= bound, (our_error, their_error)


def _seed(*drawn: object) -> None:
    """Seed torch from what Hypothesis drew, so an example runs the same again."""
    torch.manual_seed(zlib.crc32(repr(drawn).encode()))


def _random(*shape: int, dtype: str = "f32") -> torch.Tensor:
    return torch.randn(*shape).to(TORCH_DTYPES[dtype])


# ---------------------------------------------------------------------- what is lowered


def test_the_example_becomes_one_causal_sdpa_call():
    # One call in the plain body, and one (that joins the keys' masks) in the padded body.
    (plain,) = _lowered_lines(PROJECTED)
    (padded,) = _lowered_lines(PROJECTED, padded=True)
    assert "_ss_F.scaled_dot_product_attention(" in plain
    assert "_ss_rt.attention.padded(" in padded
    for line in (plain, padded):
        assert "is_causal=True" in line
        assert "# lowered: attention as scaled_dot_product_attention" in line
        # sqrt(Dh) is SDPA's own scale, so none is passed.
        assert "scale=" not in line
    assert "einsum" not in _source(PROJECTED)


def test_no_lowering_keeps_the_einsums():
    source = _source(PROJECTED, lower=False)
    assert "scaled_dot_product_attention" not in source
    # Two in the plain body and two in the padded one.
    assert source.count("einsum(") == 4
    assert "lowered:" not in source


def test_statements_of_their_own_are_absorbed():
    text = STATEMENTS.format(dtype="f32")
    lines = _lowered_lines(text)
    assert len(lines) == 1 and "is_causal=True" in lines[0]
    source = _source(text)
    assert "einsum" not in source
    assert "scores =" not in source and "p =" not in source


# ---------------------------------------------------------------------- same results


@FAST
@given(
    b=st.integers(1, 3),
    n=st.integers(1, 6),
    dtype=st.sampled_from(["f32", "bf16"]),
)
def test_projected_attention_agrees(b: int, n: int, dtype: str):
    _seed(b, n, dtype)
    text = PROJECTED if dtype == "f32" else PROJECTED.replace("D]", "D] bf16")
    inputs = [
        _random(b, n, 8, dtype=dtype),
        _random(8, 24, dtype=dtype),
        _random(8, 8, dtype=dtype),
    ]
    _run_both(text, "causal_attention", inputs, dtype, reference=PROJECTED)


@FAST
@given(
    b=st.integers(1, 3),
    h=st.integers(1, 3),
    n=st.integers(1, 6),
    e=st.integers(1, 8),
    dtype=st.sampled_from(["f32", "bf16"]),
)
def test_statements_agree(b: int, h: int, n: int, e: int, dtype: str):
    _seed(b, h, n, e, dtype)
    text = STATEMENTS.format(dtype=dtype)
    inputs = [_random(b, h, n, e, dtype=dtype) for _ in range(3)]
    _run_both(text, "attend", inputs, dtype, reference=STATEMENTS.format(dtype="f32"))


CROSS = """
fn cross(q: [b h n e], k: [b h m e], v: [b h m f]) -> [b h n f]:
    att = einsum(q, k: b h n e, b h m e -> b h n m) / sqrt(e)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b h n m, b h m f -> b h n f)
"""


@FAST
@given(b=st.integers(1, 2), n=st.integers(1, 5), m=st.integers(1, 5), e=st.integers(1, 4))
def test_causal_of_two_lengths_is_an_explicit_mask(b: int, n: int, m: int, e: int):
    _seed(b, n, m, e)
    (line,) = _lowered_lines(CROSS)
    assert "is_causal" not in line and "attn_mask=" in line and ".tril()" in line
    inputs = [_random(b, 2, n, e), _random(b, 2, m, e), _random(b, 2, m, 3)]
    _run_both(CROSS, "cross", inputs)


HEADS_INSIDE = """
fn heads_inside(q: [b n h e], k: [b m h e], v: [b m h e]) -> [b n h e]:
    att = einsum(q, k: b n h e, b m h e -> b h n m) * 0.5 |> softmax(over=m)
    return einsum(att, v: b h n m, b m h e -> b n h e)
"""


@FAST
@given(b=st.integers(1, 2), n=st.integers(1, 5), m=st.integers(1, 5), h=st.integers(1, 3))
def test_heads_anywhere_are_permuted_views(b: int, n: int, m: int, h: int):
    _seed(b, n, m, h)
    (line,) = _lowered_lines(HEADS_INSIDE)
    assert "permute(0, 2, 1, 3)" in line and "scale=0.5" in line
    inputs = [_random(b, n, h, 4), _random(b, m, h, 4), _random(b, m, h, 4)]
    _run_both(HEADS_INSIDE, "heads_inside", inputs)


BOOLEAN = """
fn kept(q: [b h n e], k: [b h m e], v: [b h m e], keep: [n m] Mask) -> [b h n e]:
    att = einsum(q, k: b h n e, b h m e -> b h n m) / sqrt(e)
        |> masked_fill(!keep, -inf)
        |> softmax(over=m)
    return einsum(att, v: b h n m, b h m e -> b h n e)
"""

ADDED = """
fn biased(q: [b h n e], k: [b h m e], v: [b h m e], bias: [n m]) -> [b h n e]:
    p = softmax(einsum(q, k: b h n e, b h m e -> b h n m) / 2.0 + bias, over=m)
    return einsum(p, v: b h n m, b h m e -> b h n e)
"""


@FAST
@given(b=st.integers(1, 2), n=st.integers(1, 5), m=st.integers(1, 5), seed=st.integers(0, 99))
def test_a_boolean_mask_is_lowered_as_attn_mask(b: int, n: int, m: int, seed: int):
    _seed(b, n, m, seed)
    (line,) = _lowered_lines(BOOLEAN)
    assert "attn_mask=keep" in line and "is_causal" not in line
    generator = torch.Generator().manual_seed(seed)
    keep = torch.rand(n, m, generator=generator) < 0.6
    keep[:, 0] = True  # a row with every key masked is NaN as written, zeros fused
    inputs = [_random(b, 2, n, 4), _random(b, 2, m, 4), _random(b, 2, m, 4)]
    _run_both(BOOLEAN, "kept", [*inputs, keep])


@FAST
@given(b=st.integers(1, 2), n=st.integers(1, 5), m=st.integers(1, 5))
def test_an_added_float_mask_is_lowered_as_attn_mask(b: int, n: int, m: int):
    _seed(b, n, m)
    (line,) = _lowered_lines(ADDED)
    assert "attn_mask=bias" in line and "scale=(1 / 2.0)" in line
    inputs = [_random(b, 2, n, 4), _random(b, 2, m, 4), _random(b, 2, m, 4), _random(n, m)]
    _run_both(ADDED, "biased", inputs)


# ---------------------------------------------------------------------- what is not


USED_TWICE = """
fn twice(q: [b h n e], k: [b h n e], v: [b h n e]) -> [b h n e]:
    att = einsum(q, k: b h n e, b h m e -> b h n m) / sqrt(e)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b h n m, b h m e -> b h n e) + einsum(att, q: b h n m, b h m e -> b h n e)
"""

FILLED_DIFFERENTLY = """
fn finite(q: [b h n e], k: [b h n e], v: [b h n e]) -> [b h n e]:
    att = einsum(q, k: b h n e, b h m e -> b h n m) / sqrt(e)
        |> masked_fill(!causal[n m], -1000000000.0)
        |> softmax(over=m)
    return einsum(att, v: b h n m, b h m e -> b h n e)
"""

UNSCALED = """
fn unscaled(q: [b h n e], k: [b h n e], v: [b h n e]) -> [b h n e]:
    att = einsum(q, k: b h n e, b h m e -> b h n m) |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b h n m, b h m e -> b h n e)
"""


#: A statement between the weights and their use: the weights' statement stays where it is.
SOMETHING_BETWEEN = """
fn between(q: [b h n e], k: [b h n e], v: [b h n e]) -> [b h n e]:
    att = einsum(q, k: b h n e, b h m e -> b h n m) / sqrt(e)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    w = v * 2.0
    return einsum(att, w: b h n m, b h m e -> b h n e)
"""


@pytest.mark.parametrize(
    ("text", "name"),
    [(USED_TWICE, "twice"), (FILLED_DIFFERENTLY, "finite"), (SOMETHING_BETWEEN, "between")],
)
def test_not_lowered_but_still_correct(text: str, name: str):
    # The weights are used twice, masked with a finite number, or bound two statements
    # before their use: not lowered.
    source = _source(text)
    assert "scaled_dot_product_attention" not in source
    # Each einsum stays a contraction of its own (an einsum, or `@` where it is a matmul).
    assert source.count("einsum(") + source.count("lowered: einsum as matmul") >= 2
    _run_both(text, name, [_random(2, 2, 5, 4) for _ in range(3)])


def test_no_scale_is_lowered_with_scale_one():
    (line,) = _lowered_lines(UNSCALED)
    assert "scale=1.0" in line and "is_causal=True" in line
    _run_both(UNSCALED, "unscaled", [_random(2, 2, 5, 4) for _ in range(3)])


# ---------------------------------------------------------------------- padding, built-in


def test_a_padded_key_axis_joins_the_causal_mask():
    (line,) = _lowered_lines(PROJECTED, padded=True)
    assert "_ss_rt.attention.padded(" in line and "_ss_pads.get('n')" in line
    real = torch.tensor([True] * 4 + [False] * 2)
    inputs = [_random(2, 6, 8), _random(8, 24), _random(8, 8)]
    _run_both(PROJECTED, "causal_attention", inputs, _ss_pad={"n": real})


BUILT_IN = """
fn built_in(q: [b h n e], k: [b h n e], v: [b h n e]) -> [b h n e]:
    return scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
"""


def test_the_built_in_with_a_causal_mask_is_causal():
    source = _source(BUILT_IN)
    assert "is_causal=True" in source and "tril" not in source
    assert "tril" in _source(BUILT_IN, lower=False)
    _run_both(BUILT_IN, "built_in", [_random(2, 2, 5, 4) for _ in range(3)])


ONE_EXPRESSION = """
fn one(q: [b h n e], k: [b h n e], v: [b h n e]) -> [b h n e] = einsum(
    softmax(
        einsum(q, k: b h n e, b h m e -> b h n m)
        |> div(sqrt(e))
        |> masked_fill(!causal[n m], -inf),
        over=m,
    ),
    v: b h n m, b h m e -> b h n e,
)
"""

#: The weights second in the last einsum, so padding zeroes v at padded keys instead.
SWAPPED = """
fn swapped(q: [b h n e], k: [b h n e], v: [b h n e]) -> [b h n e]:
    att = 0.25 * einsum(q, k: b h n e, b h m e -> b h n m) |> softmax(over=m)
    return einsum(v, att: b h m e, b h n m -> b h n e)
"""


@pytest.mark.parametrize(
    ("text", "name", "pads"),
    [(ONE_EXPRESSION, "one", ("n",)), (SWAPPED, "swapped", ("n", "e"))],
)
def test_other_spellings_padded_or_not(text: str, name: str, pads: tuple[str, ...]):
    (line,) = _lowered_lines(text)
    assert "einsum" not in _source(text)
    inputs = [_random(2, 2, 6, 4) for _ in range(3)]
    _run_both(text, name, inputs)
    real = {"n": torch.arange(6) < 4, "e": torch.arange(4) < 3}
    _run_both(text, name, inputs, _ss_pad={pad: real[pad] for pad in pads})
