"""rearrange, split and einsum patterns applied to arrays of any element kind."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from shapescript.syntax import ast


def _side_keys(side: ast.PatternSide) -> list[list[str]]:
    """Each axis of a side as the list of its elementary axes' keys (an int is `#k`)."""
    axes: list[list[str]] = []
    for axis in side.axes:
        items = axis.items if isinstance(axis, ast.PatternGroup) else [axis]
        keys = []
        for item in items:
            if isinstance(item, ast.PatternName):
                keys.append(item.name)
            elif isinstance(item, ast.PatternInt):
                keys.append(f"#{item.value}")
            else:
                raise ValueError("a grouped size in a pattern")
        axes.append(keys)
    return axes


def _elementary(
    array: np.ndarray, axes: list[list[str]], sizes: dict[str, int]
) -> tuple[np.ndarray, list[str]]:
    """The array reshaped so that each elementary axis of the side is its own axis."""
    if array.ndim != len(axes):
        raise ValueError("the pattern's rank isn't the operand's")
    shape: list[int] = []
    keys: list[str] = []
    for size, group in zip(array.shape, axes, strict=True):
        known = {key: _size(key, sizes) for key in group}
        unknown = [key for key, value in known.items() if value is None]
        if len(group) == 1:
            known[group[0]] = size
        elif len(unknown) == 1:
            rest = math.prod(value for value in known.values() if value is not None)
            known[unknown[0]] = size // rest
        elif unknown:
            raise ValueError("a group with more than one unknown size")
        for key in group:
            sizes.setdefault(key, known[key])
            shape.append(int(known[key]))
            keys.append(key)
    return array.reshape(shape), keys


def _size(key: str, sizes: dict[str, int]) -> int | None:
    return int(key[1:]) if key.startswith("#") else sizes.get(key)


def rearrange(array: np.ndarray, pattern: ast.Pattern, sizes: dict[str, int]) -> Any:
    """rearrange (or split, when an axis of the input isn't in the output: one result per
    position along it, as a tuple)."""
    sizes = dict(sizes)
    data, keys = _elementary(array, _side_keys(pattern.inputs[0]), sizes)
    out_axes = _side_keys(pattern.output)
    out_keys = [key for group in out_axes for key in group]
    missing = [key for key in keys if key not in out_keys]
    if len(missing) > 1 or any(key not in keys for key in out_keys):
        raise ValueError("a pattern that adds axes or drops more than one")
    order = [keys.index(key) for key in missing + out_keys]
    data = data.transpose(order)
    shape = [math.prod(data.shape[len(missing) + out_keys.index(k)] for k in g) for g in out_axes]
    if missing:
        return tuple(part.reshape(shape) for part in data)
    return data.reshape(shape)


def einsum(arrays: list[np.ndarray], pattern: ast.Pattern) -> np.ndarray:
    """einsum with the pattern's names as letters."""
    letters: dict[str, str] = {}

    def spell(side: ast.PatternSide) -> str:
        text = ""
        for group in _side_keys(side):
            if len(group) != 1:
                raise ValueError("a group in an einsum pattern")
            letters.setdefault(group[0], chr(ord("a") + len(letters)))
            text += letters[group[0]]
        return text

    inputs = ",".join(spell(side) for side in pattern.inputs)
    return np.einsum(f"{inputs}->{spell(pattern.output)}", *arrays)
