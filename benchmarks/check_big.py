"""How fast `shapescript check` reads a big file: seconds and peak memory per MB of source.

Generates a valid program of about `--megabytes` MB (1 by default) with
`benchmarks/generate.py`, then runs `python -m shapescript check FILE` on it as a new
process `--runs` times (5 by default), with this repository's sources first on
PYTHONPATH. For each run it records the wall-clock time, the CPU time (user + system)
and the peak resident memory of that process, and prints their medians per MB of
source, against the budgets: 2 s per MB and 200 MB per MB.

The sources are compiled to bytecode first, in a throwaway cache (PYTHONPYCACHEPREFIX)
by one untimed run, as an installed package's are: without that, a tree checked out
with PYTHONDONTWRITEBYTECODE set recompiles the whole checker in every timed run, about
0.2 s that a user's `shapescript check` never spends.

    python -m benchmarks.check_big [--runs 5] [--megabytes 1] [--seed 0]

The figures go to `benchmarks/results/check_big.json`. Wall time depends on what else
the machine is doing; CPU time less so. The exit status is 0 whether or not a budget
is met.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import environment, write_results
from benchmarks.generate import generate_program

SECONDS_PER_MB_BUDGET = 2.0
PEAK_MB_PER_MB_BUDGET = 200.0
ROOT = Path(__file__).resolve().parents[1]


def program_of_size(megabytes: float, seed: int) -> str:
    """A generated program of about `megabytes` MB (the generator counts lines)."""
    sample = generate_program(2400, seed)
    lines = int(2400 * megabytes * 1_000_000 / len(sample.encode("utf-8")))
    return generate_program(lines, seed)


def check_environment(cache: Path) -> dict[str, str]:
    """The environment of a timed check: this repository's sources, bytecode kept in `cache`."""
    environment_ = dict(
        os.environ, PYTHONPATH=str(ROOT / "compiler"), PYTHONPYCACHEPREFIX=str(cache)
    )
    environment_.pop("PYTHONDONTWRITEBYTECODE", None)
    return environment_


def run_once(path: Path, environment_: dict[str, str]) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds, peak resident MB and exit status of one check."""
    command = [sys.executable, "-m", "shapescript", "check", str(path)]
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment_
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, process.returncode


def measure(runs: int, megabytes: float, seed: int) -> dict[str, Any]:
    text = program_of_size(megabytes, seed)
    size_mb = len(text.encode("utf-8")) / 1_000_000
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.ss"
        path.write_text(text, encoding="utf-8")
        environment_ = check_environment(Path(folder) / "bytecode")
        run_once(path, environment_)
        samples = [run_once(path, environment_) for _ in range(runs)]
    walls, cpus, peaks, statuses = zip(*samples, strict=True)
    wall_per_mb = statistics.median(walls) / size_mb
    cpu_per_mb = statistics.median(cpus) / size_mb
    peak_per_mb = statistics.median(peaks) / size_mb
    return {
        "benchmark": "check_big",
        "environment": environment(),
        "source_mb": round(size_mb, 3),
        "lines": text.count("\n"),
        "runs": runs,
        "exit_statuses": sorted(set(statuses)),
        "median_wall_s": round(statistics.median(walls), 3),
        "median_cpu_s": round(statistics.median(cpus), 3),
        "median_peak_mb": round(statistics.median(peaks), 1),
        "wall_s_per_mb": round(wall_per_mb, 3),
        "cpu_s_per_mb": round(cpu_per_mb, 3),
        "peak_mb_per_mb": round(peak_per_mb, 1),
        "budget_s_per_mb": SECONDS_PER_MB_BUDGET,
        "budget_peak_mb_per_mb": PEAK_MB_PER_MB_BUDGET,
        "pass_time": wall_per_mb <= SECONDS_PER_MB_BUDGET,
        "pass_memory": peak_per_mb <= PEAK_MB_PER_MB_BUDGET,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--megabytes", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    result = measure(args.runs, args.megabytes, args.seed)
    print(
        f"check of a {result['source_mb']} MB program ({result['lines']} lines), "
        f"median of {result['runs']} runs, exit {result['exit_statuses']}:"
    )
    print(
        f"  wall {result['wall_s_per_mb']:.2f} s/MB (budget {SECONDS_PER_MB_BUDGET:.0f}): "
        f"{'PASS' if result['pass_time'] else 'FAIL'}   cpu {result['cpu_s_per_mb']:.2f} s/MB"
    )
    print(
        f"  peak {result['peak_mb_per_mb']:.0f} MB per MB "
        f"(budget {PEAK_MB_PER_MB_BUDGET:.0f}): {'PASS' if result['pass_memory'] else 'FAIL'}"
    )
    print(f"  written to {write_results('check_big', result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
