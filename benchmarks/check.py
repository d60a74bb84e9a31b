"""How long `shapescript check` takes as a new process, and a re-check after an edit.

- floor: `python -c pass`, the interpreter's own start, for comparison (no budget);
- small file: `shapescript check` of a 37-line example as a new process, interpreter
  start included (budget: 150 ms median);
- cold: `shapescript check` of the generated 2,400-line program as a new process
  (budget: 500 ms median);
- re-check: checking the 2,400-line file again after a one-character edit inside one
  function body, reusing the previous analysis, as the language server does (50 ms).

    python -m benchmarks.check [--runs 20] [--lines 2400] [--seed 0]

The package's bytecode is compiled first, as an installed package has it.

The figures are printed and written to `benchmarks/results/check.json`. The exit status
is 0 whether or not a budget is met.
"""

from __future__ import annotations

import argparse
import gc
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import environment, figures, line, write_results
from benchmarks.generate import generate_program

REPO = Path(__file__).resolve().parent.parent
SMALL_FILE = REPO / "examples" / "attention.ss"
SMALL_BUDGET_MS = 150.0
COLD_BUDGET_MS = 500.0
RECHECK_BUDGET_MS = 50.0


def check_command(path: Path) -> list[str]:
    """The installed `shapescript` script of this interpreter, else `python -m shapescript`.

    Not the first `shapescript` on PATH: a version manager's shim in front of it would
    add its own start to every run.
    """
    script = Path(sys.executable).with_name("shapescript")
    if script.is_file():
        return [str(script), "check", str(path)]
    return [sys.executable, "-m", "shapescript", "check", str(path)]


def _children_cpu_ms() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def time_process(command: list[str], runs: int) -> tuple[list[float], list[float], str]:
    """Wall times and CPU times (user + system) of `runs` fresh processes, after one untimed
    run, and the last output line. On a busy machine the CPU time is the steadier figure."""
    subprocess.run(command, capture_output=True, check=False)
    samples = []
    cpu = []
    output = ""
    for _ in range(runs):
        cpu_before = _children_cpu_ms()
        start = time.perf_counter_ns()
        completed = subprocess.run(command, capture_output=True, text=True, check=False)
        samples.append((time.perf_counter_ns() - start) / 1e6)
        cpu.append(_children_cpu_ms() - cpu_before)
        output = completed.stdout.strip().splitlines()[-1] if completed.stdout else ""
    return samples, cpu, output


def cpu_figure(samples: list[float]) -> dict[str, float]:
    return {"cpu_median_ms": round(statistics.median(samples), 3)}


def compile_bytecode() -> None:
    """Compile the packages' bytecode, as an installed package has it."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "compiler"), str(REPO / "server")],
        check=False,
        capture_output=True,
    )


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
    compile_bytecode()
    floor, floor_cpu, _ = time_process([sys.executable, "-c", "pass"], args.runs)
    small, small_cpu, small_summary = time_process(check_command(SMALL_FILE), args.runs)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.ss"
        path.write_text(text, encoding="utf-8")
        cold, cold_cpu, summary = time_process(check_command(path), args.runs)
    recheck = time_recheck(text, max(args.runs * 3, 30))
    result = {
        "benchmark": "check",
        "lines": text.count("\n"),
        "seed": args.seed,
        "python_c_pass": figures(floor, None) | cpu_figure(floor_cpu),
        "small_file_check": figures(small, SMALL_BUDGET_MS)
        | cpu_figure(small_cpu)
        | {"file": SMALL_FILE.name, "summary_line": small_summary},
        "cold_check": figures(cold, COLD_BUDGET_MS)
        | cpu_figure(cold_cpu)
        | {"summary_line": summary},
        "recheck_after_edit": figures(recheck, RECHECK_BUDGET_MS),
    } | environment()
    print(f"check: {result['lines']} lines ({summary}); small file: {SMALL_FILE.name}")
    print(line("`python -c pass` (floor)", result["python_c_pass"]))
    print(line("small file, new process", result["small_file_check"]))
    print(line("2,400 lines, new process", result["cold_check"]))
    print(line("re-check after an edit", result["recheck_after_edit"]))
    print(f"  written to {write_results('check', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
