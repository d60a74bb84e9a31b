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

    python -m benchmarks.several_devices --hosts [--steps N] [--rounds R]

is the two-host row: two launches on the loopback (127.0.0.1), each running the program
with `devices cpu[0 1]` (four workers in one group, batches of 64 split 16 each), started as
torchrun starts a host's process (the env:// variables), against DDP on four Gloo processes
launched with torchrun the same way (`--nnodes 2 --nproc-per-node 2`). Each round starts
both sides afresh, one after the other, the side going first changing every round
(`--rounds`, 4 unless given); a side's figure is the median of host 0's per-step wall times
after warm-up steps. Every process of both sides runs torch in one thread
(OMP_NUM_THREADS=1, as torchrun sets it for DDP, and torch.set_num_threads(1)); ShapeScript's
loop posts each step before reading the step before's answer (docs/several-devices.md).
Both sides' steps are timed from the end of the step before, so that
both include taking the step's rows from the same dataset (each DDP process slicing its
rows, each ShapeScript worker gathering its own); DDP's step alone, the batch on hand
(what the first version of this row timed), is given too (`ratio_to_step_alone`). Results
go to benchmarks/results/several_devices_hosts.json.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _host_side(rank: int, steps: int, out: str) -> None:
    """One host of ShapeScript's two: the loop on cpu[0 1], host 0 noting its step times."""
    from torch.utils.data import TensorDataset

    import shapescript
    from shapescript.atomic_write import write_text

    torch.set_num_threads(1)
    text = README.read_text(encoding="utf-8").replace(
        "## Pixels in one", "devices cpu[0 1]\n\n## Pixels in one", 1
    )
    text += LOOP
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, f"host{rank}.ss")
        Path(path).write_text(text, encoding="utf-8")
        module = shapescript.compile(text, path)
        m = module.Mlp.init(seed=0)
        opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
        dataset = TensorDataset(*_batch(64 * (WARMUP + steps), seed=1).values())
        clock = _Clock()  # written on host 0 alone, as every sink on several hosts
        start = time.perf_counter()
        module.steps(m, opt, dataset, clock, shapescript.Eval)
        module._ss_program.stop()
    times = [start, *clock.times]
    if rank == 0:
        ms = [(after - before) * 1000 for before, after in itertools.pairwise(times)]
        write_text(out, json.dumps(ms[WARMUP:]))


def _ddp_host_side(steps: int, out: str) -> None:
    """One of DDP's four processes under torchrun (env://), rank 0 noting its step times:
    each step from the end of the last one, taking its rows of the batch from the same
    dataset as ShapeScript's hosts (as each of their workers does), and, apart, the step
    alone (forward to optimizer step, the batch on hand)."""
    from shapescript.atomic_write import write_text

    torch.set_num_threads(1)
    torch.distributed.init_process_group("gloo", timeout=datetime.timedelta(seconds=300))
    rank, world = torch.distributed.get_rank(), torch.distributed.get_world_size()
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(_Mlp())
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    data = _batch(64 * (WARMUP + steps), seed=1)
    share = 64 // world
    loop, alone = [], []
    last = time.perf_counter()
    for step in range(WARMUP + steps):
        rows = slice(step * 64 + rank * share, step * 64 + (rank + 1) * share)
        x, y = data["img"][rows], data["label"][rows]
        start = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        logged = loss.detach() / world
        torch.distributed.all_reduce(logged)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        end = time.perf_counter()
        alone.append((end - start) * 1000)
        loop.append((end - last) * 1000)
        last = end
    torch.distributed.destroy_process_group()
    if rank == 0:
        write_text(out, json.dumps({"loop": loop[WARMUP:], "alone": alone[WARMUP:]}))


def _run_pair(commands: list[list[str]], extra: list[dict[str, str]]) -> None:
    base = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    launched = [
        subprocess.Popen(command, env=base | more)
        for command, more in zip(commands, extra, strict=True)
    ]
    codes = [process.wait(timeout=900) for process in launched]
    if any(codes):
        raise SystemExit(f"a host failed: exit codes {codes}")


