"""Language-server latency over stdio on a generated 2,400-line file.

Measures, with medians and 95th percentiles: server start to first diagnostics
(budget 1 s), `initialized` to first diagnostics (300 ms: what an editor's user waits
for once the server is up), diagnostics after a one-character edit inside a function
(50 ms), completion (25 ms), hover, and, in a client that shows images: hover over a
tensor, which draws its shape (30 ms), over a function of one number, which draws its
curve (50 ms), and over a function's name once the torch worker is warm, which runs it on
an example and draws what it does (300 ms; each hover follows an edit of the function, so
the worker runs every time rather than the kept answer being shown);
`shapescript/architecture` on examples/gpt.ss, warm (50 ms); the outline (30 ms),
semantic tokens of the whole file (50 ms) and a rename of a function across the
workspace (100 ms); and completion after `torch.` on a fresh server: the first one, asked
once the file is open, while torch is still being listed (it waits for the listing up to
1.5 s: 1,550 ms), and a warm one once it is listed (50 ms). Results go to
`benchmarks/results/lsp_latency.json`.

    python -m benchmarks.lsp_latency [--runs 30]
"""

from __future__ import annotations

import argparse
import json
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.check import edit_point
from benchmarks.common import environment, figures, line, write_results
from benchmarks.generate import generate_program

REPO = Path(__file__).resolve().parent.parent
BUDGETS = {
    "first_diagnostics": 1000.0,
    "initialized_to_first_diagnostics": 300.0,
    "diagnostics_after_edit": 50.0,
    "completion": 25.0,
    "hover_curve": 50.0,
    "hover_shape_image": 30.0,
    "hover_function_picture": 300.0,
    # The first completion of a module waits for its listing up to 1.5 s
    # (`python_members.FIRST_WAIT_S`), so that clients which never ask again get it all.
    "first_torch_completion": 1550.0,
    "warm_torch_completion": 50.0,
    "architecture": 50.0,
}
#: The outline, semantic tokens (full) and a rename of a function the file uses, each
#: asked after a one-character edit, as an editor asks them (`measure_names`).
NAME_BUDGETS = {
    "document_symbols": 30.0,
    "semantic_tokens_full": 50.0,
    "workspace_rename": 100.0,
}
BUDGETS |= NAME_BUDGETS
#: A function of one number, added to the generated file for the curve hover.
CURVE_FN = "\nfn bench_act(x: [b D]) -> [b D] = x * sigmoid(1.702 * x)\n"


