"""The two arithmetics the reference run computes in: exact (numpy object arrays of
mpmath numbers at a chosen precision) and float32 (numpy, for the op-by-op trace)."""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np


class Arithmetic:
    """Elementwise functions and conversions for one kind of array."""

    name = ""

    def array(self, value: Any) -> np.ndarray:
        raise NotImplementedError

    def unary(self, function: str, value: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def scalar(self, value: float) -> Any:
        raise NotImplementedError


class Exact(Arithmetic):
    """mpmath numbers in object arrays; `digits` significant decimal digits."""

    name = "exact"

    def __init__(self, digits: int) -> None:
        self.context = mpmath.mp.clone()
        self.context.dps = digits

    def scalar(self, value: float) -> Any:
        return self.context.mpf(value)

    def array(self, value: Any) -> np.ndarray:
        plain = np.asarray(value)
        if plain.dtype == bool or plain.dtype.kind in "iu":
            return plain.astype(np.int64) if plain.dtype != bool else plain
        flat = [self.context.mpf(float(item)) for item in plain.reshape(-1)]
        return np.array(flat + [None], dtype=object)[:-1].reshape(plain.shape)

    def unary(self, function: str, value: np.ndarray) -> np.ndarray:
        context = self.context
        functions = {
            "exp": context.exp,
            "log": _guarded(context, context.log),
            "sqrt": _guarded(context, context.sqrt),
            "tanh": context.tanh,
            "erf": context.erf,
            "sigmoid": lambda x: 1 / (1 + context.exp(-x)),
            "abs": abs,
        }
        apply = functions[function]
        data = np.asarray(value, dtype=object)
        out = np.empty(data.shape, dtype=object)
        for index in np.ndindex(data.shape):
            out[index] = apply(context.mpf(data[index]))
        return out


def _guarded(context: Any, function: Any) -> Any:
    """The function, with NaN for an argument below 0 and -inf for log(0)."""

    def apply(x: Any) -> Any:
        if x < 0:
            return context.nan
        if x == 0 and function is context.log:
            return context.ninf
        return function(x)

    return apply


class Float32(Arithmetic):
    """numpy float32: what one op computes in f32, for the trace."""

    name = "f32"

    def scalar(self, value: float) -> Any:
        return np.float32(value)

    def array(self, value: Any) -> np.ndarray:
        plain = np.asarray(value)
        if plain.dtype == bool or plain.dtype.kind in "iu":
            return plain
        return np.array([float(item) for item in plain.reshape(-1)], dtype=np.float32).reshape(
            plain.shape
        )

    def unary(self, function: str, value: np.ndarray) -> np.ndarray:
        data = np.asarray(value, dtype=np.float32)
        with np.errstate(all="ignore"):
            if function == "erf":
                return np.vectorize(math.erf, otypes=[np.float32])(data)
            if function == "sigmoid":
                return (1 / (1 + np.exp(-data))).astype(np.float32)
            return getattr(np, function)(data).astype(np.float32)
