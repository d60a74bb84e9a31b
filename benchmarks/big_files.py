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
                                   [--check-runs 5] [--request-runs 5] [--open-timeout 600]
                                   [--requests-only | --in-process-only]
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
BUDGETS = {
    "keystroke_1mb": 200.0,
    "shutdown_during_10mb": 100.0,
    "other_document": 100.0,
    # Issue 30: a keystroke 300 ms, any request 500 ms and 1 GB on 10 MB; full tokens 200 ms
    # on 1 MB.
    "keystroke_10mb": 300.0,
    "hover_10mb": 500.0,
    "semantic_tokens_full_10mb": 500.0,
    "semantic_tokens_range_10mb": 500.0,
    "document_symbol_10mb": 500.0,
    "semantic_tokens_full_1mb": 200.0,
}
#: The server's peak resident memory with a 10 MB document open and edited, in MiB.
PEAK_BUDGET_MB = 1024.0
#: Lines either side of the edit that a range request asks for: about a screen.
SCREEN_LINES = 40
#: How long the benchmark waits for the first analysis of a 10 MB document, in seconds.
OPEN_10MB_TIMEOUT_S = 600.0
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
#: The figures of the requests on big documents that are printed (all are written).
REQUESTS_REPORTED = (
    "first_diagnostics_10mb",
    "keystroke_10mb",
    "keystroke_10mb_server_cpu",
    "hover_10mb",
    "hover_10mb_server_cpu",
    "semantic_tokens_full_10mb",
    "semantic_tokens_full_10mb_server_cpu",
    "semantic_tokens_range_10mb",
    "semantic_tokens_range_10mb_server_cpu",
    "document_symbol_10mb",
    "document_symbol_10mb_server_cpu",
    "semantic_tokens_full_1mb",
    "semantic_tokens_full_1mb_server_cpu",
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


def peak_mb(pid: int) -> float | None:
    """A process's peak resident memory so far in MiB (Linux), else None."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    return int(found.group(1)) / 1024 if found else None


def keystroke(client: Client, uri: str, current: str, at: int, version: int) -> tuple[str, float]:
    """Type or delete one `x` at `at` (by the version's parity) and wait for the version's
    diagnostics: the new text and the milliseconds they took."""
    inserting = version % 2 == 0
    change = {
        "range": {
            "start": position(current, at),
            "end": position(current, at + (0 if inserting else 1)),
        },
        "text": "x" if inserting else "",
    }
    start = time.perf_counter()
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
    )
    client.wait_for(
        "textDocument/publishDiagnostics", lambda p, v=version: p.get("version") == v, timeout=120
    )
    elapsed = (time.perf_counter() - start) * 1000
    return (
        current[:at] + "x" + current[at:] if inserting else current[:at] + current[at + 1 :]
    ), elapsed


def keystrokes(text: str, folder: Path, runs: int) -> tuple[list[float], list[float]]:
    """Diagnostics after each keystroke: wall time, and the server's CPU time for it (a
    loaded machine stretches the first, hardly the second)."""
    uri = (folder / "big.ss").as_uri()
    client, _ = open_file(folder, uri, text)
    at = typed_edit_point(text)
    current = text
    samples, cpu = [], []
    for run in range(runs):
        used = cpu_ms(client.process.pid)
        current, elapsed = keystroke(client, uri, current, at, run + 2)
        samples.append(elapsed)
        if used is not None:
            cpu.append(cpu_ms(client.process.pid) - used)
    client.close()
    return samples, cpu


def timed(client: Client, method: str, params: dict) -> tuple[float, float | None, dict]:
    """One request: its wall milliseconds, the server's CPU milliseconds and its answer."""
    used = cpu_ms(client.process.pid)
    start = time.perf_counter()
    answer = client.request(method, params, timeout=120)
    elapsed = (time.perf_counter() - start) * 1000
    assert "result" in answer, f"{method} answered {answer}"
    after = cpu_ms(client.process.pid)
    return elapsed, None if used is None or after is None else after - used, answer


def requests_on(
    text: str, folder: Path, runs: int, open_timeout: float = OPEN_10MB_TIMEOUT_S
) -> dict[str, list[float]]:
    """On a document of `text`: after each keystroke (as `keystrokes`) and its diagnostics,
    a hover over the edited binding's name, the semantic tokens of the whole file and of
    about a screen around the edit, and the outline; wall and server CPU milliseconds of
    each, the first analysis's, and the server's peak memory at the end."""
    uri = (folder / "huge.ss").as_uri()
    start = time.perf_counter()
    client, _ = open_file(folder, uri, text, timeout=open_timeout)
    samples: dict[str, list[float]] = {"first_diagnostics": [(time.perf_counter() - start) * 1000]}
    at = typed_edit_point(text)
    name_end = text.rindex(" = ", 0, at)
    current = text
    document = {"textDocument": {"uri": uri}}

    def add(name: str, elapsed: float, cpu: float | None) -> None:
        samples.setdefault(name, []).append(elapsed)
        if cpu is not None:
            samples.setdefault(f"{name}_server_cpu", []).append(cpu)

    for run in range(runs):
        used = cpu_ms(client.process.pid)
        current, elapsed = keystroke(client, uri, current, at, run + 2)
        after = cpu_ms(client.process.pid)
        add("keystroke", elapsed, None if used is None or after is None else after - used)
        here = position(current, at)
        screen = {
            "start": {"line": max(0, here["line"] - SCREEN_LINES), "character": 0},
            "end": {"line": here["line"] + SCREEN_LINES, "character": 0},
        }
        for name, method, params in (
            (
                "hover",
                "textDocument/hover",
                document | {"position": position(current, name_end - 1)},
            ),
            ("semantic_tokens_full", "textDocument/semanticTokens/full", document),
            (
                "semantic_tokens_range",
                "textDocument/semanticTokens/range",
                document | {"range": screen},
            ),
            ("document_symbol", "textDocument/documentSymbol", document),
        ):
            elapsed, cpu, answer = timed(client, method, params)
            assert answer["result"], f"{method} answered nothing"
            add(name, elapsed, cpu)
    peak = peak_mb(client.process.pid)
    client.close()
    if peak is not None:
        samples["server_peak_mb"] = [peak]
    return samples


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


def request_figures(ten: dict[str, list[float]], one: dict[str, list[float]]) -> dict:
    """The figures of `requests_on` a 10 MB and a 1 MB document, with their budgets."""
    result = {}
    for name in ("keystroke", "hover", "semantic_tokens_full", "semantic_tokens_range"):
        result[f"{name}_10mb"] = figures(ten[name], BUDGETS[f"{name}_10mb"])
    result["document_symbol_10mb"] = figures(
        ten["document_symbol"], BUDGETS["document_symbol_10mb"]
    )
    for name in (
        "keystroke",
        "hover",
        "semantic_tokens_full",
        "semantic_tokens_range",
        "document_symbol",
    ):
        if f"{name}_server_cpu" in ten:
            result[f"{name}_10mb_server_cpu"] = figures(ten[f"{name}_server_cpu"], None)
    result["first_diagnostics_10mb"] = figures(ten["first_diagnostics"], None)
    if "server_peak_mb" in ten:
        peak = ten["server_peak_mb"][0]
        result["server_peak_mb_10mb"] = {
            "peak_mb": round(peak, 1),
            "budget_mb": PEAK_BUDGET_MB,
            "pass": peak <= PEAK_BUDGET_MB,
        }
    result["semantic_tokens_full_1mb"] = figures(
        one["semantic_tokens_full"], BUDGETS["semantic_tokens_full_1mb"]
    )
    if "semantic_tokens_full_server_cpu" in one:
        result["semantic_tokens_full_1mb_server_cpu"] = figures(
            one["semantic_tokens_full_server_cpu"], None
        )
    return result


def print_requests(result: dict) -> None:
    for name, value in result.items():
        if name == "server_peak_mb_10mb":
            verdict = "PASS" if value["pass"] else "FAIL"
            print(
                f"  server peak 10mb: {value['peak_mb']:.0f} MB "
                f"(budget {value['budget_mb']:.0f} MB: {verdict})"
            )
        elif name in REQUESTS_REPORTED:
            print(line(name.replace("_", " "), value))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.big_files", description=__doc__)
    parser.add_argument("--runs", type=int, default=10, help="keystrokes to time")
    parser.add_argument("--open-runs", type=int, default=3, help="servers opening 1 MB")
    parser.add_argument("--shutdown-runs", type=int, default=3, help="servers shut down")
    parser.add_argument("--check-runs", type=int, default=5, help="checks of 1 MB timed")
    parser.add_argument(
        "--request-runs", type=int, default=5, help="keystrokes and requests on 10 MB and 1 MB"
    )
    parser.add_argument(
        "--requests-only",
        action="store_true",
        help="only the requests on 10 MB and 1 MB, printed and not written",
    )
    parser.add_argument(
        "--in-process-only",
        action="store_true",
        help="only the keystrokes' analysis in this process on 1 MB and 10 MB (CPU time, "
        "as a loaded machine leaves it), printed and not written",
    )
    parser.add_argument(
        "--open-timeout",
        type=float,
        default=OPEN_10MB_TIMEOUT_S,
        help="seconds to wait for a 10 MB document's first diagnostics",
    )
    args = parser.parse_args(argv)
    if args.in_process_only:
        for name, size in (("1mb", MB), ("10mb", 10 * MB)):
            here, here_cpu = in_process_keystrokes(program_of_size(size), args.runs)
            print(line(f"keystroke {name} in process, CPU", figures(here_cpu, None)))
            print(line(f"keystroke {name} in process, wall", figures(here, None)))
        return 0
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "compiler"), str(REPO / "server")],
        check=False,
        capture_output=True,
    )
    one = program_of_size(MB)
    ten = program_of_size(10 * MB)
    if args.requests_only:
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            requests = request_figures(
                requests_on(ten, folder, args.request_runs, args.open_timeout),
                requests_on(one, folder, args.request_runs, args.open_timeout),
            )
        print_requests(requests)
        return 0
    checked = check_big.measure(args.check_runs, 1.0, 0)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        opened = first_diagnostics(one, folder, args.open_runs)
        typed, typed_cpu = keystrokes(one, folder, args.runs)
        here, here_cpu = in_process_keystrokes(one, args.runs)
        during = shutdowns(ten, folder, args.shutdown_runs)
        requests = request_figures(
            requests_on(ten, folder, args.request_runs, args.open_timeout),
            requests_on(one, folder, args.request_runs, args.open_timeout),
        )
    result = (
        {
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
        }
        | requests
        | environment()
    )
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
    print_requests(requests)
    print(f"  written to {write_results('big_files', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
