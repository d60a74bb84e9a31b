"""One host's run of the README example on `cpu[0 1]`, for the tests of several hosts.

`python -m tests.parallel.host_run OUT EPOCHS [EXAMPLES]` (in the host's own folder) trains
on 50 (or EXAMPLES) synthetic examples in batches of 30 and writes each step's loss, the
workers' process ids and the group's size to OUT as a JSON line as it goes (so a test can
stop a host midway).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

import shapescript
from shapescript.rt import data as rt_data
from tests.parallel.programs import compiled, readme_on
from tests.python.datasets import ListDigits

EXAMPLES = 50
BATCH = 30


class _Recorder:
    """A sink that writes each step's loss, and the workers' ids, to a file at once."""

    def __init__(self, out: Path, module) -> None:
        self.out = out
        self.module = module

    def write(self, record: dict) -> None:
        program = self.module._ss_program
        line = {"loss": float(record["loss"]), "pids": program.pids(), "world": program.world}
        with self.out.open("a", encoding="utf-8") as file:
            file.write(json.dumps(line) + "\n")

    def flush(self) -> None:
        pass


def main() -> None:
    out, epochs = Path(sys.argv[1]), int(sys.argv[2])
    examples = int(sys.argv[3]) if len(sys.argv) > 3 else EXAMPLES
    torch.set_num_threads(1)
    rt_data.loader_workers(0)
    module = compiled(readme_on("cpu[0 1]", BATCH), Path.cwd() / "hosts.ss")
    m = module.Mlp.init(seed=0)
    module.fit(m, ListDigits(examples), _Recorder(out, module), epochs, shapescript.Eval)
    # A result along the batch axis, which each host's workers hold only part of.
    images = torch.stack([item["img"] for item in ListDigits(11, seed=1).items])
    logits = module.forward(m, images, shapescript.Eval)
    out.with_suffix(".forward.json").write_text(json.dumps(logits.tolist()), encoding="utf-8")


if __name__ == "__main__":
    main()
