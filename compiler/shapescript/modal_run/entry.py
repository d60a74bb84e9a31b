"""The program as the container runs it: `python -m shapescript PROGRAM ARGS`, except that
`devices mps` means the CPU, since Modal's machines are Linux (the warning was shown here)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def mps_as_cpu() -> None:
    """Make a devices declaration of `mps` declare the CPU instead."""
    from shapescript.rt import devices

    parse = devices.parse_devices

    def parse_on_linux(text: str) -> devices.DevicesSpec:
        spec = parse(text)
        return devices.DevicesSpec("cpu", None) if spec.kind == "mps" else spec

    devices.parse_devices = parse_on_linux


def main(argv: Sequence[str]) -> int:
    from shapescript.__main__ import main as run_program

    mps_as_cpu()
    return run_program(list(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
