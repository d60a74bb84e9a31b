"""How long lexing and parsing a 2,400-line ShapeScript file takes.

The program comes from `benchmarks.generate`, so every run parses the same
text. One warm-up parse, then `--runs` timed parses; the median is held to the
budget below. The figures are printed and written to
`benchmarks/results/parse.json`. The exit status is 0 whether or not the
budget is met, so the benchmark can run in CI without failing it; it is
nonzero only when the parser can't be imported or the options are wrong.

    python -m benchmarks.parse [--runs 30] [--lines 2400] [--seed 0] [--output PATH]
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import percentile
from benchmarks.generate import generate_program

BUDGET_MS = 60.0
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "parse.json"


def time_parse(text: str, runs: int) -> tuple[list[float], int]:
    """Milliseconds for each of `runs` parses after one warm-up, and the diagnostics' count."""
    from shapescript.syntax.parser import parse
    from shapescript.syntax.source import SourceFile

    warm = parse(SourceFile.from_text("bench.ss", text))
    diagnostics = len(warm.diagnostics)
    gc.collect()
    samples: list[float] = []
    for _ in range(runs):
        source = SourceFile.from_text("bench.ss", text)
        start = time.perf_counter_ns()
        parse(source)
        samples.append((time.perf_counter_ns() - start) / 1e6)
    return samples, diagnostics


def summarize(
    samples: list[float], diagnostics: int, lines: int, chars: int, seed: int
) -> dict[str, Any]:
    median = statistics.median(samples)
    seconds = max(median, 1e-6) / 1000.0
    return {
        "benchmark": "parse",
        "what": "shapescript.syntax.parser.parse of a generated program (lexing and parsing)",
        "lines": lines,
        "chars": chars,
        "seed": seed,
        "runs": len(samples),
        "median_ms": round(median, 3),
        "p95_ms": round(percentile(samples, 0.95), 3),
        "min_ms": round(min(samples), 3),
        "lines_per_s": round(lines / seconds),
        "diagnostics": diagnostics,
        "budget_median_ms": BUDGET_MS,
        "pass": median <= BUDGET_MS,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "machine": {"cpu_count": os.cpu_count(), "arch": platform.machine()},
    }


def report(result: dict[str, Any]) -> str:
    verdict = "PASS" if result["pass"] else "FAIL"
    return "\n".join(
        [
            f"parse: {result['lines']} lines, {result['chars']} characters, "
            f"{result['runs']} runs after one warm-up",
            f"  median   {result['median_ms']:8.2f} ms",
            f"  p95      {result['p95_ms']:8.2f} ms",
            f"  min      {result['min_ms']:8.2f} ms",
            f"  speed    {result['lines_per_s']:>8} lines/s",
            f"  diagnostics: {result['diagnostics']} (a clean program has 0)",
            f"  budget: median <= {BUDGET_MS:.0f} ms: {verdict}",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.parse",
        description="Time lexing and parsing of a generated ShapeScript program.",
    )
    parser.add_argument("--runs", type=int, default=30, help="timed parses (default 30)")
    parser.add_argument("--lines", type=int, default=2400, help="program length (default 2400)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="JSON results file")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    text = generate_program(args.lines, args.seed)
    lines = text.count("\n")
    try:
        samples, diagnostics = time_parse(text, args.runs)
    except ImportError as error:
        print(f"parse: can't import the parser ({error}); nothing was timed", file=sys.stderr)
        return 2

    result = summarize(samples, diagnostics, lines, len(text), args.seed)
    print(report(result))
    from shapescript import atomic_write

    args.output.parent.mkdir(parents=True, exist_ok=True)
    atomic_write.write_text(args.output, json.dumps(result, indent=2) + "\n")
    print(f"  written to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