class Client:
    """A bare JSON-RPC client over a server's stdin and stdout."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.messages: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                chunk = stream.read(1)
                if not chunk:
                    return
                header += chunk
            length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
            self.messages.put(json.loads(stream.read(length)))

    def send(self, message: dict) -> None:
        body = json.dumps(message).encode("utf-8")
        self.process.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict, timeout: float = 30) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.messages.get(timeout=timeout)
            if message.get("id") == self.next_id:
                return message

    def wait_for(self, method: str, predicate=lambda params: True, timeout: float = 30) -> dict:
        """The params of the next notification `method` that `predicate` accepts; `timeout`
        seconds at most between two messages."""
        while True:
            message = self.messages.get(timeout=timeout)
            if message.get("method") == method and predicate(message["params"]):
                return message["params"]

    def close(self) -> None:
        self.request("shutdown", {})
        self.notify("exit", {})
        self.process.wait(timeout=10)


def position(text: str, offset: int) -> dict:
    line_number = text.count("\n", 0, offset)
    return {"line": line_number, "character": offset - (text.rfind("\n", 0, offset) + 1)}


def started_client(folder: Path, options: dict | None = None) -> Client:
    """A fresh server, initialized (the `initialized` notification not sent yet)."""
    client = Client([sys.executable, "-m", "shapescript_lsp"])
    client.request(
        "initialize",
        {
            "processId": None,
            "rootUri": folder.as_uri(),
            "capabilities": {},
            "initializationOptions": {"libraryDir": str(folder / "library")} | (options or {}),
        },
    )
    return client


def open_file(
    folder: Path,
    uri: str,
    text: str,
    images: bool = False,
    timeout: float = 30,
    **options: object,
) -> tuple[Client, float]:
    """Start a server, initialize it and open the file; return once its diagnostics came
    (waiting up to `timeout` seconds), with the time `initialized` was sent."""
    client = started_client(folder, {"images": images, **options})
    initialized = time.perf_counter()
    client.notify("initialized", {})
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "shapescript", "version": 1, "text": text}},
    )
    client.wait_for(
        "textDocument/publishDiagnostics", lambda p: p.get("version") == 1, timeout=timeout
    )
    return client, initialized


def measure(runs: int, text: str, folder: Path) -> dict[str, list[float]]:
    uri = (folder / "bench.ss").as_uri()
    samples: dict[str, list[float]] = {name: [] for name in BUDGETS} | {"hover": []}
    for _ in range(max(5, runs // 3)):
        start = time.perf_counter()
        client, initialized = open_file(folder, uri, text)
        end = time.perf_counter()
        samples["first_diagnostics"].append((end - start) * 1000)
        samples["initialized_to_first_diagnostics"].append((end - initialized) * 1000)
        client.close()

    client, _ = open_file(folder, uri, text)
    at = edit_point(text)
    version = 1
    current = text
    for run in range(runs):
        version += 1
        inserting = run % 2 == 0
        change = {
            "range": {
                "start": position(current, at),
                "end": position(current, at + (0 if inserting else 1)),
            },
            "text": " " if inserting else "",
        }
        start = time.perf_counter()
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )
        client.wait_for(
            "textDocument/publishDiagnostics", lambda p, v=version: p.get("version") == v
        )
        samples["diagnostics_after_edit"].append((time.perf_counter() - start) * 1000)
        current = (
            current[:at] + " " + current[at:] if inserting else current[:at] + current[at + 1 :]
        )
        where = position(current, at)
        start = time.perf_counter()
        client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": where})
        samples["completion"].append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": where})
        samples["hover"].append((time.perf_counter() - start) * 1000)
    client.close()
    measure_curve(runs, text + CURVE_FN, folder, samples["hover_curve"])
    measure_shape_image(runs, text + SHAPE_FN, folder, samples["hover_shape_image"])
    measure_function_picture(runs, folder, samples["hover_function_picture"])
    samples["hover_pattern_image"] = []
    measure_pattern_image(runs, folder, samples["hover_pattern_image"])
    first, warm = measure_torch_completion(max(5, runs // 3), folder)
    samples["first_torch_completion"] = first
    samples["warm_torch_completion"] = warm
    measure_architecture(runs, folder, samples["architecture"])
    samples |= measure_names(runs, text, folder)
    return samples


def measure_names(runs: int, text: str, folder: Path) -> dict[str, list[float]]:
    """documentSymbol, semanticTokens/full and rename of the first function (renamed in
    its declaration and its calls, across the workspace), each after an edit inside a
    function has been checked; the first semantic tokens, with nothing to reuse, apart."""
    uri = (folder / "names.ss").as_uri()
    client, _ = open_file(folder, uri, text)
    document = {"textDocument": {"uri": uri}}
    samples: dict[str, list[float]] = {name: [] for name in NAME_BUDGETS}
    start = time.perf_counter()
    answer = client.request("textDocument/semanticTokens/full", document)
    samples["semantic_tokens_full_first"] = [(time.perf_counter() - start) * 1000]
    assert answer["result"]["data"], "no semantic tokens"
    at = edit_point(text)
    current = text
    for run in range(runs):
        inserting = run % 2 == 0
        change = {
            "range": {
                "start": position(current, at),
                "end": position(current, at + (0 if inserting else 1)),
            },
            "text": " " if inserting else "",
        }
        version = run + 2
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )
        client.wait_for(
            "textDocument/publishDiagnostics", lambda p, v=version: p.get("version") == v
        )
        current = (
            current[:at] + " " + current[at:] if inserting else current[:at] + current[at + 1 :]
        )
        for name, method, params in (
            ("document_symbols", "textDocument/documentSymbol", document),
            ("semantic_tokens_full", "textDocument/semanticTokens/full", document),
            (
                "workspace_rename",
                "textDocument/rename",
                document
                | {"position": position(current, current.index("fn ") + 3), "newName": "renamed"},
            ),
        ):
            start = time.perf_counter()
            answer = client.request(method, params)
            samples[name].append((time.perf_counter() - start) * 1000)
            assert answer.get("result"), f"{method} answered {answer}"
    client.close()
    return samples


TORCH_TEXT = "import python torch\n\nfn f() = torch.\n"


def first_torch_completion(client: Client, uri: str) -> tuple[float, dict]:
    """The first completion after `torch.`, asked once the file's first diagnostics came
    (the file is open, torch is still being listed; the server waits for it a while)."""
    client.notify(
        "textDocument/didOpen",
        {
            "textDocument": {
                "uri": uri,
                "languageId": "shapescript",
                "version": 1,
                "text": TORCH_TEXT,
            }
        },
    )
    client.wait_for("textDocument/publishDiagnostics", lambda p: p.get("version") == 1)
    where = position(TORCH_TEXT, len(TORCH_TEXT) - 1)
    start = time.perf_counter()
    answer = client.request(
        "textDocument/completion", {"textDocument": {"uri": uri}, "position": where}
    )
    return (time.perf_counter() - start) * 1000, answer


def warm_torch_completion(client: Client, uri: str, timeout: float = 120.0) -> float:
    """A completion after `torch.` once torch is listed (asked again until its functions
    are there; the list stays incomplete, as torch has more names than one list holds)."""
    where = position(TORCH_TEXT, len(TORCH_TEXT) - 1)
    params = {"textDocument": {"uri": uri}, "position": where}
    deadline = time.monotonic() + timeout

    def listed() -> bool:
        items = client.request("textDocument/completion", params)["result"]["items"]
        return any(item["label"] == "abs" for item in items)

    while not listed():
        if time.monotonic() > deadline:
            raise RuntimeError("torch was never listed")
        time.sleep(0.1)
    start = time.perf_counter()
    answer = client.request("textDocument/completion", params)
    elapsed = (time.perf_counter() - start) * 1000
    labels = {item["label"] for item in answer["result"]["items"]}
    assert "abs" in labels, "the warm list has no torch.abs"
    return elapsed


def measure_torch_completion(servers: int, folder: Path) -> tuple[list[float], list[float]]:
    """First and warm completion after `torch.`, each on its own fresh server."""
    first: list[float] = []
    warm: list[float] = []
    uri = (folder / "torch_members.ss").as_uri()
    for _ in range(servers):
        client = started_client(folder, {"python": sys.executable})
        client.notify("initialized", {})
        elapsed, _ = first_torch_completion(client, uri)
        first.append(elapsed)
        warm.append(warm_torch_completion(client, uri))
        client.close()
    return first, warm


def measure_curve(runs: int, text: str, folder: Path, samples: list[float]) -> None:
    """Hover over the added function's name, in a client that shows images."""
    uri = (folder / "curve.ss").as_uri()
    client, _ = open_file(folder, uri, text, images=True)
    where = position(text, text.rindex("bench_act") + 2)
    for _ in range(runs):
        start = time.perf_counter()
        answer = client.request(
            "textDocument/hover", {"textDocument": {"uri": uri}, "position": where}
        )
        samples.append((time.perf_counter() - start) * 1000)
        assert "curve of bench_act" in str(answer), "the hover has no curve"
    client.close()


