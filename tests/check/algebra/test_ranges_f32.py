"""Rounding range ends outward to f32 without numpy agrees with numpy's f32."""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest

from shapescript.check.algebra import ranges


def numpy_down(value: float) -> float:
    single = float(np.float32(value))
    if single <= value:
        return single
    return float(np.nextafter(np.float32(value), np.float32(-math.inf)))


def numpy_up(value: float) -> float:
    single = float(np.float32(value))
    if single >= value:
        return single
    return float(np.nextafter(np.float32(value), np.float32(math.inf)))


def test_rounding_agrees_with_numpy() -> None:
    rng = random.Random(7)
    values = [rng.uniform(-1, 1) * 10 ** rng.uniform(-50, 38.5) for _ in range(20_000)]
    values += [1e-46, -1e-46, 2.0**-149, -(2.0**-149), 0.1, -0.1, 1 / 3, ranges.F32_MAX]
    for value in values:
        assert ranges._down(value) == numpy_down(value), value
        assert ranges._up(value) == numpy_up(value), value


@pytest.mark.parametrize("value", [1e39, 18446744073709551615.0**3, 1e300])
def test_past_f32_rounds_outward_to_infinity_without_warnings(value: float) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ranges._up(value) == math.inf
        assert ranges._down(value) == ranges.F32_MAX
        assert ranges._down(-value) == -math.inf
        assert ranges._up(-value) == -ranges.F32_MAX
