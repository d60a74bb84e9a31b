"""The `--modal GPU[:N]` request, and the devices line it must be able to serve."""

from __future__ import annotations

import re
from dataclasses import dataclass

from shapescript.commands.support import UsageError

#: Modal lets a container have 1 to 8 GPUs.
MOST_GPUS = 8
_REQUEST = re.compile(r"([A-Za-z][A-Za-z0-9-]*)(?::(\d+))?")


@dataclass(frozen=True, slots=True)
class GpuRequest:
    """A GPU type as Modal names it, and how many of them."""

    name: str
    count: int

    @property
    def text(self) -> str:
        """The request as Modal's `gpu=` takes it: `T4`, `H100:3`."""
        return self.name if self.count == 1 else f"{self.name}:{self.count}"


def parse_gpu(text: str) -> GpuRequest:
    """Read `--modal T4` or `--modal H100:3` (the type in any case)."""
    match = _REQUEST.fullmatch(text.strip())
    if match is None:
        raise UsageError(
            f"--modal `{text}` isn't a GPU request: write Modal's GPU type, "
            "with :N for N of them, as in --modal T4 or --modal H100:2"
        )
    count = int(match.group(2)) if match.group(2) is not None else 1
    if not 1 <= count <= MOST_GPUS:
        raise UsageError(f"--modal `{text}`: a container has 1 to {MOST_GPUS} GPUs, not {count}")
    return GpuRequest(match.group(1).upper(), count)


def check_devices_fit(
    devices: tuple[str, tuple[int, ...] | None] | None, gpu: GpuRequest
) -> str | None:
    """Refuse a devices line that asks for more CUDA devices than the request has; return a
    warning to show when the program won't use the GPU at all (cpu, cpu[…] or mps)."""
    if devices is None:
        return None
    kind, numbers = devices
    if kind == "cuda" and numbers:
        needed = max(numbers) + 1
        if needed > gpu.count:
            listed = " ".join(str(number) for number in numbers)
            raise UsageError(
                f"the program's devices line says cuda[{listed}], which needs {needed} GPUs, "
                f"but --modal {gpu.text} gives {gpu.count}: "
                f"use --modal {gpu.name}:{needed}"
            )
        return None
    if kind == "mps":
        return (
            f"the program declares devices mps, which Modal's Linux machines don't have: "
            f"it runs on the container's CPU and the {gpu.name} is unused"
        )
    if kind == "cpu":
        declared = "cpu" if numbers is None else "cpu[…]"
        return (
            f"the program declares devices {declared}: "
            f"it runs on the container's CPU and the {gpu.name} is unused"
        )
    return None
