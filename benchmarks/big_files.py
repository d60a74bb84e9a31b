"""The language server on big documents, over stdio, as medians.

Measures `shapescript check` of a 1 MB program (seconds and peak memory per MB, as
`benchmarks.check_big` does, budgets 2 s and 200 MB); the first diagnostics of a 1 MB
document; the diagnostics after a keystroke
inside one function of it (budget 200 ms), with the server's CPU time for it, since a
loaded machine stretches the wall time, and the same keystrokes' analysis in this
process (the checker alone, as the server calls it: what the server adds is the rest);
and, while a 10 MB document is being analysed,
a hover on another small document opened then (budget 100 ms), how long `shutdown`
takes to be answered (100 ms) and how long the process takes to end after `exit`.
Results go to `benchmarks/results/big_files.json`.

    python -m benchmarks.big_files [--runs 10] [--open-runs 3] [--shutdown-runs 3]
                                   [--check-runs 5]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from benchmarks import check_big
from benchmarks.common import environment, figures, line, write_results
from benchmarks.generate import generate_program
from benchmarks.lsp_latency import Client, open_file, position

REPO = Path(__file__).resolve().parent.parent
MB = 1_000_000
BUDGETS = {"keystroke_1mb": 200.0, "shutdown_during_10mb": 100.0, "other_document": 100.0}
SMALL = "dim D = 4\nfn f(x: [n D]) -> [n D] = x\n"
#: How long after opening the 10 MB document `shutdown` is sent: its analysis is running.
SHUTDOWN_AFTER_S = 1.0
REPORTED = (
    "first_diagnostics_1mb",
    "keystroke_1mb",
    "keystroke_1mb_server_cpu",
    "keystroke_1mb_in_process",
    "other_document_hover_during_10mb",
    "shutdown_during_10mb",
    "exit_during_10mb",
)


def program_of_size(size: int) -> str:
    """A generated program of about `size` characters."""
    sample = generate_program(2400, 0)
    lines = int(size / (len(sample) / sample.count("\n")))
    return generate_program(lines, 0)


def typed_edit_point(text: str) -> int:
    """An offset after `= ` of a binding in a function with a declared return type, near
    the middle: editing there re-checks that function only."""
    middle = len(text) // 2
    for match in re.finditer(r"^fn [^\n]*->[^\n]*:\n", text[middle:], re.M):
        start = middle + match.end()
        equals = text.find(" = ", start, text.find("\n", start))
        if equals != -1:
            return equals + 3
    raise ValueError("no binding in a typed function to edit")


def first_diagnostics(text: str, folder: Path, runs: int) -> list[float]:
    uri = (folder / "big.ss").as_uri()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        client, _ = open_file(folder, uri, text)
        samples.append((time.perf_counter() - start) * 1000)
        client.close()
    return samples


def cpu_ms(pid: int) -> float | None:
    """The CPU time a process has used so far (Linux; 10 ms resolution), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def keystrokes(text: str, folder: Path, runs: int) -> tuple[list[float], list[float]]:
    """Diagnostics after each keystroke: wall time, and the server's CPU time for it (a
    loaded machine stretches the first, hardly the second)."""
    uri = (folder / "big.ss").as_uri()
    client, _ = open_file(folder, uri, text)
    at = typed_edit_point(text)
    current = text
    samples, cpu = [], []
    for run in range(runs):
        version = run + 2
        inserting = run % 2 == 0
        change = {
            "range": {
                "start": position(current, at),
                "end": position(current, at + (0 if inserting else 1)),
            },
            "text": "x" if inserting else "",
        }
        used = cpu_ms(client.process.pid)
        start = time.perf_counter()
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )
        client.wait_for(
            "textDocument/publishDiagnostics", lambda p, v=version: p.get("version") == v
        )
        samples.append((time.perf_counter() - start) * 1000)
        if used is not None:
            cpu.append(cpu_ms(client.process.pid) - used)
        current = (
            current[:at] + "x" + current[at:] if inserting else current[:at] + current[at + 1 :]
        )
    client.close()
    return samples, cpu


def in_process_keystrokes(text: str, runs: int) -> tuple[list[float], list[float]]:
    """The keystrokes of `keystrokes` analysed here, as the server analyses them: the
    wall time and this process's CPU time of each analysis."""
    from shapescript.check.checker import check_source
    from shapescript.syntax.source import SourceFile

    path = str(Path(tempfile.gettempdir()) / "big.ss")
    previous = check_source(SourceFile.from_text(path, text), padding_later=True)
    at = typed_edit_point(text)
    current = text
    samples, cpu = [], []
    for run in range(runs):
        inserting = run % 2 == 0
        current = (
            current[:at] + "x" + current[at:] if inserting else current[:at] + current[at + 1 :]
        )
        used = time.process_time()
        start = time.perf_counter()
        previous = check_source(SourceFile.from_text(path, current), previous, padding_later=True)
        samples.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    return samples, cpu


