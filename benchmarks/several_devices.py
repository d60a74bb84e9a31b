"""A step of the README example on three CPU workers against PyTorch's DDP doing the same.

    python -m benchmarks.several_devices [--steps N]

ShapeScript's side compiles examples/train_mlp.ss with `devices cpu[0 1 2]` and calls its
`train_step` from Python with a batch of 64 (split 22/21/21 across the workers, Gloo
all-reduces), in Eval mode. The other side is three processes of
`torch.nn.parallel.DistributedDataParallel` on a Gloo process group, each with its own
third of the batch on hand, doing the same forward, `backward`, `clip_grad_norm_(1.0)` and
AdamW step. Each side's figure is the median of per-step wall times (after warm-up steps);
the budget is a ratio of medians, ShapeScript / DDP, of at most 1.0. Results go to
benchmarks/results/several_devices.json. On this machine's shared cores both sides are
noisy: compare ratios from the same run only.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import tempfile
import time
from pathlib import Path

import torch
import torch.multiprocessing as mp

from benchmarks.common import environment, write_results

README = Path(__file__).resolve().parents[1] / "examples" / "train_mlp.ss"
BUDGET = 1.0
WARMUP = 5


def _batch(count: int, seed: int = 0) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return {
        "img": torch.rand(count, 784, generator=generator),
        "label": torch.randint(0, 10, (count,), generator=generator),
    }


def shapescript_steps(steps: int, folder: str) -> list[float]:
    """Per-step milliseconds of the compiled train_step on cpu[0 1 2]."""
    import shapescript

    text = README.read_text(encoding="utf-8").replace(
        "## Pixels in one", "devices cpu[0 1 2]\n\n## Pixels in one", 1
    )
    path = os.path.join(folder, "train_mlp.ss")
    Path(path).write_text(text, encoding="utf-8")
    module = shapescript.compile(text, path)
    m = module.Mlp.init(seed=0)
    opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
    batch = _batch(64)
    times = []
    try:
        for index in range(WARMUP + steps):
            start = time.perf_counter()
            module.train_step(m, opt, batch, shapescript.Eval)
            if index >= WARMUP:
                times.append((time.perf_counter() - start) * 1000)
    finally:
        module._ss_program.stop()
    return times


class _Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.randn(784, 256) * 0.02)
        self.b1 = torch.nn.Parameter(torch.zeros(256))
        self.w2 = torch.nn.Parameter(torch.rand(256, 10) * 0.2 - 0.1)
        self.register_buffer("mean", torch.zeros(784))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu((x - self.mean) @ self.w1 + self.b1) @ self.w2


def _ddp_worker(rank: int, init: str, steps: int, results) -> None:
    torch.set_num_threads(1)
    torch.distributed.init_process_group(
        "gloo",
        init_method=f"file://{init}",
        rank=rank,
        world_size=3,
        timeout=datetime.timedelta(seconds=120),
    )
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(_Mlp())
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    batch = _batch(64)
    sizes = [22, 21, 21]
    start_row = sum(sizes[:rank])
    x = batch["img"][start_row : start_row + sizes[rank]]
    y = batch["label"][start_row : start_row + sizes[rank]]
    times = []
    for index in range(WARMUP + steps):
        start = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if index >= WARMUP:
            times.append((time.perf_counter() - start) * 1000)
    if rank == 0:
        results.put(times)
    torch.distributed.barrier()
    torch.distributed.destroy_process_group()


def ddp_steps(steps: int, folder: str) -> list[float]:
    """Per-step milliseconds of DDP on three Gloo processes (the first process's)."""
    context = mp.get_context("spawn")
    results = context.Queue()
    init = os.path.join(folder, "ddp-rendezvous")
    processes = [
        context.Process(target=_ddp_worker, args=(rank, init, steps, results)) for rank in range(3)
    ]
    for process in processes:
        process.start()
    times = results.get(timeout=600)
    for process in processes:
        process.join(timeout=60)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as folder:
        ours = shapescript_steps(args.steps, folder)
        theirs = ddp_steps(args.steps, folder)
    ours_median, theirs_median = statistics.median(ours), statistics.median(theirs)
    ratio = ours_median / theirs_median
    result = {
        **environment(),
        "steps": args.steps,
        "shapescript_median_ms": round(ours_median, 3),
        "ddp_median_ms": round(theirs_median, 3),
        "ratio": round(ratio, 3),
        "budget_ratio": BUDGET,
        "pass": ratio <= BUDGET,
    }
    path = write_results("several_devices", result)
    verdict = "PASS" if ratio <= BUDGET else "FAIL"
    print(
        f"cpu[0 1 2] step: ShapeScript {ours_median:.2f} ms, DDP {theirs_median:.2f} ms, "
        f"ratio {ratio:.2f} (budget {BUDGET:.1f}: {verdict})  -> {path}"
    )


if __name__ == "__main__":
    main()