def hosts_main(steps: int, rounds: int) -> None:
    """The two-host row: ShapeScript on two loopback hosts against DDP under torchrun, the
    sides taking turns to go first, round after round."""
    ours: list[float] = []
    theirs: list[float] = []
    theirs_alone: list[float] = []
    me = [sys.executable, "-m", "benchmarks.several_devices"]
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "times.json")

        def ours_round() -> None:
            port = str(_free_port())
            # One thread per process on both sides: torchrun sets OMP_NUM_THREADS=1 for
            # DDP's processes, and every process of both sides sets torch's to 1 too.
            variables = [
                {"WORLD_SIZE": "2", "RANK": str(rank), "LOCAL_RANK": "0", "OMP_NUM_THREADS": "1"}
                | {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port}
                for rank in range(2)
            ]
            side = ["--host-side", str(steps), out]
            _run_pair([[*me, *side, str(rank)] for rank in range(2)], variables)
            ours.extend(json.loads(Path(out).read_text(encoding="utf-8")))

        def ddp_round() -> None:
            port = str(_free_port())
            torchrun = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "2"]
            torchrun += ["--nproc-per-node", "2", "--master-addr", "127.0.0.1"]
            torchrun += ["--master-port", port]
            ddp = ["--ddp-host-side", str(steps), out]
            program = ["-m", "benchmarks.several_devices", *ddp]
            commands = [[*torchrun, "--node-rank", str(rank), *program] for rank in range(2)]
            _run_pair(commands, [{}, {}])
            found = json.loads(Path(out).read_text(encoding="utf-8"))
            theirs.extend(found["loop"])
            theirs_alone.extend(found["alone"])

        for turn in range(rounds):
            for side in (ours_round, ddp_round) if turn % 2 == 0 else (ddp_round, ours_round):
                side()
    ours_median, theirs_median = statistics.median(ours), statistics.median(theirs)
    alone_median = statistics.median(theirs_alone)
    ratio = ours_median / theirs_median
    result = {
        **environment(),
        "hosts": 2,
        "devices_per_host": "cpu[0 1]",
        "steps": len(ours),
        "rounds": rounds,
        "shapescript_median_ms": round(ours_median, 3),
        "ddp_torchrun_median_ms": round(theirs_median, 3),
        "ddp_torchrun_step_alone_median_ms": round(alone_median, 3),
        "ratio": round(ratio, 3),
        "ratio_to_step_alone": round(ours_median / alone_median, 3),
        "budget_ratio": BUDGET,
        "pass": ratio <= BUDGET,
    }
    path = write_results("several_devices_hosts", result)
    verdict = "PASS" if ratio <= BUDGET else "FAIL"
    print(
        f"2 hosts x cpu[0 1] step: ShapeScript {ours_median:.2f} ms, DDP under torchrun "
        f"{theirs_median:.2f} ms, ratio {ratio:.2f} (budget {BUDGET:.1f}: {verdict}); to DDP's "
        f"step alone, without taking its rows ({alone_median:.2f} ms), "
        f"{ours_median / alone_median:.2f}  -> {path}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--hosts", action="store_true", help="the two-host row")
    parser.add_argument("--host-side", nargs=3, metavar=("STEPS", "OUT", "RANK"))
    parser.add_argument("--ddp-host-side", nargs=2, metavar=("STEPS", "OUT"))
    args = parser.parse_args()
    if args.host_side:
        steps, out, rank = args.host_side
        return _host_side(int(rank), int(steps), out)
    if args.ddp_host_side:
        steps, out = args.ddp_host_side
        return _ddp_host_side(int(steps), out)
    if args.hosts:
        return hosts_main(args.steps, args.rounds or 4)
    args.rounds = args.rounds or 10
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