def shutdowns(text: str, folder: Path, runs: int) -> dict[str, list[float]]:
    """During a long analysis: a hover on another document answered (its first analysis
    included), `shutdown` answered, and the process gone after `exit`."""
    samples: dict[str, list[float]] = {"other": [], "answered": [], "exited": []}
    for _ in range(runs):
        client = Client([sys.executable, "-m", "shapescript_lsp"])
        client.request(
            "initialize",
            {
                "processId": None,
                "rootUri": folder.as_uri(),
                "capabilities": {},
                "initializationOptions": {"libraryDir": str(folder / "library")},
            },
        )
        client.notify("initialized", {})
        uri = (folder / "huge.ss").as_uri()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "shapescript", "version": 1, "text": text}},
        )
        time.sleep(SHUTDOWN_AFTER_S)
        small = (folder / "small.ss").as_uri()
        start = time.perf_counter()
        client.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": small,
                    "languageId": "shapescript",
                    "version": 1,
                    "text": SMALL,
                }
            },
        )
        client.request(
            "textDocument/hover",
            {"textDocument": {"uri": small}, "position": {"line": 1, "character": 26}},
        )
        samples["other"].append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        client.request("shutdown", {})
        samples["answered"].append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        client.notify("exit", {})
        client.process.wait(timeout=60)
        samples["exited"].append((time.perf_counter() - start) * 1000)
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.big_files", description=__doc__)
    parser.add_argument("--runs", type=int, default=10, help="keystrokes to time")
    parser.add_argument("--open-runs", type=int, default=3, help="servers opening 1 MB")
    parser.add_argument("--shutdown-runs", type=int, default=3, help="servers shut down")
    parser.add_argument("--check-runs", type=int, default=5, help="checks of 1 MB timed")
    args = parser.parse_args(argv)
    checked = check_big.measure(args.check_runs, 1.0, 0)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "compiler"), str(REPO / "server")],
        check=False,
        capture_output=True,
    )
    one = program_of_size(MB)
    ten = program_of_size(10 * MB)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        opened = first_diagnostics(one, folder, args.open_runs)
        typed, typed_cpu = keystrokes(one, folder, args.runs)
        here, here_cpu = in_process_keystrokes(one, args.runs)
        during = shutdowns(ten, folder, args.shutdown_runs)
    result = {
        "benchmark": "big_files",
        "sizes": {"one_mb": len(one), "ten_mb": len(ten)},
        "check_1mb": {
            key: checked[key]
            for key in (
                "source_mb",
                "runs",
                "exit_statuses",
                "wall_s_per_mb",
                "cpu_s_per_mb",
                "peak_mb_per_mb",
                "budget_s_per_mb",
                "budget_peak_mb_per_mb",
                "pass_time",
                "pass_memory",
            )
        },
        "first_diagnostics_1mb": figures(opened, float("inf")),
        "keystroke_1mb": figures(typed, BUDGETS["keystroke_1mb"]),
        "keystroke_1mb_server_cpu": figures(typed_cpu, BUDGETS["keystroke_1mb"])
        if typed_cpu
        else None,
        "keystroke_1mb_in_process": figures(here, None)
        | {"cpu_median_ms": round(median(here_cpu), 3)},
        "other_document_hover_during_10mb": figures(during["other"], BUDGETS["other_document"]),
        "shutdown_during_10mb": figures(during["answered"], BUDGETS["shutdown_during_10mb"]),
        "exit_during_10mb": figures(during["exited"], float("inf")),
    } | environment()
    print(f"big files: {len(one)} and {len(ten)} characters")
    check = result["check_1mb"]
    print(
        f"  check 1 MB ({check['runs']} runs, medians): "
        f"{check['wall_s_per_mb']:.2f} s/MB wall (budget 2: "
        f"{'PASS' if check['pass_time'] else 'FAIL'}), {check['cpu_s_per_mb']:.2f} s/MB CPU, "
        f"{check['peak_mb_per_mb']:.0f} MB peak per MB (budget 200: "
        f"{'PASS' if check['pass_memory'] else 'FAIL'})"
    )
    for name in REPORTED:
        if result[name] is not None:
            print(line(name.replace("_", " "), result[name]))
    print(f"  written to {write_results('big_files', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
