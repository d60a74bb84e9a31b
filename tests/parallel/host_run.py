"""One host's run of the README example on `cpu[0 1]`, for the tests of several hosts.

`python -m tests.parallel.host_run OUT EPOCHS [EXAMPLES]` (in the host's own folder) trains
on 50 (or EXAMPLES) synthetic examples in batches of 30. Its sink writes each step's loss
to OUT as a JSON line as it goes (on host 0 only, as every sink); OUT.workers.json gets the
workers' process ids and the group's size once they have started, and OUT.forward.json the
logits of a few examples at the end.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import torch

import shapescript
from shapescript.atomic_write import write_text
from shapescript.rt import data as rt_data
from tests.parallel.programs import compiled, readme_on
from tests.python.datasets import ListDigits

EXAMPLES = 50
BATCH = 30


class _Recorder:
    """A sink that writes each step's loss to a file at once."""

    def __init__(self, out: Path) -> None:
        self.out = out

    def write(self, record: dict) -> None:
        with self.out.open("a", encoding="utf-8") as file:
            file.write(json.dumps({"loss": float(record["loss"])}) + "\n")

    def flush(self) -> None:
        pass


def _note_workers(program, out: Path) -> None:
    """Write the workers' ids and the group's size once the workers are there."""
    while len(program.pids()) < program.count:
        time.sleep(0.05)
    text = json.dumps({"pids": program.pids(), "world": getattr(program, "world", None)})
    write_text(out.with_suffix(".workers.json"), text)


def main() -> None:
    out, epochs = Path(sys.argv[1]), int(sys.argv[2])
    examples = int(sys.argv[3]) if len(sys.argv) > 3 else EXAMPLES
    torch.set_num_threads(1)
    rt_data.loader_workers(0)
    module = compiled(readme_on("cpu[0 1]", BATCH), Path.cwd() / "hosts.ss")
    threading.Thread(target=_note_workers, args=(module._ss_program, out), daemon=True).start()
    m = module.Mlp.init(seed=0)
    module.fit(m, ListDigits(examples), _Recorder(out), epochs, shapescript.Eval)
    # A result along the batch axis, which each host's workers hold only part of.
    images = torch.stack([item["img"] for item in ListDigits(11, seed=1).items])
    logits = module.forward(m, images, shapescript.Eval)
    write_text(out.with_suffix(".forward.json"), json.dumps(logits.tolist()))


if __name__ == "__main__":
    main()
