"""Recorded steps on a GPU: the README example's epoch recorded against unrecorded.

Run by hand where CUDA exists: `python -m benchmarks.recorded_steps [--epochs 3]`. It
trains the README example (examples/train_mlp.ss) with Eval (with `--train`,
Train(seed=0), whose dropout draws are registered with each graph) for a few epochs
twice, with recording off and on, checks that the losses agree within 1e-6, and prints the median
step time of each and of the same step written in PyTorch and recorded with
torch.cuda.graphs. Without CUDA it prints that recording is off and why, and exits 0.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "train_mlp.ss"
BATCH = 64


class Digits:
    """`count` random labelled images on the GPU, a map-style dataset."""

    def __init__(self, count: int) -> None:
        generator = torch.Generator().manual_seed(0)
        self.images = torch.rand(count, 784, generator=generator)
        self.labels = torch.randint(0, 10, (count,), generator=generator)

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return {"img": self.images[index], "label": self.labels[index]}


class TimedSink:
    """Keeps each step's loss and the time between writes."""

    def __init__(self) -> None:
        self.losses: list[float] = []
        self.times: list[float] = []
        self.last = time.perf_counter()

    def write(self, row: dict) -> None:
        torch.cuda.synchronize()
        now = time.perf_counter()
        self.times.append(now - self.last)
        self.last = now
        self.losses.append(float(row["loss"]))

    def flush(self) -> None:
        pass


def run(example, recording: bool, epochs: int, data: Digits, train: bool) -> TimedSink:
    import shapescript

    was = shapescript.record_steps(recording)
    try:
        m = example.Mlp.init(seed=0)
        sink = TimedSink()
        mode = shapescript.Train(seed=0) if train else shapescript.Eval
        example.fit(m, data, sink, epochs, mode)
        return sink
    finally:
        shapescript.record_steps(was)


def torch_graphs_step_ms(data: Digits, steps: int) -> float:
    """The same step in plain PyTorch, recorded with torch.cuda.graphs: median ms."""
    device = torch.device("cuda")
    w1 = (torch.randn(784, 256, device=device) * 0.02).requires_grad_()
    b1 = torch.zeros(256, device=device, requires_grad=True)
    w2 = (torch.rand(256, 10, device=device) * 0.2 - 0.1).requires_grad_()
    params = [w1, b1, w2]
    opt = torch.optim.AdamW(params, lr=torch.tensor(3e-4, device=device), capturable=True)
    x = data.images[:BATCH].to(device)
    y = data.labels[:BATCH].to(device)

    def step() -> torch.Tensor:
        opt.zero_grad(set_to_none=False)
        hidden = torch.nn.functional.gelu(x @ w1 + b1)
        loss = torch.nn.functional.cross_entropy(hidden @ w2, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        return loss

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    times = []
    for _ in range(steps):
        started = time.perf_counter()
        graph.replay()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--examples", type=int, default=100 * BATCH + 36)
    parser.add_argument(
        "--train",
        action="store_true",
        help="train with Train(seed=0): dropout draws registered with each graph",
    )
    options = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print(
            "recording is off: CUDA isn't available here, and steps are only recorded "
            "on CUDA (on the CPU and MPS they run as they are)"
        )
        return 0
    import shapescript

    shapescript.devices("cuda")
    example = shapescript.compile(EXAMPLE.read_text(encoding="utf-8"), str(EXAMPLE))
    data = Digits(options.examples)
    plain = run(example, False, options.epochs, data, options.train)
    recorded = run(example, True, options.epochs, data, options.train)
    worst = max(abs(a - b) for a, b in zip(plain.losses, recorded.losses, strict=True))
    agree = worst <= 1e-6
    print(f"losses agree within 1e-6: {'yes' if agree else 'NO'} (largest difference {worst:.3g})")
    print(f"recorded_steps(): {shapescript.recorded_steps()}")
    skip = len(plain.times) // options.epochs
    print(f"unrecorded step: {statistics.median(plain.times[skip:]) * 1000:.3f} ms (median)")
    print(f"recorded step:   {statistics.median(recorded.times[skip:]) * 1000:.3f} ms (median)")
    print(f"torch.cuda.graphs step: {torch_graphs_step_ms(data, 200):.3f} ms (median)")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
