"""A step of the README example on three CPU workers against PyTorch's DDP doing the same.

    python -m benchmarks.several_devices [--steps N] [--rounds R]

ShapeScript's side compiles examples/train_mlp.ss with `devices cpu[0 1 2]` and a loop over
a `TensorDataset`'s batches of 64 in ShapeScript, as the README's `run` does, calling
`train_step` (each batch split 22/21/21, each worker gathering its part from its own copy
of the dataset, Gloo all-reduces), in Eval mode; a sink timestamps each step's logs. It also
times `train_step` called from Python with a batch of 64 tensors (`python_call_median_ms`),
which the workers receive through the pipes. The other side is three processes of
`torch.nn.parallel.DistributedDataParallel` on a Gloo process group, each with its own
third of the batch on hand, doing the same forward, `backward`, `clip_grad_norm_(1.0)` and
AdamW step, and the same logs: the README's step logs the whole batch's mean loss, so DDP
all-reduces each process's loss, weighed by its share, as a DDP user who logs it does. The
ratio to DDP logging only the first process's own loss, one all-reduce fewer, is printed
too (`ratio_local_loss`). The sides alternate in blocks of steps (`--rounds` blocks), all
kept running between them; each side's figure is the median of per-step wall times (after
warm-up steps); the budget is a ratio of medians, ShapeScript's loop / DDP, of at most 1.0.
Results go to benchmarks/results/several_devices.json. On this machine's shared cores both
sides are noisy: compare ratios from the same run only.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
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


#: The benchmark's loop: the README's `run` without its checkpoints and shuffles.
LOOP = """
fn steps(mut m: Mlp, mut opt: AdamW[Mlp], train: Dataset[Digit], sink: LogSink, mode: Mode):
    for batch in train |> batches(64):
        sink.write(train_step(mut m, mut opt, batch, mode))
"""


class _Clock:
    """A sink that notes when each step's logs arrive."""

    def __init__(self) -> None:
        self.times: list[float] = []

    def write(self, record: dict) -> None:
        self.times.append(time.perf_counter())

    def flush(self) -> None:
        pass


class ShapeScriptSide:
    """The compiled train_step on cpu[0 1 2], its workers started by warm-up steps."""

    def __init__(self, folder: str) -> None:
        from torch.utils.data import TensorDataset

        import shapescript

        text = README.read_text(encoding="utf-8").replace(
            "## Pixels in one", "devices cpu[0 1 2]\n\n## Pixels in one", 1
        )
        text += LOOP
        path = os.path.join(folder, "train_mlp.ss")
        Path(path).write_text(text, encoding="utf-8")
        self.shapescript = shapescript
        self.module = shapescript.compile(text, path)
        self.m = self.module.Mlp.init(seed=0)
        self.opt = shapescript.rt.optimizers.adamw(self.m, lr=3e-4)
        self.batch = _batch(64)
        self.datasets: dict[int, TensorDataset] = {}
        self.make_dataset = lambda count: TensorDataset(*_batch(64 * count, seed=1).values())
        self.steps(WARMUP)
        self.python_steps(WARMUP)

    def steps(self, count: int) -> list[float]:
        """Per-step milliseconds of `count` steps of a loop over a dataset's batches."""
        dataset = self.datasets.get(count)
        if dataset is None:
            dataset = self.datasets[count] = self.make_dataset(count)
        clock = _Clock()
        start = time.perf_counter()
        self.module.steps(self.m, self.opt, dataset, clock, self.shapescript.Eval)
        times = [start, *clock.times]
        return [(after - before) * 1000 for before, after in itertools.pairwise(times)]

    def python_steps(self, count: int) -> list[float]:
        """Per-step milliseconds of `count` calls of train_step from Python."""
        times = []
        for _ in range(count):
            start = time.perf_counter()
            self.module.train_step(self.m, self.opt, self.batch, self.shapescript.Eval)
            times.append((time.perf_counter() - start) * 1000)
        return times

    def close(self) -> None:
        self.module._ss_program.stop()


