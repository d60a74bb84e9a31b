"""Checksums of a checkpoint's contents: CRC-32 of each tensor's bytes, and of a text that
describes everything else (the metadata), so a damaged file is found when it's loaded.

CRC-32 (zlib's) is a check against damage, not against tampering: a file that is changed
on purpose can be given matching sums. It runs at memory speed, several times faster
than SHA-256 on the same bytes.
"""

from __future__ import annotations

import zlib
from typing import Any

import torch

#: A tensor's place in the checkpoint: the keys and indices that lead to it.
TensorPath = tuple[Any, ...]


def tensor_checksum(tensor: torch.Tensor) -> int:
    """CRC-32 of the tensor's elements' bytes, in row-major order, on the CPU."""
    flat = tensor.detach().cpu().contiguous().reshape(-1)
    if flat.numel() == 0:
        return zlib.crc32(b"")
    return zlib.crc32(flat.view(torch.uint8).numpy())


def metadata_checksum(metadata: str) -> int:
    return zlib.crc32(metadata.encode("utf-8", "surrogatepass"))


def _token(value: Any) -> str:
    """One leaf of the description: its type and its exact value."""
    if isinstance(value, torch.Tensor):
        return f"tensor {str(value.dtype).removeprefix('torch.')} {list(value.shape)}"
    if value is None or isinstance(value, bool | int | float | str):
        return f"{type(value).__name__} {value!r}"
    return f"object {type(value).__name__}"


def metadata_and_tensors(value: Any) -> tuple[str, list[tuple[TensorPath, torch.Tensor]]]:
    """A text describing `value` with each tensor as its dtype and shape, and the tensors
    with their paths, both in the order the containers hold them.

    Walks with a stack of its own, so a file nested deeper than Python's recursion limit
    is described like any other."""
    lines: list[str] = []
    tensors: list[tuple[TensorPath, torch.Tensor]] = []
    stack: list[tuple[TensorPath, Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _Key):
            lines.append(f"key {_token(item.key)}")
            continue
        if isinstance(item, dict):
            lines.append(f"dict {len(item)}")
            children = [(path + (key,), key, child) for key, child in item.items()]
        elif isinstance(item, list | tuple):
            lines.append(f"{type(item).__name__} {len(item)}")
            children = [(path + (index,), None, child) for index, child in enumerate(item)]
        else:
            lines.append(_token(item))
            if isinstance(item, torch.Tensor):
                tensors.append((path, item))
            continue
        # Pushed in reverse, so they come off the stack in order; a key is written
        # just before its value's description.
        for child_path, key, child in reversed(children):
            stack.append((child_path, child))
            if isinstance(item, dict):
                stack.append(((), _Key(key)))
    return "\n".join(lines), tensors


class _Key:
    """A dict's key in the walk: written as a line of its own, never descended into."""

    __slots__ = ("key",)

    def __init__(self, key: Any) -> None:
        self.key = key
