"""One epoch of the README's training example against the same loop written by hand.

    python -m benchmarks.train_loop [--epochs N] [--examples N]

The ShapeScript side is `examples/train_mlp.ss`'s `fit` for one epoch (mode Eval): a
shuffled pass in batches of 64 over an in-memory dataset of 60,000 examples of 784
features, `value_and_grad`, `clip_norm(1.0)`, an AdamW update and a logs record written to
a sink per step, and a checkpoint at the end. The hand-written side is the same loop in
plain PyTorch: `torch.utils.data.DataLoader` (shuffled, batch 64), forward, `backward`,
`clip_grad_norm_`, `torch.optim.AdamW.step()`, the loss and the norm read per step, and
`torch.save` of the model and the optimizer at the end.

Both run with 0 and with 2 loader workers (workers kept between epochs on both sides).
Each figure is the median over `epochs` epochs, the two sides alternating epoch by epoch so
that noise from other work on the machine falls on both; the ratio is ShapeScript /
hand-written (budget: at most 1.05x). Results go to benchmarks/results/train_loop.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

import shapescript
from benchmarks.synthetic_data import SyntheticDigits
from shapescript.rt import devices as rt_devices

RESULTS = Path(__file__).parent / "results" / "train_loop.json"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "train_mlp.ss"
BUDGET = 1.05


class ListSink:
    """A sink that keeps what it is given: the cheapest sink there is."""

    def __init__(self) -> None:
        self.rows: list[dict] = []

    def write(self, record: dict) -> None:
        self.rows.append(record)

    def flush(self) -> None:
        pass


class Reference(torch.nn.Module):
    """The README's classifier in plain PyTorch, from the compiled model's first state."""

    def __init__(self, state: dict[str, torch.Tensor]) -> None:
        super().__init__()
        for name in ("w1", "b1", "w2"):
            self.register_parameter(name, torch.nn.Parameter(state[name].detach().clone()))
        self.register_buffer("mean", state["mean"].detach().clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu((x - self.mean) @ self.w1 + self.b1) @ self.w2


def hand_epoch(
    data: SyntheticDigits, state: dict[str, torch.Tensor], workers: int
) -> Callable[[int], None]:
    """One epoch of the hand-written loop, from the same first weights each time."""
    loader_args = {"batch_size": 64, "shuffle": True, "num_workers": workers}
    if workers:
        loader_args["persistent_workers"] = True
    loader = torch.utils.data.DataLoader(data, **loader_args)

    def epoch(number: int) -> None:
        model = Reference(state)
        params = list(model.parameters())
        opt = torch.optim.AdamW(params, lr=3e-4)
        logged = []
        torch.manual_seed(number)
        for batch in loader:
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(batch["img"]), batch["label"])
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            logged.append((loss.item(), norm.item()))
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epochs": 1}, "hand.pt")

    return epoch


def compiled_epoch(data: SyntheticDigits, module, workers: int) -> Callable[[int], None]:
    """One epoch of the README's `fit`, from the same first weights each time."""

    def epoch(number: int) -> None:
        shapescript.loader_workers(workers)
        m = module.Mlp.init(seed=0)
        module.fit(m, data, ListSink(), 1, shapescript.Eval)

    return epoch


def paired(first, second, epochs: int) -> tuple[list[float], list[float]]:
    """Seconds per epoch of each side, alternating, after one warm-up epoch each."""
    times: tuple[list[float], list[float]] = ([], [])
    for side in (first, second):
        side(0)
    for number in range(epochs):
        for side, kept in zip((first, second), times, strict=True):
            start = time.perf_counter()
            side(number)
            kept.append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5, help="timed epochs per side and case")
    parser.add_argument("--examples", type=int, default=60_000, help="examples in the dataset")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rt_devices._reset_for_tests()
    shapescript.devices("cpu")
    module = shapescript.compile(EXAMPLE.read_text(), str(EXAMPLE))
    data = SyntheticDigits(args.examples)
    results: dict = {"epochs": args.epochs, "examples": args.examples, "cases": []}
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            for workers in (0, 2):
                state = module.Mlp.init(seed=0).state_dict()
                ours, theirs = paired(
                    compiled_epoch(data, module, workers),
                    hand_epoch(data, state, workers),
                    args.epochs,
                )
                ratio = statistics.median(ours) / statistics.median(theirs)
                results["cases"].append(
                    {
                        "workers": workers,
                        "compiled_s": statistics.median(ours),
                        "hand_s": statistics.median(theirs),
                        "compiled_all_s": ours,
                        "hand_all_s": theirs,
                        "ratio": ratio,
                        "budget": BUDGET,
                    }
                )
                verdict = "PASS" if ratio <= BUDGET else "FAIL"
                print(
                    f"workers={workers} compiled/hand {ratio:6.3f}x "
                    f"({statistics.median(ours):6.2f} vs {statistics.median(theirs):6.2f} s per "
                    f"epoch; budget {BUDGET}x) {verdict}"
                )
        finally:
            os.chdir(here)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
