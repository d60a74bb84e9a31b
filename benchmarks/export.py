"""What exporting costs, and what the exported program costs against the compiled function.

    python -m benchmarks.export [--calls N] [--rounds R] [--sizes B,N ...]

For causal attention (D=64, H=4), a small loop program, and examples/gpt2.ss's forward
with its model baked into the program (seed 0 on both sides):

- the time `shapescript.export` takes (checking, building, tracing), one export each;
- the exported program (`torch.export.load(...).module()`) / the compiled function
  (`shapescript.compile`), on the same inputs, as a ratio of medians, for each (b, n).

Each ratio is the median of `rounds` rounds of `calls` calls back to back, the two sides
interleaved round by round so that noise from other work on the machine falls on both.
There is no budget: the figures are recorded in benchmarks/results/export.json.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import tempfile
import time
from pathlib import Path

import torch

import shapescript
from benchmarks.common import environment, write_results
from shapescript.rt import devices as rt_devices

ATTENTION = """\
dim D = 64
dim H = 4
dim Dh = D / H

export fn attention(x: [b n D], w_qkv: [D 3*D], w_o: [D D]) -> [b n D]:
    q, k, v = x @ w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(w_o)
"""

LOOP = """\
dim D = 64

export fn mix(x: [b n D], w: [D D]) -> [b n D]:
    y = x
    for i in 0..4:
        y = y @ w |> tanh
    return y + x
"""


def attention_inputs(b: int, n: int) -> tuple[torch.Tensor, ...]:
    return (torch.randn(b, n, 64), torch.randn(64, 192) / 8, torch.randn(64, 64) / 8)


def loop_inputs(b: int, n: int) -> tuple[torch.Tensor, ...]:
    return (torch.randn(b, n, 64), torch.randn(64, 64) / 8)


GPT2 = (Path(__file__).resolve().parents[1] / "examples" / "gpt2.ss").read_text(encoding="utf-8")


def gpt2_inputs(b: int, n: int) -> tuple[torch.Tensor, ...]:
    return (torch.randint(0, 256, (b, n)), torch.arange(n).repeat(b, 1))


#: (label, source, function, inputs, the model its first parameter takes, or None).
CASES = [
    ("attention", ATTENTION, "attention", attention_inputs, None),
    ("loop", LOOP, "mix", loop_inputs, None),
    ("gpt2", GPT2, "forward", gpt2_inputs, "Gpt2"),
]


def timed(function, inputs, calls: int) -> float:
    """Seconds per call, over `calls` calls back to back."""
    start = time.perf_counter()
    for _ in range(calls):
        function(*inputs)
    return (time.perf_counter() - start) / calls


def ratio(exported, compiled, inputs, calls: int, rounds: int) -> dict:
    ours, theirs = [], []
    with torch.inference_mode():
        for function in (exported, compiled):
            function(*inputs)
        for _ in range(rounds):
            ours.append(timed(exported, inputs, calls))
            theirs.append(timed(compiled, inputs, calls))
    exported_us = statistics.median(ours) * 1e6
    compiled_us = statistics.median(theirs) * 1e6
    return {
        "exported_us": round(exported_us, 2),
        "compiled_us": round(compiled_us, 2),
        "ratio": round(exported_us / compiled_us, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--sizes", nargs="*", default=["1,1", "2,16", "8,64"], help="b,n pairs to time"
    )
    args = parser.parse_args(argv)
    sizes = [tuple(int(part) for part in size.split(",")) for size in args.sizes]
    torch.manual_seed(0)
    results: dict = {"environment": environment(), "cases": {}}
    with tempfile.TemporaryDirectory() as folder:
        for label, text, name, make_inputs, model in CASES:
            path = Path(folder) / f"{label}.ss"
            path.write_text(text, encoding="utf-8")
            start = time.perf_counter()
            output = str(Path(folder) / f"{label}.pt2")
            program = shapescript.export(str(path), fn=name, output=output)
            export_s = time.perf_counter() - start
            exported = torch.export.load(output).module()
            del program
            rt_devices._reset_for_tests()
            module = shapescript.compile(text, str(path), devices="cpu")
            compiled = getattr(module, name)
            if model is not None:
                compiled = functools.partial(compiled, getattr(module, model).init(seed=0))
            case = {"export_s": round(export_s, 2), "sizes": {}}
            print(f"{label}: export took {export_s:.2f} s")
            for b, n in sizes:
                figures = ratio(exported, compiled, make_inputs(b, n), args.calls, args.rounds)
                case["sizes"][f"{b},{n}"] = figures
                print(
                    f"  b={b:<3} n={n:<4} exported {figures['exported_us']:9.1f} µs   "
                    f"compiled {figures['compiled_us']:9.1f} µs   ratio {figures['ratio']:.3f}"
                )
            results["cases"][label] = case
    path = write_results("export", results)
    print(f"results: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
