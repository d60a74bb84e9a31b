"""The one device a program runs on: declared once, by a `devices` line or from Python.

`device()` is on every compiled function's hot path, so it only reads a module global.
Torch is imported when devices are declared, not when this module is.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shapescript.rt.errors import DeviceError

if TYPE_CHECKING:
    import torch

KINDS = ("cpu", "mps", "cuda")
_TEXT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[([^\]]*)\])?\s*")
HOW_TO_DECLARE = (
    "declare them with a `devices cpu` line at the top of the .ss file, "
    'or from Python with `shapescript.devices("cpu")` (or "cuda[0]", "mps")'
)


@dataclass(frozen=True, slots=True)
class DevicesSpec:
    """Parsed devices text: a kind and its device numbers (None without brackets)."""

    kind: str
    numbers: tuple[int, ...] | None

    @property
    def text(self) -> str:
        if self.numbers is None:
            return self.kind
        return f"{self.kind}[{' '.join(str(number) for number in self.numbers)}]"

    @property
    def several(self) -> bool:
        return self.numbers is not None and len(self.numbers) > 1


def parse_devices(text: str) -> DevicesSpec:
    """Read `cpu`, `mps`, `cuda[0]` or `cuda[0 1]` as a devices line says them."""
    match = _TEXT.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise DeviceError(f"`{text}` isn't a devices declaration: write cpu, mps or cuda[0]")
    kind, inside = match.group(1), match.group(2)
    numbers: tuple[int, ...] | None = None
    if inside is not None:
        words = inside.split()
        if not all(word.isdigit() for word in words):
            raise DeviceError(f"`{text.strip()}`: device numbers are whole numbers, as in cuda[0]")
        numbers = tuple(int(word) for word in words)
    spec = DevicesSpec(kind, numbers)
    problem = _problem(spec)
    if problem is not None:
        raise DeviceError(f"`{spec.text}` isn't a device: {problem}")
    return spec


def _problem(spec: DevicesSpec) -> str | None:
    """What is wrong with parsed devices, in the words of E1001."""
    kind, numbers = spec.kind, spec.numbers
    if kind not in KINDS:
        return "the devices are cpu, mps and cuda[...]"
    if numbers is not None and len(set(numbers)) != len(numbers):
        return "each device number may be listed once"
    if kind == "mps" and numbers is not None:
        return "mps takes no device numbers"
    if kind == "cuda" and not numbers:
        return "cuda needs device numbers, as in cuda[0]"
    if kind == "cpu" and numbers is not None and len(numbers) < 2:
        return "one CPU is `cpu`; cpu[...] needs two or more numbers"
    return None


@dataclass(frozen=True, slots=True)
class _Declared:
    spec: DevicesSpec
    origin: str
    device: torch.device


_declared: _Declared | None = None
_device: torch.device | None = None


def _missing(spec: DevicesSpec) -> str | None:
    """Why this machine can't run on the device, or None when it can."""
    import torch

    if spec.kind == "cuda":
        if not torch.cuda.is_available():
            return "this machine has no CUDA GPU (or this torch was built without CUDA)"
        count = torch.cuda.device_count()
        index = max(spec.numbers or (0,))
        if index >= count:
            return f"this machine has {count} CUDA GPU{'s' if count != 1 else ''}, numbered from 0"
    if spec.kind == "mps" and not torch.backends.mps.is_available():
        return "MPS (Apple GPUs) isn't available on this machine"
    return None


def _who(origin: str) -> str:
    return f"the devices line of {origin}" if origin.endswith(".ss") else origin


def declare_devices(text: str, origin: str) -> None:
    """Declare the program's devices; `origin` (a .ss path, or who called) names who did."""
    global _declared, _device
    spec = parse_devices(text)
    origin = _who(origin)
    if _declared is not None:
        if _declared.spec == spec:
            return
        raise DeviceError(
            f"devices are declared twice, differently: `{_declared.spec.text}` by "
            f"{_declared.origin}, then `{spec.text}` by {origin}; "
            "a program runs on the devices it declared first"
        )
    if spec.several:
        # The controller's own tensors are on its CPU; each worker declares its device.
        missing = _missing(spec)
        if missing is not None:
            raise DeviceError(f"`{spec.text}` (declared by {origin}) can't be used: {missing}")
        import torch

        _declared = _Declared(spec, origin, torch.device("cpu"))
        _device = torch.device("cpu")
        return
    missing = _missing(spec)
    if missing is not None:
        raise DeviceError(f"`{spec.text}` (declared by {origin}) can't be used: {missing}")
    import torch

    index = spec.numbers[0] if spec.numbers else None
    declared = torch.device(spec.kind, index) if index is not None else torch.device(spec.kind)
    _declared = _Declared(spec, origin, declared)
    _device = declared


def declare_worker(text: str, device: torch.device) -> None:
    """In a worker of a program on several devices: the devices are `text`, and this
    worker's tensors are on `device`."""
    global _declared, _device
    _declared = _Declared(parse_devices(text), "the controller", device)
    _device = device


def devices(text: str) -> None:
    """Declare the devices from Python, with the text of a devices line: "cpu", "cuda[0]"."""
    caller = sys._getframe(1)
    origin = f'shapescript.devices("{text}") at {caller.f_code.co_filename}:{caller.f_lineno}'
    declare_devices(text, origin)


def _not_declared() -> DeviceError:
    return DeviceError(f"no devices have been declared: {HOW_TO_DECLARE}")


def device() -> torch.device:
    """The declared device; DeviceError when none has been declared."""
    current = _device
    if current is None:
        raise _not_declared()
    return current


def declared() -> str | None:
    """The declared devices' text, such as `cuda[0]`, or None."""
    return None if _declared is None else _declared.spec.text


def _reset_for_tests() -> None:
    """Forget the declared devices (tests only: a program declares them once)."""
    global _declared, _device
    _declared = None
    _device = None
