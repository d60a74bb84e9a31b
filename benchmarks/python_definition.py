"""Go to definition into Python (`torch.tanh`) over stdio, on fresh servers.

For each run a new server opens a file with `import python torch` and, once its
diagnostics are out, asks where `torch.tanh` is defined:

- `cold_after_open`: the first request, sent as soon as the diagnostics arrive (what a
  user who opens a file and jumps at once waits for; budget 1.5 s);
- `cold_after_pause`: on another fresh server, the first request sent 5 s after the
  diagnostics (the file was open a moment before the jump; budget 1.5 s);
- `warm`: the same request again, five times per server (budget 500 ms).

A cold request waits for jedi's helper process to import torch; the server keeps each
answer for the session (`features/python_names.py`), so warm ones don't. Results go to
`benchmarks/results/python_definition.json`.

    python -m benchmarks.python_definition [--runs 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import environment, figures, line, write_results
from tests.lsp.raw_client import RawServer

BUDGETS = {"cold_after_open": 1500.0, "cold_after_pause": 1500.0, "warm": 500.0}
TEXT = "import python torch\n\nfn f(x: [n]) -> [n] = torch.tanh(x)\n"
PAUSE_S = 5.0
WARM_REPEATS = 5


def _definition_ms(server: RawServer, uri: str) -> float:
    character = TEXT.splitlines()[2].index("tanh") + 1
    started = time.perf_counter()
    answer = server.request(
        "textDocument/definition",
        {"textDocument": {"uri": uri}, "position": {"line": 2, "character": character}},
    )
    elapsed = (time.perf_counter() - started) * 1000
    found = answer.get("result") or []
    if not found or "torch" not in found[0]["uri"]:
        raise SystemExit(f"go to definition of torch.tanh answered {answer!r}")
    return elapsed


def _session(pause: float, warm: list[float]) -> float:
    """One fresh server: the first request's time after `pause` seconds; the warm ones
    are added to `warm`."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        server = RawServer()
        try:
            server.initialize(root, {"python": sys.executable})
            uri = (root / "jump.ss").as_uri()
            server.open(uri, TEXT)
            server.wait_for("textDocument/publishDiagnostics", lambda params: params["uri"] == uri)
            time.sleep(pause)
            first = _definition_ms(server, uri)
            warm.extend(_definition_ms(server, uri) for _ in range(WARM_REPEATS))
            return first
        finally:
            server.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh servers per kind of run")
    args = parser.parse_args(argv)
    warm: list[float] = []
    after_open = [_session(0.0, warm) for _ in range(args.runs)]
    after_pause = [_session(PAUSE_S, warm) for _ in range(args.runs)]
    results = {
        "cold_after_open": figures(after_open, BUDGETS["cold_after_open"]),
        "cold_after_pause": figures(after_pause, BUDGETS["cold_after_pause"]),
        "warm": figures(warm, BUDGETS["warm"]),
    }
    print("go to definition of torch.tanh")
    for name, result in results.items():
        print(line(name, result))
    path = write_results("python_definition", environment() | results)
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
