"""What the runtime checks of compiled functions cost: per tensor argument, and per step.

    python -m benchmarks.checks_overhead [--calls N] [--rounds R] [--steps S]

Two measurements, each the same code compiled twice, with default checks (`checks=always`,
`value_checks=debug`) and with checks off (`never`, `never`), the two sides alternating
batch by batch so that noise from other work on the machine falls on both; one torch
thread, CPU. Times are the process's CPU time, not the wall clock's, so that a machine
busy with other work slows neither side's figure.

- Argument checks: a function of k tensor arguments (k = 1, 4, 8) that returns its first
  one, called N times a batch. The difference of the two sides' medians, divided by k, is
  what checking one tensor argument costs (budget: at most 1 µs).
- A training step: a 2-layer GPT (D=64, 4 heads, vocabulary 256, batch 8 of 32 tokens)
  compiled from the same blocks as examples/gpt.ss, whose step takes the loss's value
  and gradient, clips it and makes an AdamW update. Default checks / checks off per step
  (budget: at most 1.05x).

Results go to benchmarks/results/checks_overhead.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import torch

import shapescript
from benchmarks.common import RESULTS, environment
from shapescript.atomic_write import write_text
from shapescript.rt import devices as rt_devices

#: The two sides: default checks, and checks off.
DEFAULT = {"checks": "always", "value_checks": "debug"}
OFF = {"checks": "never", "value_checks": "never"}

PER_ARGUMENT_BUDGET_US = 1.0
STEP_BUDGET = 1.05
ARGUMENT_COUNTS = (1, 4, 8)

GPT = """\
dim V = 256
dim T = 64
dim D = 64
dim H = 4
dim Dh = D / H
dim Dff = 4 * D
dim L = 2

model Gpt:
    param wte: [V D] = normal(std=0.02)
    param wpe: [T D] = normal(std=0.01)
    param ln1_w: [L D] = ones
    param ln1_b: [L D] = zeros
    param w_qkv: [L D 3*D] = normal(std=0.02)
    param w_o: [L D D] = normal(std=0.02)
    param ln2_w: [L D] = ones
    param ln2_b: [L D] = zeros
    param w_fc: [L D Dff] = normal(std=0.02)
    param b_fc: [L Dff] = zeros
    param w_proj: [L Dff D] = normal(std=0.02)
    param b_proj: [L D] = zeros
    param lnf_w: [D] = ones
    param lnf_b: [D] = zeros

fn attention(m: Gpt, x: [b n D], l: int) -> [b n D]:
    q, k, v = x @ m.w_qkv[l] |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(m.w_o[l])

fn mlp(m: Gpt, x: [b n D], l: int) -> [b n D]:
    return x @ m.w_fc[l] + m.b_fc[l] |> gelu |> matmul(m.w_proj[l]) |> add(m.b_proj[l])

fn block(m: Gpt, x: [b n D], l: int) -> [b n D]:
    x = x + attention(m, layer_norm(x, over=D, weight=m.ln1_w[l], bias=m.ln1_b[l]), l)
    return x + mlp(m, layer_norm(x, over=D, weight=m.ln2_w[l], bias=m.ln2_b[l]), l)

fn forward(m: Gpt, ids: [b n] Index[V]) -> [b n V] Logit over V:
    x = embedding(ids, m.wte) + (m.wpe[0:n] as [n D])
    for l in 0..L:
        x = block(m, x, l)
    x = layer_norm(x, over=D, weight=m.lnf_w, bias=m.lnf_b)
    return linear(x, m.wte)

fn loss(m: Gpt, ids: [b n] Index[V], targets: [b n] Index[V]) -> [] NonNeg:
    return cross_entropy(forward(m, ids), targets, over=V)

fn optimizer(m: Gpt) -> AdamW[Gpt]:
    return adamw(m, lr=3e-4, weight_decay=0.1)

fn train_step(mut m: Gpt, mut opt: AdamW[Gpt], ids: [b n] Index[V], targets: [b n] Index[V]) -> []:
    l, g = value_and_grad(loss, m, ids, targets)
    update(mut m, mut opt, g |> clip_norm(1.0))
    return l
"""


def arguments_program(count: int) -> str:
    """A function of `count` tensor arguments that returns its first."""
    params = ", ".join(f"x{index}: [b D]" for index in range(count))
    return f"dim D = 16\n\nfn first({params}) -> [b D] = x0\n"


def _batch(function: Callable[..., object], args: tuple, calls: int) -> float:
    """CPU seconds per call over a batch of `calls` calls: the process's own time, so that
    other work on a busy machine doesn't count (torch runs on this one thread)."""
    start = time.process_time()
    for _ in range(calls):
        function(*args)
    return (time.process_time() - start) / calls