class _Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.randn(784, 256) * 0.02)
        self.b1 = torch.nn.Parameter(torch.zeros(256))
        self.w2 = torch.nn.Parameter(torch.rand(256, 10) * 0.2 - 0.1)
        self.register_buffer("mean", torch.zeros(784))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu((x - self.mean) @ self.w1 + self.b1) @ self.w2


def _ddp_worker(rank: int, init: str, orders, results) -> None:
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
    while True:
        order = orders.get()
        if order is None:
            break
        count, whole_loss = order
        times = []
        for _ in range(count):
            start = time.perf_counter()
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            if whole_loss:
                logged = loss.detach() * (sizes[rank] / 64)
                torch.distributed.all_reduce(logged)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            times.append((time.perf_counter() - start) * 1000)
        results.put((rank, times))
    torch.distributed.destroy_process_group()


class DdpSide:
    """Three DDP processes on Gloo, each running steps when told to."""

    def __init__(self, folder: str) -> None:
        context = mp.get_context("spawn")
        self.results = context.Queue()
        self.orders = [context.Queue() for _ in range(3)]
        init = os.path.join(folder, "ddp-rendezvous")
        self.processes = [
            context.Process(target=_ddp_worker, args=(rank, init, self.orders[rank], self.results))
            for rank in range(3)
        ]
        for process in self.processes:
            process.start()
        self.steps(WARMUP)

    def steps(self, count: int, whole_loss: bool = True) -> list[float]:
        """Per-step milliseconds of `count` steps (the first process's); with `whole_loss`,
        each step logs the whole batch's loss, as the README's does."""
        for orders in self.orders:
            orders.put((count, whole_loss))
        found = dict(self.results.get(timeout=600) for _ in range(3))
        return found[0]

    def close(self) -> None:
        for orders in self.orders:
            orders.put(None)
        for process in self.processes:
            process.join(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(1)
    ours: list[float] = []
    called: list[float] = []
    theirs: list[float] = []
    theirs_local: list[float] = []
    block = max(1, args.steps // args.rounds)
    with tempfile.TemporaryDirectory() as folder:
        compiled, ddp = ShapeScriptSide(folder), DdpSide(folder)
        try:
            # The two sides alternate block by block, so that the machine's other work
            # falls on both.
            for _ in range(args.rounds):
                ours += compiled.steps(block)
                theirs += ddp.steps(block)
                theirs_local += ddp.steps(block, whole_loss=False)
                called += compiled.python_steps(block)
        finally:
            compiled.close()
            ddp.close()
    ours_median, theirs_median = statistics.median(ours), statistics.median(theirs)
    ratio = ours_median / theirs_median
    local_median = statistics.median(theirs_local)
    result = {
        **environment(),
        "steps": len(ours),
        "rounds": args.rounds,
        "shapescript_median_ms": round(ours_median, 3),
        "ddp_median_ms": round(theirs_median, 3),
        "ddp_local_loss_median_ms": round(local_median, 3),
        "python_call_median_ms": round(statistics.median(called), 3),
        "ratio": round(ratio, 3),
        "ratio_local_loss": round(ours_median / local_median, 3),
        "budget_ratio": BUDGET,
        "pass": ratio <= BUDGET,
    }
    path = write_results("several_devices", result)
    verdict = "PASS" if ratio <= BUDGET else "FAIL"
    print(
        f"cpu[0 1 2] step: ShapeScript {ours_median:.2f} ms, DDP {theirs_median:.2f} ms, "
        f"ratio {ratio:.2f} (budget {BUDGET:.1f}: {verdict}); to DDP logging one process's "
        f"loss ({local_median:.2f} ms) {ours_median / local_median:.2f}; train_step called from "
        f"Python {statistics.median(called):.2f} ms  -> {path}"
    )


if __name__ == "__main__":
    main()