#: A value with a grouped axis, added to the generated file for the shape image hover.
SHAPE_FN = (
    "\nfn bench_shape(x: [b n (3 D)]) -> [b n (3 D)]:\n"
    "    bench_value = x * 2.0\n"
    "    return bench_value\n"
)
#: A file of one function for the function picture hover; `{scale}` changes on each run.
PICTURE_FILE = (
    "dim D = 16\ndim C = 10\n\n"
    "fn bench_picture(x: [n D], w: [D C]) -> [n C] Prob over C:\n"
    "    return x @ w * {scale} |> softmax(over=C)\n"
)


def measure_shape_image(runs: int, text: str, folder: Path, samples: list[float]) -> None:
    """Hover over a tensor value in a client that shows images: its type and its drawing."""
    uri = (folder / "shape.ss").as_uri()
    client, _ = open_file(folder, uri, text, images=True)
    where = position(text, text.rindex("bench_value") + 2)
    for _ in range(runs):
        start = time.perf_counter()
        answer = client.request(
            "textDocument/hover", {"textDocument": {"uri": uri}, "position": where}
        )
        samples.append((time.perf_counter() - start) * 1000)
        assert "data:image/png" in str(answer), "the hover has no shape image"
    client.close()


#: A patchify for the pattern hover: `->` draws the image and the rows of patches.
PATTERN_FILE = (
    "fn bench_patchify(img: [b 3 224 224]) -> [b 196 768]:\n"
    "    return img |> rearrange(b c (h p1) (w p2) -> b (h w) (p1 p2 c), p1=16, p2=16)\n"
)