def paired(
    first: Callable[..., object],
    second: Callable[..., object],
    args: tuple,
    calls: int,
    rounds: int,
) -> tuple[float, float]:
    """Median seconds per call of each side: batches of calls, alternating."""
    a, b = [], []
    for function in (first, second):
        _batch(function, args, calls)
    for _ in range(rounds):
        a.append(_batch(first, args, calls))
        b.append(_batch(second, args, calls))
    return statistics.median(a), statistics.median(b)


def argument_checks(calls: int, rounds: int) -> list[dict[str, Any]]:
    """The cost of checking one tensor argument, for each argument count."""
    found = []
    for count in ARGUMENT_COUNTS:
        text = arguments_program(count)
        checked = shapescript.compile(text, f"<checks {count}>", devices="cpu", **DEFAULT)
        unchecked = shapescript.compile(text, f"<no checks {count}>", devices="cpu", **OFF)
        args = tuple(torch.randn(4, 16) for _ in range(count))
        with_checks, without = paired(checked.first, unchecked.first, args, calls, rounds)
        per_argument_us = (with_checks - without) * 1e6 / count
        found.append(
            {
                "tensor_arguments": count,
                "checked_us": round(with_checks * 1e6, 3),
                "unchecked_us": round(without * 1e6, 3),
                "per_argument_us": round(per_argument_us, 3),
                "budget_us": PER_ARGUMENT_BUDGET_US,
                "pass": per_argument_us <= PER_ARGUMENT_BUDGET_US,
            }
        )
    return found


def gpt_step(options: dict[str, str]) -> Callable[[torch.Tensor, torch.Tensor], object]:
    """The GPT's training step, compiled with these checks, bound to a fresh model."""
    module = shapescript.compile(GPT, f"<gpt {options['checks']}>", devices="cpu", **options)
    m = module.Gpt.init(seed=0)
    opt = module.optimizer(m)

    def step(ids: torch.Tensor, targets: torch.Tensor) -> object:
        return module.train_step(m, opt, ids, targets)

    return step


def training_step(steps: int, rounds: int) -> dict[str, Any]:
    """A training step with default checks against the same step with checks off."""
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 256, (8, 32), generator=generator)
    targets = torch.randint(0, 256, (8, 32), generator=generator)
    checked, unchecked = paired(gpt_step(DEFAULT), gpt_step(OFF), (ids, targets), steps, rounds)
    ratio = checked / unchecked
    return {
        "checked_us": round(checked * 1e6, 1),
        "unchecked_us": round(unchecked * 1e6, 1),
        "ratio": round(ratio, 4),
        "budget": STEP_BUDGET,
        "pass": ratio <= STEP_BUDGET,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per batch")
    parser.add_argument("--rounds", type=int, default=60, help="batches per side")
    parser.add_argument("--steps", type=int, default=5, help="training steps per batch")
    parser.add_argument("--step-rounds", type=int, default=40, help="step batches per side")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rt_devices._reset_for_tests()
    shapescript.devices("cpu")
    arguments = argument_checks(args.calls, args.rounds)
    for case in arguments:
        verdict = "PASS" if case["pass"] else "FAIL"
        print(
            f"{case['tensor_arguments']} tensor arguments: {case['checked_us']:7.2f} µs checked, "
            f"{case['unchecked_us']:7.2f} µs not; {case['per_argument_us']:6.3f} µs per "
            f"argument (budget {PER_ARGUMENT_BUDGET_US} µs) {verdict}"
        )
    step = training_step(args.steps, args.step_rounds)
    print(
        f"GPT training step: {step['checked_us']:9.1f} µs checked, {step['unchecked_us']:9.1f} "
        f"µs not; {step['ratio']:.3f}x (budget {STEP_BUDGET}x) "
        + ("PASS" if step["pass"] else "FAIL")
    )
    result = {
        **environment(),
        "calls": args.calls,
        "rounds": args.rounds,
        "steps": args.steps,
        "step_rounds": args.step_rounds,
        "argument_checks": arguments,
        "training_step": step,
    }
    path = RESULTS / "checks_overhead.json"
    RESULTS.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(result, indent=2) + "\n")
    print(f"results: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
