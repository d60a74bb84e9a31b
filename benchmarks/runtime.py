"""What compiled ShapeScript costs at run time, as ratios of medians over many calls.

    python -m benchmarks.runtime [--calls N] [--rounds R]

- compiled without checks / hand-written torch: a small elementwise function, causal
  attention at b=2, n=16, D=64, and a two-layer MLP forward (budget: at most 1.02x);
- the argument checks: compiled with checks / without, per tensor argument, in µs
  (budget: at most 1 µs per tensor argument);
- importing a cached compiled module / importing the same code as a `.py` file, with
  torch already imported (budget: at most 1.5x).

Each figure is the median of `rounds` rounds, each timing `calls` calls back to back, with
the two sides interleaved round by round so that noise from other work on the machine
falls on both. Results go to benchmarks/results/runtime.json.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

import shapescript
from shapescript.rt import devices as rt_devices

RESULTS = Path(__file__).parent / "results" / "runtime.json"

SMALL = """\
fn scale_shift(x: [n]) -> [n] = x * 2.0 + 1.0
"""

ATTENTION = """\
dim D = 64
dim H = 4
dim Dh = D / H

fn attention(x: [b n D], w_qkv: [D 3*D], w_o: [D D]) -> [b n D]:
    q, k, v = x @ w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(w_o)
"""

MLP = """\
dim D = 784
dim Hd = 256
dim C = 10

fn mlp(x: [b D], w1: [D Hd], b1: [Hd], w2: [Hd C]) -> [b C]:
    return x @ w1 + b1 |> gelu |> matmul(w2)
"""


def scale_shift(x):
    return x * 2.0 + 1.0


def attention(x, w_qkv, w_o, heads=4, head_dim=16):
    b, n, _ = x.shape
    q, k, v = (x @ w_qkv).reshape(b, n, 3, heads, head_dim).permute(2, 0, 3, 1, 4).unbind(0)
    scores = torch.einsum("bhnd,bhmd->bhnm", q, k) / math.sqrt(head_dim)
    mask = torch.ones(n, n, dtype=torch.bool, device=x.device).tril()
    att = torch.softmax(scores.masked_fill(~mask, -math.inf), -1)
    out = torch.einsum("bhnm,bhmd->bhnd", att, v).permute(0, 2, 1, 3).reshape(b, n, -1)
    return torch.matmul(out, w_o)


def mlp(x, w1, b1, w2):
    return torch.matmul(torch.nn.functional.gelu(x @ w1 + b1), w2)


def _time(function, args, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        function(*args)
    return (time.perf_counter() - start) / calls


def paired(first, second, args, calls: int, rounds: int) -> tuple[float, float]:
    """Median seconds per call of each function: short batches, alternating, so that the
    machine's other work falls on both sides alike."""
    batch = max(1, calls // 20)
    a, b = [], []
    for function in (first, second):
        _time(function, args, batch)
    for _ in range(rounds * 20):
        a.append(_time(first, args, batch))
        b.append(_time(second, args, batch))
    return statistics.median(a), statistics.median(b)


def compiled(source: str, name: str, checks: str, value_checks: str = "never"):
    module = shapescript.compile(
        source, f"<bench {name}>", devices="cpu", checks=checks, value_checks=value_checks
    )
    return getattr(module, name)


def cases():
    torch.manual_seed(0)
    return [
        ("small elementwise", SMALL, "scale_shift", scale_shift, (torch.randn(16),)),
        (
            "attention b=2 n=16 D=64",
            ATTENTION,
            "attention",
            attention,
            (torch.randn(2, 16, 64), torch.randn(64, 192) * 0.1, torch.randn(64, 64) * 0.1),
        ),
        (
            "MLP b=32",
            MLP,
            "mlp",
            mlp,
            (
                torch.randn(32, 784),
                torch.randn(784, 256) * 0.05,
                torch.zeros(256),
                torch.randn(256, 10) * 0.05,
            ),
        ),
    ]


def import_ratio(rounds: int) -> dict:
    """Import of a cached compiled module / import of the same code as a .py file."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "bench_ss_model.ss").write_text(ATTENTION)
        from shapescript.analysis import check
        from shapescript.codegen import BuildOptions, generate
        from shapescript.syntax.source import SourceFile

        checked = check(SourceFile.from_text("bench_py_model.ss", ATTENTION))
        (root / "bench_py_model.py").write_text(
            generate(checked, BuildOptions(devices="cpu")).source
        )
        sys.path.insert(0, folder)
        shapescript.install()
        # Both sides are measured as cached: a .pyc for the .py, an .ssc for the .ss.
        writes = sys.dont_write_bytecode
        sys.dont_write_bytecode = False
        try:
            for name in ("bench_ss_model", "bench_py_model"):
                importlib.import_module(name)
            timings: dict[str, list[float]] = {"bench_ss_model": [], "bench_py_model": []}
            for _ in range(rounds):
                for name in timings:
                    sys.modules.pop(name, None)
                    importlib.invalidate_caches()
                    start = time.perf_counter()
                    importlib.import_module(name)
                    timings[name].append(time.perf_counter() - start)
        finally:
            sys.dont_write_bytecode = writes
            sys.path.remove(folder)
            for name in ("bench_ss_model", "bench_py_model"):
                sys.modules.pop(name, None)
    ss = statistics.median(timings["bench_ss_model"])
    py = statistics.median(timings["bench_py_model"])
    return {"ss_ms": ss * 1e3, "py_ms": py * 1e3, "ratio": ss / py, "budget": 1.5}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rt_devices._reset_for_tests()
    shapescript.devices("cpu")
    results: dict = {"calls": args.calls, "rounds": args.rounds, "speed": [], "checks": []}
    for label, source, name, hand, inputs in cases():
        unchecked = compiled(source, name, "never")
        checked = compiled(source, name, "always")
        ours, theirs = paired(unchecked, hand, inputs, args.calls, args.rounds)
        with_checks, without = paired(checked, unchecked, inputs, args.calls, args.rounds)
        per_tensor = (with_checks - without) / len(inputs) * 1e6
        results["speed"].append(
            {
                "case": label,
                "compiled_us": ours * 1e6,
                "hand_us": theirs * 1e6,
                "ratio": ours / theirs,
                "budget": 1.02,
            }
        )
        results["checks"].append(
            {"case": label, "tensors": len(inputs), "per_tensor_us": per_tensor, "budget_us": 1.0}
        )
        print(
            f"{label:26s} compiled/hand {ours / theirs:6.3f}x "
            f"({ours * 1e6:8.1f} vs {theirs * 1e6:8.1f} µs; budget 1.02x)   "
            f"checks {per_tensor:5.2f} µs per tensor (budget 1 µs)"
        )
    imports = import_ratio(max(args.rounds, 21))
    results["import"] = imports
    print(
        f"{'import, cached':26s} .ss/.py {imports['ratio']:6.3f}x "
        f"({imports['ss_ms']:.2f} vs {imports['py_ms']:.2f} ms; budget 1.5x)"
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
