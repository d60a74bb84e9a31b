"""Outward rounding to f32 with the standard library gives what numpy's float32 gives."""

from __future__ import annotations

import math
import random
import struct

import pytest

from shapescript.check.algebra.ranges import Interval, _down, _up

F32_MAX = 3.4028234663852886e38
F32_TINY = 2.0**-149


def _samples() -> list[float]:
    chosen = random.Random(10)
    values = [
        0.1, -0.1, 1 / 3, -1 / 3, 1e39, -1e39, F32_MAX, -F32_MAX, F32_MAX * (1 + 2**-30),
        1e-50, -1e-50, F32_TINY, -F32_TINY, F32_TINY / 2, 2.0**-126, 1.17549435e-38, 0.17,
    ]  # fmt: skip
    for _ in range(20000):
        magnitude = chosen.random() * 2.0 ** chosen.uniform(-160, 130)
        values.append(magnitude if chosen.random() < 0.5 else -magnitude)
    return values


def test_known_values() -> None:
    assert _down(0.1) == 0.09999999403953552
    assert _up(0.1) == 0.10000000149011612
    assert _down(1.0) == _up(1.0) == 1.0
    assert _down(1e39) == F32_MAX and _up(1e39) == math.inf
    assert _up(-1e39) == -F32_MAX and _down(-1e39) == -math.inf
    assert _down(1e-50) == 0.0 and _up(1e-50) == F32_TINY
    assert _down(-1e-50) == -F32_TINY
    assert _down(-math.inf) == -math.inf and _up(math.inf) == math.inf
    assert str(Interval.make(-0.17, 0.1)) == "[-0.17, 0.1]"


def test_outward_and_exact_in_f32() -> None:
    for value in _samples():
        low, high = _down(value), _up(value)
        assert low <= value <= high
        for rounded in (low, high):
            if not math.isinf(rounded):
                assert struct.unpack("<f", struct.pack("<f", rounded))[0] == rounded


def test_matches_numpy() -> None:
    np = pytest.importorskip("numpy")

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

    with np.errstate(over="ignore"):
        for value in _samples():
            for ours, theirs in ((_down(value), numpy_down(value)), (_up(value), numpy_up(value))):
                assert ours == theirs and math.copysign(1, ours) == math.copysign(1, theirs)
