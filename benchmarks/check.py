"""How long checking a 2,400-line ShapeScript file takes, cold and after an edit.

- cold: `shapescript check FILE` as a new process, interpreter start included
  (budget: 500 ms median);
- re-check: checking the file again after a one-character edit inside one function
  body, reusing the previous analysis, as the language server does (budget: 50 ms).

    python -m benchmarks.check [--runs 20] [--lines 2400] [--seed 0]

The figures are printed and written to `benchmarks/results/check.json`. The exit status
is 0 whether or not a budget is met.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import environment, figures, line, write_results
from benchmarks.generate import generate_program

COLD_BUDGET_MS = 500.0
RECHECK_BUDGET_MS = 50.0


def time_cold(path: Path, runs: int) -> tuple[list[float], str]:
    command = [shutil.which("shapescript") or "shapescript", "check", str(path)]
    subprocess.run(command, capture_output=True, check=False)
    samples = []
    output = ""
    for _ in range(runs):
        start = time.perf_counter_ns()
        completed = subprocess.run(command, capture_output=True, text=True, check=False)
        samples.append((time.perf_counter_ns() - start) / 1e6)
        output = completed.stdout.strip().splitlines()[-1] if completed.stdout else ""
    return samples, output


def edit_point(text: str) -> int:
    """An offset inside a function body near the middle of the file: after `= ` of a binding."""
    middle = len(text) // 2
    index = text.find("\n    ", middle)
    while index != -1:
        equals = text.find(" = ", index, text.find("\n", index + 1))
        if equals != -1:
            return equals + 3
        index = text.find("\n    ", index + 1)
    raise ValueError("no binding to edit")


def time_recheck(text: str, runs: int) -> list[float]:
    from shapescript.check.checker import check_source
    from shapescript.syntax.source import SourceFile

    at = edit_point(text)
    variants = [text, text[:at] + " " + text[at:]]
    previous = check_source(SourceFile.from_text("bench.ss", variants[0]))
    gc.collect()
    samples = []
    for run in range(runs):
        source = SourceFile.from_text("bench.ss", variants[(run + 1) % 2])
        start = time.perf_counter_ns()
        previous = check_source(source, previous)
        samples.append((time.perf_counter_ns() - start) / 1e6)
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.check", description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--lines", type=int, default=2400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    text = generate_program(args.lines, args.seed)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.ss"
        path.write_text(text, encoding="utf-8")
        cold, summary = time_cold(path, args.runs)
    recheck = time_recheck(text, max(args.runs * 3, 30))
    result = {
        "benchmark": "check",
        "lines": text.count("\n"),
        "seed": args.seed,
        "cold_check": figures(cold, COLD_BUDGET_MS) | {"summary_line": summary},
        "recheck_after_edit": figures(recheck, RECHECK_BUDGET_MS),
    } | environment()
    print(f"check: {result['lines']} lines ({summary})")
    print(line("cold `shapescript check`", result["cold_check"]))
    print(line("re-check after an edit", result["recheck_after_edit"]))
    print(f"  written to {write_results('check', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
