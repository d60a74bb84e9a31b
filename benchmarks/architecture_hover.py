"""The first hover over examples/gpt.ss's model name in a client that shows images: the
architecture's PNG, in a fresh server each run. Measured right after the file's first
diagnostics (`at_diagnostics`, the worst case: the hover may wait for the picture being
drawn ahead) and after a pause of `--pause` seconds (`after_pause`, as a user moves to the
name). Prints medians; results go to `benchmarks/results/architecture_hover.json`.

    python -m benchmarks.architecture_hover [--runs 5] [--pause 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import environment, figures, line, write_results
from benchmarks.lsp_latency import REPO, open_file, position


def first_hover(folder: Path, pause: float) -> float:
    """Milliseconds the first hover over `model Gpt` takes, `pause` s after diagnostics."""
    text = (REPO / "examples" / "gpt.ss").read_text(encoding="utf-8")
    uri = (folder / "gpt.ss").as_uri()
    client, _ = open_file(folder, uri, text, images=True)
    time.sleep(pause)
    params = {"textDocument": {"uri": uri}, "position": position(text, text.index("model Gpt") + 6)}
    start = time.perf_counter()
    answer = client.request("textDocument/hover", params)
    took = (time.perf_counter() - start) * 1000
    client.close()
    value = answer["result"]["contents"]["value"]
    assert "![architecture of Gpt](data:image/png;base64," in value, "no architecture image"
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.architecture_hover", description=__doc__
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pause", type=float, default=2.0)
    args = parser.parse_args(argv)
    samples: dict[str, list[float]] = {"at_diagnostics": [], "after_pause": []}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.runs):
            samples["at_diagnostics"].append(first_hover(Path(folder), 0.0))
            samples["after_pause"].append(first_hover(Path(folder), args.pause))
    result: dict = {"benchmark": "architecture_hover", "pause_s": args.pause}
    for name, values in samples.items():
        result[name] = figures(values, None)
    result |= environment()
    print("first architecture hover of examples/gpt.ss, with images")
    for name in samples:
        print(line(name.replace("_", " "), result[name]))
    print(f"  written to {write_results('architecture_hover', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