def measure_pattern_image(runs: int, folder: Path, samples: list[float]) -> None:
    """Hover over a patchify's `->` in a client that shows images (no budget: a figure to
    watch, the widest picture a hover draws without the worker)."""
    uri = (folder / "pattern.ss").as_uri()
    client, _ = open_file(folder, uri, PATTERN_FILE, images=True)
    where = position(PATTERN_FILE, PATTERN_FILE.index("-> b (h w)"))
    for _ in range(runs):
        start = time.perf_counter()
        answer = client.request(
            "textDocument/hover", {"textDocument": {"uri": uri}, "position": where}
        )
        samples.append((time.perf_counter() - start) * 1000)
        assert "data:image/png" in str(answer), "the hover has no pattern image"
    client.close()


def measure_function_picture(runs: int, folder: Path, samples: list[float]) -> None:
    """Hover over a function's name with pictures allowed and the worker warm. Each run
    first edits a number in the body and waits for its diagnostics, so the hover builds a
    new example and the worker runs it, rather than showing the answer it kept."""
    uri = (folder / "picture.ss").as_uri()
    text = PICTURE_FILE.format(scale="1.0")
    client, _ = open_file(folder, uri, text, images=True, pictures=True, python=sys.executable)
    where = position(text, text.index("bench_picture") + 2)
    request = {"textDocument": {"uri": uri}, "position": where}
    for _ in range(50):  # the worker starts and imports torch; a hover answers meanwhile
        if "still being computed" not in str(client.request("textDocument/hover", request)):
            break
        time.sleep(0.2)
    for run in range(runs):
        version = run + 2
        text = PICTURE_FILE.format(scale=f"1.{run + 1:03d}")
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )
        client.wait_for(
            "textDocument/publishDiagnostics", lambda p, v=version: p.get("version") == v
        )
        start = time.perf_counter()
        answer = str(client.request("textDocument/hover", request))
        samples.append((time.perf_counter() - start) * 1000)
        assert "still being computed" not in answer, "the picture wasn't ready within the wait"
        assert answer.count("data:image/png") >= 1, "the hover has no function picture"
    client.close()


def measure_architecture(runs: int, folder: Path, samples: list[float]) -> None:
    """`shapescript/architecture` on the GPT example's model name, once the file is checked
    and drawn once (warm), as a view that follows the cursor asks for it."""
    text = (REPO / "examples" / "gpt.ss").read_text(encoding="utf-8")
    uri = (folder / "gpt.ss").as_uri()
    client, _ = open_file(folder, uri, text)
    params = {"textDocument": {"uri": uri}, "position": position(text, text.index("model Gpt") + 6)}
    first = client.request("shapescript/architecture", params)
    assert "Transformer block" in first["result"]["svg"], "the architecture has no GPT block"
    for _ in range(runs):
        start = time.perf_counter()
        client.request("shapescript/architecture", params)
        samples.append((time.perf_counter() - start) * 1000)
    client.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.lsp_latency", description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--lines", type=int, default=2400)
    args = parser.parse_args(argv)
    text = generate_program(args.lines, 0)
    # An installed package has its bytecode compiled; an editable one may not have it yet.
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "compiler"), str(REPO / "server")],
        check=False,
        capture_output=True,
    )
    with tempfile.TemporaryDirectory() as folder:
        samples = measure(args.runs, text, Path(folder))
    result = {"benchmark": "lsp_latency", "lines": text.count("\n")}
    for name, values in samples.items():
        result[name] = figures(values, BUDGETS.get(name))
    result |= environment()
    print(f"lsp latency: {result['lines']} lines")
    for name in samples:
        print(line(name.replace("_", " "), result[name]))
    print(f"  written to {write_results('lsp_latency', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
