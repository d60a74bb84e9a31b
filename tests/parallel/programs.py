"""The README example on several devices, compiled for tests, and its workers' processes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

import shapescript
from shapescript.rt import devices

README = Path(__file__).resolve().parents[2] / "examples" / "train_mlp.ss"


def readme_on(devices_text: str, batch: int = 64, extra: str = "") -> str:
    """The README example's text with a devices line and another batch size."""
    text = README.read_text(encoding="utf-8") + extra
    text = text.replace("## Pixels in one", f"devices {devices_text}\n\n## Pixels in one", 1)
    return text.replace("batches(64)", f"batches({batch})")


def compiled(text: str, path: Path):
    """A fresh module of `text` at `path`, the devices declared anew."""
    devices._reset_for_tests()
    path.write_text(text, encoding="utf-8")
    return shapescript.compile(text, str(path))


def one_device_and_several(
    program: str, layout: str, results: Callable[[Any], list], folder: Path
) -> tuple[list, list, list[int]]:
    """`results` of `program` (a `{devices}` template) compiled for one CPU and for the
    devices `layout` says, in one torch thread: both lists, and the workers' process ids,
    the workers stopped."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        expected = results(compiled(program.format(devices="cpu"), folder / "one.ss"))
        several = compiled(program.format(devices=layout), folder / "two.ss")
        try:
            got = results(several)
            pids = several._ss_program.pids()
        finally:
            several._ss_program.stop()
    finally:
        torch.set_num_threads(threads)
    return expected, got, pids


def alive(pid: int) -> bool:
    """Whether a process with this id still runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
