"""The two arithmetics the reference run computes in: exact (numpy object arrays of
mpmath numbers at a chosen precision) and float32 (numpy, for the op-by-op trace)."""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np

#: Each float dtype's significand bits (with the implicit one) and exponent range.
FLOAT_FORMATS = {
    "f64": (53, -1022, 1023),
    "f32": (24, -126, 127),
    "bf16": (8, -126, 127),
    "f16": (11, -14, 15),
}
#: Each integer dtype's numpy type, whose wrapping is torch's for integers out of range.
INT_TYPES = {"u8": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}


class Arithmetic:
    """Elementwise functions and conversions for one kind of array."""

    name = ""

    def convert(self, value: np.ndarray, dtype: str) -> np.ndarray:
        """`value to dtype` as torch converts: floats to nearest (ties to even), toward zero
        to integers, and `!= 0` to bool."""
        raise NotImplementedError

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

    def convert(self, value: np.ndarray, dtype: str) -> np.ndarray:
        data = np.asarray(value)
        if dtype == "bool":
            return np.asarray(data != 0, dtype=bool)
        if dtype in INT_TYPES:
            if data.dtype != object:
                return data.astype(INT_TYPES[dtype]).astype(np.int64)
            # Out of i64's range torch's result is undefined; wrapping keeps the run going.
            whole = [(self._toward_zero(item) + 2**63) % 2**64 - 2**63 for item in data.reshape(-1)]
            wrapped = np.array(whole, dtype=np.int64).astype(INT_TYPES[dtype])
            return wrapped.astype(np.int64).reshape(data.shape)
        bits, lowest, highest = FLOAT_FORMATS[dtype]
        out = np.empty(data.shape, dtype=object)
        for index in np.ndindex(data.shape):
            number = self.context.mpf(int(data[index]) if data.dtype != object else data[index])
            out[index] = self._rounded(number, bits, lowest, highest)
        return out

    def _toward_zero(self, x: Any) -> int:
        if not self.context.isfinite(x):
            raise ValueError(f"{x} has no integer value")
        return int(self.context.floor(x) if x >= 0 else self.context.ceil(x))

    def _rounded(self, x: Any, bits: int, lowest: int, highest: int) -> Any:
        """x to the nearest number of `bits` significant bits (ties to the even one), with
        subnormals below 2**lowest and infinity past the largest finite number."""
        context = self.context
        if x == 0 or not context.isfinite(x):
            return x
        _, exponent = context.frexp(x)
        step = context.ldexp(1, max(int(exponent) - 1, lowest) - bits + 1)
        steps = x / step
        whole = context.floor(steps)
        rest = steps - whole
        if rest > 0.5 or (rest == 0.5 and int(whole) % 2 == 1):
            whole += 1
        rounded = whole * step
        largest = (2 - context.ldexp(1, 1 - bits)) * context.ldexp(1, highest)
        if abs(rounded) > largest:
            return context.inf if x > 0 else context.ninf
        return rounded


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

    def convert(self, value: np.ndarray, dtype: str) -> np.ndarray:
        data = np.asarray(value)
        if dtype == "bool":
            return np.asarray(data != 0, dtype=bool)
        if dtype in INT_TYPES:
            with np.errstate(all="ignore"):
                whole = np.trunc(data) if data.dtype.kind == "f" else data
                return whole.astype(np.int64).astype(INT_TYPES[dtype]).astype(np.int64)
        floats = data.astype(np.float32)
        if dtype == "f16":
            return floats.astype(np.float16).astype(np.float32)
        if dtype == "bf16":
            import torch

            return torch.from_numpy(floats).to(torch.bfloat16).to(torch.float32).numpy()
        return floats
