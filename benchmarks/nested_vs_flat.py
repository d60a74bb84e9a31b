"""What a training step of a GPT-2 written with nested models costs against the same GPT-2
written flat, its per-block weights stacked along `[L ...]`.

    python -m benchmarks.nested_vs_flat [--steps N] [--rounds R] [--widths 64 256]

The nested side is examples/gpt2_hf.ss (Hugging Face's field names: `transformer.h[l]`
holds a Block, which holds its norms, attention and MLP, each holding its projections);
the flat side, `FLAT` below, computes the same thing from one model whose params are
`[L D (3 D)]` and so on, indexed by the block's number. Both are compiled ShapeScript with
default checks, both start from the same weights (the flat one gets the nested one's,
stacked) and take one AdamW step per call: the loss's value and gradient, then `update`.
Batch 8 of 32 tokens, one thread, CPU; each width D (64, the example's, and 256) is one
case, the other sizes as in the example (L = 2, V = 100, F = 4 D).

Each figure is the median of many short batches of steps, the two sides alternating batch
by batch so that noise from other work on the machine falls on both. The issue's budget is
nested / flat <= 1.05. Results go to benchmarks/results/nested_vs_flat.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch

import shapescript
from shapescript.atomic_write import write_text
from shapescript.rt import devices as rt_devices
from shapescript.rt.optimizers import adamw

ROOT = Path(__file__).resolve().parents[1]
NESTED = (ROOT / "examples" / "gpt2_hf.ss").read_text(encoding="utf-8")
RESULTS = Path(__file__).parent / "results" / "nested_vs_flat.json"
BUDGET = 1.05
BATCH, TOKENS, V = 8, 32, 100

#: examples/gpt2_hf.ss written flat: the same sizes, layouts and operations.
FLAT = """\
dim D = 64
dim H = 4
dim Dh = D / H
dim F = 4 * D
dim L = 2
dim V = 100
dim P = 32

model Gpt2Flat:
    param wte: [V D] = normal(std=0.02)
    param wpe: [P D] = normal(std=0.01)
    param ln_1_w: [L D] = ones
    param ln_1_b: [L D] = zeros
    param c_attn_w: [L D (3 D)] = normal(std=0.02)
    param c_attn_b: [L (3 D)] = zeros
    param attn_proj_w: [L D D] = normal(std=0.02)
    param attn_proj_b: [L D] = zeros
    param ln_2_w: [L D] = ones
    param ln_2_b: [L D] = zeros
    param c_fc_w: [L D F] = normal(std=0.02)
    param c_fc_b: [L F] = zeros
    param mlp_proj_w: [L F D] = normal(std=0.02)
    param mlp_proj_b: [L D] = zeros
    param ln_f_w: [D] = ones
    param ln_f_b: [D] = zeros

fn gelu_new(x: [b n F]) -> [b n F]:
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))

fn attend(m: Gpt2Flat, x: [b n D], l: int) -> [b n D]:
    q, k, v = x @ m.c_attn_w[l] + m.c_attn_b[l] |> split(b n (3 H Dh) -> b H n Dh)
    return scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(m.attn_proj_w[l])
        |> add(m.attn_proj_b[l])

fn feed(m: Gpt2Flat, x: [b n D], l: int) -> [b n D]:
    return (x @ m.c_fc_w[l] + m.c_fc_b[l] |> gelu_new) @ m.mlp_proj_w[l] + m.mlp_proj_b[l]

fn block(m: Gpt2Flat, x: [b n D], l: int) -> [b n D]:
    h = x + attend(m, layer_norm(x, over=D, weight=m.ln_1_w[l], bias=m.ln_1_b[l], eps=1e-5), l)
    return h + feed(m, layer_norm(h, over=D, weight=m.ln_2_w[l], bias=m.ln_2_b[l], eps=1e-5), l)

fn forward(m: Gpt2Flat, ids: [b n] Index[V]) -> [b n V] Logit over V:
    x = embedding(ids, m.wte) + (m.wpe[0:n] as [n D])
    for l in 0..L:
        x = block(m, x, l)
    return linear(layer_norm(x, over=D, weight=m.ln_f_w, bias=m.ln_f_b, eps=1e-5), m.wte)

fn loss(m: Gpt2Flat, ids: [b n] Index[V], y: [b n] Index[V]) -> [] NonNeg:
    return cross_entropy(forward(m, ids), y, over=V)

fn step(mut m: Gpt2Flat, mut opt: AdamW[Gpt2Flat], ids: [b n] Index[V], y: [b n] Index[V]) -> []:
    l, g = value_and_grad(loss, m, ids, y)
    update(mut m, mut opt, g)
    return l
