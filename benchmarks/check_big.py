"""How fast `shapescript check` and `shapescript build` read big files: seconds and peak
memory.

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

Two more measures, each a median of `--runs` new processes in the same way:

- `build_1mb`: `python -m shapescript build FILE -o OUT` of the same 1 MB program, its
  wall seconds (budget 5 s) and peak resident memory (budget 500 MB);
- `check_small_functions`: `shapescript check` of a 1 MB program of many small functions
  (`benchmarks/small_functions.py`), its peak resident memory per MB of source (budget
  150 MB per MB).

    python -m benchmarks.check_big [--runs 5] [--megabytes 1] [--seed 0]
                                   [--only check|build|small]

The figures go to `benchmarks/results/check_big.json`, `build_1mb.json` and
`check_small_functions.json`. Wall time depends on what else
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
from benchmarks.small_functions import small_functions_program

SECONDS_PER_MB_BUDGET = 2.0
PEAK_MB_PER_MB_BUDGET = 200.0
BUILD_SECONDS_BUDGET = 5.0
BUILD_PEAK_MB_BUDGET = 500.0
SMALL_FUNCTIONS_PEAK_MB_PER_MB_BUDGET = 150.0
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


def run_once(
    path: Path, environment_: dict[str, str], *arguments: str, command: str = "check"
) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds, peak resident MB and exit status of one `command`."""
    command_line = [sys.executable, "-m", "shapescript", command, str(path), *arguments]
    start = time.perf_counter()
    process = subprocess.Popen(
        command_line, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment_
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


def timed_runs(
    text: str, runs: int, command: str, *arguments: str
) -> tuple[list[float], list[float], list[float], list[int]]:
    """`runs` timed processes of `shapescript COMMAND FILE ARGUMENTS` on `text`, after one
    untimed run that compiles the sources' bytecode. `{out}` in an argument is a path in
    the run's folder."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.ss"
        path.write_text(text, encoding="utf-8")
        filled = [argument.format(out=Path(folder) / "out.py") for argument in arguments]
        environment_ = check_environment(Path(folder) / "bytecode")
        run_once(path, environment_, *filled, command=command)
        samples = [run_once(path, environment_, *filled, command=command) for _ in range(runs)]
    walls, cpus, peaks, statuses = zip(*samples, strict=True)
    return list(walls), list(cpus), list(peaks), list(statuses)


def measure_build(runs: int, megabytes: float, seed: int) -> dict[str, Any]:
    """`shapescript build` of the generated program: wall seconds and peak MB."""
    text = program_of_size(megabytes, seed)
    walls, cpus, peaks, statuses = timed_runs(text, runs, "build", "-o", "{out}")
    wall, peak = statistics.median(walls), statistics.median(peaks)
    return {
        "benchmark": "build_1mb",
        "environment": environment(),
        "source_mb": round(len(text.encode("utf-8")) / 1_000_000, 3),
        "lines": text.count("\n"),
        "runs": runs,
        "exit_statuses": sorted(set(statuses)),
        "median_wall_s": round(wall, 3),
        "median_cpu_s": round(statistics.median(cpus), 3),
        "median_peak_mb": round(peak, 1),
        "budget_wall_s": BUILD_SECONDS_BUDGET,
        "budget_peak_mb": BUILD_PEAK_MB_BUDGET,
        "pass_time": wall <= BUILD_SECONDS_BUDGET,
        "pass_memory": peak <= BUILD_PEAK_MB_BUDGET,
    }


def measure_small_functions(runs: int, megabytes: float, seed: int) -> dict[str, Any]:
    """`shapescript check` of a program of many small functions: peak MB per MB."""
    text = small_functions_program(int(megabytes * 1_000_000), seed)
    size_mb = len(text.encode("utf-8")) / 1_000_000
    walls, cpus, peaks, statuses = timed_runs(text, runs, "check")
    peak_per_mb = statistics.median(peaks) / size_mb
    return {
        "benchmark": "check_small_functions",
        "environment": environment(),
        "source_mb": round(size_mb, 3),
        "functions": text.count("\nfn "),
        "runs": runs,
        "exit_statuses": sorted(set(statuses)),
        "median_wall_s": round(statistics.median(walls), 3),
        "median_cpu_s": round(statistics.median(cpus), 3),
        "median_peak_mb": round(statistics.median(peaks), 1),
        "peak_mb_per_mb": round(peak_per_mb, 1),
        "budget_peak_mb_per_mb": SMALL_FUNCTIONS_PEAK_MB_PER_MB_BUDGET,
        "pass_memory": peak_per_mb <= SMALL_FUNCTIONS_PEAK_MB_PER_MB_BUDGET,
    }


def verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def report_check(result: dict[str, Any]) -> None:
    print(
        f"check of a {result['source_mb']} MB program ({result['lines']} lines), "
        f"median of {result['runs']} runs, exit {result['exit_statuses']}:"
    )
    print(
        f"  wall {result['wall_s_per_mb']:.2f} s/MB (budget {SECONDS_PER_MB_BUDGET:.0f}): "
        f"{verdict(result['pass_time'])}   cpu {result['cpu_s_per_mb']:.2f} s/MB"
    )
    print(
        f"  peak {result['peak_mb_per_mb']:.0f} MB per MB "
        f"(budget {PEAK_MB_PER_MB_BUDGET:.0f}): {verdict(result['pass_memory'])}"
    )
    print(f"  written to {write_results('check_big', result)}")


def report_build(result: dict[str, Any]) -> None:
    print(
        f"build_1mb: build of a {result['source_mb']} MB program, median of "
        f"{result['runs']} runs, exit {result['exit_statuses']}:"
    )
    print(
        f"  wall {result['median_wall_s']:.2f} s (budget {BUILD_SECONDS_BUDGET:.0f}): "
        f"{verdict(result['pass_time'])}   cpu {result['median_cpu_s']:.2f} s"
    )
    print(
        f"  peak {result['median_peak_mb']:.0f} MB (budget {BUILD_PEAK_MB_BUDGET:.0f}): "
        f"{verdict(result['pass_memory'])}"
    )
    print(f"  written to {write_results('build_1mb', result)}")


def report_small_functions(result: dict[str, Any]) -> None:
    print(
        f"check_small_functions: check of a {result['source_mb']} MB program of "
        f"{result['functions']} functions, median of {result['runs']} runs, "
        f"exit {result['exit_statuses']}:"
    )
    print(
        f"  peak {result['peak_mb_per_mb']:.0f} MB per MB (budget "
        f"{SMALL_FUNCTIONS_PEAK_MB_PER_MB_BUDGET:.0f}): {verdict(result['pass_memory'])}   "
        f"wall {result['median_wall_s']:.2f} s   cpu {result['median_cpu_s']:.2f} s"
    )
    print(f"  written to {write_results('check_small_functions', result)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--megabytes", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--only", choices=("check", "build", "small"), help="run one of the three measures"
    )
    args = parser.parse_args(argv)
    if args.only in (None, "check"):
        report_check(measure(args.runs, args.megabytes, args.seed))
    if args.only in (None, "build"):
        report_build(measure_build(args.runs, args.megabytes, args.seed))
    if args.only in (None, "small"):
        report_small_functions(measure_small_functions(args.runs, args.megabytes, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
