"""What a training step compiled from ShapeScript costs against the same step hand-written.

    python -m benchmarks.train_step [--steps N] [--rounds R]

The step is the two-layer classifier's (D=784, Hd=256, C=10, batch 64, CPU): the loss's
value and gradient, `clip_norm(1.0)`, and an AdamW update under `warmup(10, cosine(3e-3,
90))`. The hand-written side is `zero_grad`, forward, `backward`, `clip_grad_norm_`, the
learning rate set from the same schedule, and `torch.optim.AdamW.step()`.

Each figure is the median of many short batches of steps, the two sides alternating batch
by batch so that noise from other work on the machine falls on both; the ratio compiled /
hand-written is taken with default checks and with checks off (budgets: at most 1.05x and
1.02x). `update` checks everything the step could fail on before it changes anything, so
that a step that fails leaves the params and the optimizer state as they were, then runs
torch's ops in place (`shapescript.rt.steps`): those checks are part of the compiled side's
cost; nothing is copied. Results go to benchmarks/results/train_step.json.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch

import shapescript
from shapescript.rt import devices as rt_devices

RESULTS = Path(__file__).parent / "results" / "train_step.json"

CLASSIFIER = """\
dim D = 784
dim Hd = 256
dim C = 10

model Mlp:
    param w1: [D Hd] = normal(std=0.02)
    param b1: [Hd] = zeros
    param w2: [Hd C] = normal(std=0.02)
    param b2: [C] = zeros

fn forward(m: Mlp, x: [b D]) -> [b C] = relu(x @ m.w1 + m.b1) @ m.w2 + m.b2

fn loss(m: Mlp, x: [b D], y: [b] Index[C]) -> [] = cross_entropy(forward(m, x), y, over=C) |> mean

fn optimizer(m: Mlp) -> AdamW[Mlp] = adamw(m, lr=warmup(10, cosine(3e-3, 90)))

fn step(mut m: Mlp, mut opt: AdamW[Mlp], x: [b D], y: [b] Index[C]) -> []:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g |> clip_norm(1.0))
    return l
"""

BUDGETS = {"always": 1.05, "never": 1.02}


def learning_rate(t: int) -> float:
    """warmup(10, cosine(3e-3, 90)), written out."""
    if t < 10:
        return 3e-3 * t / 10
    return 3e-3 * (1 + math.cos(math.pi * min(t - 10, 90) / 90)) / 2


class Reference(torch.nn.Module):
    """The classifier in plain PyTorch."""

    def __init__(self, state: dict[str, torch.Tensor]) -> None:
        super().__init__()
        for name, value in state.items():
            self.register_parameter(name, torch.nn.Parameter(value.detach().clone()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x @ self.w1 + self.b1) @ self.w2 + self.b2


def hand_step(model: Reference) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    """The hand-written training step, counting its steps for the schedule."""
    opt = torch.optim.AdamW(model.parameters(), lr=0.0)
    params = list(model.parameters())
    count = [0]

    def step(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        opt.zero_grad()
        for group in opt.param_groups:
            group["lr"] = learning_rate(count[0])
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        count[0] += 1
        return loss.detach()

    return step


def compiled_step(checks: str) -> tuple[Callable[..., torch.Tensor], dict[str, torch.Tensor]]:
    """The compiled step bound to a fresh model and optimizer, and the model's first state."""
    module = shapescript.compile(
        CLASSIFIER, "<bench train_step>", devices="cpu", checks=checks, value_checks="never"
    )
    m = module.Mlp.init(seed=0)
    opt = module.optimizer(m)
    state = {name: value.detach().clone() for name, value in m.state_dict().items()}

    def step(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return module.step(m, opt, x, y)

    return step, state


def _time(function: Callable[..., object], args: tuple, steps: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        function(*args)
    return (time.perf_counter() - start) / steps


def paired(first, second, args: tuple, steps: int, rounds: int) -> tuple[float, float]:
    """Median seconds per step of each side: short batches, alternating."""
    a, b = [], []
    for function in (first, second):
        _time(function, args, steps)
    for _ in range(rounds):
        a.append(_time(first, args, steps))
        b.append(_time(second, args, steps))
    return statistics.median(a), statistics.median(b)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5, help="steps per batch")
    parser.add_argument("--rounds", type=int, default=200, help="batches per side")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rt_devices._reset_for_tests()
    shapescript.devices("cpu")
    generator = torch.Generator().manual_seed(0)
    inputs = (torch.randn(64, 784, generator=generator), torch.randint(0, 10, (64,)))
    results: dict = {"steps": args.steps, "rounds": args.rounds, "cases": []}
    for checks in ("always", "never"):
        ours, state = compiled_step(checks)
        theirs = hand_step(Reference(state))
        compiled_s, hand_s = paired(ours, theirs, inputs, args.steps, args.rounds)
        ratio = compiled_s / hand_s
        results["cases"].append(
            {
                "checks": checks,
                "compiled_us": compiled_s * 1e6,
                "hand_us": hand_s * 1e6,
                "ratio": ratio,
                "budget": BUDGETS[checks],
            }
        )
        verdict = "PASS" if ratio <= BUDGETS[checks] else "FAIL"
        print(
            f"checks={checks:6s} compiled/hand {ratio:6.3f}x "
            f"({compiled_s * 1e6:8.1f} vs {hand_s * 1e6:8.1f} µs per step; "
            f"budget {BUDGETS[checks]}x) {verdict}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