"""

#: Each flat param and the nested path it stacks, `{}` standing for the block's number.
STACKED = {
    "ln_1_w": "transformer.h.{}.ln_1.weight",
    "ln_1_b": "transformer.h.{}.ln_1.bias",
    "c_attn_w": "transformer.h.{}.attn.c_attn.weight",
    "c_attn_b": "transformer.h.{}.attn.c_attn.bias",
    "attn_proj_w": "transformer.h.{}.attn.c_proj.weight",
    "attn_proj_b": "transformer.h.{}.attn.c_proj.bias",
    "ln_2_w": "transformer.h.{}.ln_2.weight",
    "ln_2_b": "transformer.h.{}.ln_2.bias",
    "c_fc_w": "transformer.h.{}.mlp.c_fc.weight",
    "c_fc_b": "transformer.h.{}.mlp.c_fc.bias",
    "mlp_proj_w": "transformer.h.{}.mlp.c_proj.weight",
    "mlp_proj_b": "transformer.h.{}.mlp.c_proj.bias",
}
SINGLE = {
    "wte": "transformer.wte.weight",
    "wpe": "transformer.wpe.weight",
    "ln_f_w": "transformer.ln_f.weight",
    "ln_f_b": "transformer.ln_f.bias",
}


def flat_state(nested: dict[str, torch.Tensor], blocks: int) -> dict[str, torch.Tensor]:
    """The flat model's params made of the nested model's, per-block ones stacked."""
    state = {name: nested[path] for name, path in SINGLE.items()}
    for name, path in STACKED.items():
        state[name] = torch.stack([nested[path.format(block)] for block in range(blocks)])
    return state


def _width(text: str, width: int) -> str:
    """The program with `dim D = width`."""
    assert "dim D = 64\n" in text
    return text.replace("dim D = 64\n", f"dim D = {width}\n", 1)


def steps(width: int = 64) -> tuple[Callable[..., torch.Tensor], Callable[..., torch.Tensor]]:
    """The nested and the flat step, each bound to its model and AdamW state, from the same
    weights."""
    nested = shapescript.compile(_width(NESTED, width), f"<gpt2_hf D={width}>", devices="cpu")
    flat = shapescript.compile(_width(FLAT, width), f"<gpt2_flat D={width}>", devices="cpu")
    m = nested.Gpt2LMHead.init(seed=0)
    with torch.no_grad():
        for value in m.parameters():
            value.add_(torch.randn_like(value) * 0.05)  # biases and norms not all 0 and 1
    f = flat.Gpt2Flat.init(seed=0)
    f.load_state_dict(flat_state(m.state_dict(), len(m.transformer.h)))
    nested_opt, flat_opt = adamw(m, lr=6e-4), adamw(f, lr=6e-4)

    def nested_step(ids: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return nested.step(m, nested_opt, ids, y)

    def flat_step(ids: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return flat.step(f, flat_opt, ids, y)

    return nested_step, flat_step


def _time(function: Callable[..., object], args: tuple, count: int) -> float:
    start = time.perf_counter()
    for _ in range(count):
        function(*args)
    return (time.perf_counter() - start) / count


def paired(first, second, args: tuple, count: int, rounds: int) -> tuple[float, float]:
    """Median seconds per step of each side: short batches, alternating."""
    a, b = [], []
    for function in (first, second):
        _time(function, args, count)
    for _ in range(rounds):
        a.append(_time(first, args, count))
        b.append(_time(second, args, count))
    return statistics.median(a), statistics.median(b)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5, help="steps per batch")
    parser.add_argument("--rounds", type=int, default=60, help="batches per side")
    parser.add_argument("--widths", type=int, nargs="+", default=[64, 256], help="D of each case")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rt_devices._reset_for_tests()
    shapescript.devices("cpu")
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, V, (BATCH, TOKENS + 1), generator=generator)
    inputs = (ids[:, :-1], ids[:, 1:])
    results: dict = {
        "steps": args.steps,
        "rounds": args.rounds,
        "batch": BATCH,
        "tokens": TOKENS,
        "budget": BUDGET,
        "cases": [],
    }
    for width in args.widths:
        nested_step, flat_step = steps(width)
        first, again = nested_step(*inputs), flat_step(*inputs)
        if (first - again).abs().item() > 1e-4:
            raise SystemExit(f"the two models disagree: losses {first.item()}, {again.item()}")
        nested_s, flat_s = paired(nested_step, flat_step, inputs, args.steps, args.rounds)
        ratio = nested_s / flat_s
        verdict = "PASS" if ratio <= BUDGET else "FAIL"
        print(
            f"D={width:<4d} nested/flat {ratio:6.3f}x ({nested_s * 1e6:8.1f} vs "
            f"{flat_s * 1e6:8.1f} µs per step; budget {BUDGET}x) {verdict}"
        )
        results["cases"].append(
            {"width": width, "nested_us": nested_s * 1e6, "flat_us": flat_s * 1e6, "ratio": ratio}
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    write_text(RESULTS, json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
