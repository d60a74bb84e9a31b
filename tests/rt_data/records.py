"""Data records as the code generator compiles them, and datasets for the loader's tests.

The datasets live here, not in the tests, so that loader worker processes can import them.
"""

from __future__ import annotations

import os
import time
from typing import Any

import torch

from shapescript.rt.data import Record, RecordField

D, C = 784, 10


class Digit(Record):
    """One labelled image."""

    _ss_name = "Digit"
    _ss_fields = (
        RecordField("img", (D,), "f32", "mnist.ss:8:5", "[D]"),
        RecordField(
            "label",
            (),
            "i64",
            "mnist.ss:9:5",
            "[] Index[C]",
            lambda v: (v < 0) | (v >= C),
            "indices in 0..10",
        ),
    )


class Pair(Record):
    """Two small fields of other dtypes."""

    _ss_name = "Pair"
    _ss_fields = (
        RecordField("x", (2,), "f64", "pair.ss:3:5", "[2] f64"),
        RecordField("flag", (), "bool", "pair.ss:4:5", "[] bool"),
    )


class Value(Record):
    """A record with one field."""

    _ss_name = "Value"
    _ss_fields = (RecordField("v", (3,), "f32", "value.ss:2:5", "[3]"),)


class Digits(torch.utils.data.Dataset):
    """`count` digits as (img, label) tuples; item `bad`'s image is one value short."""

    def __init__(self, count: int, bad: int | None = None, seed: int = 0) -> None:
        generator = torch.Generator().manual_seed(seed)
        self.images = torch.randn(count, D, generator=generator)
        self.labels = torch.randint(0, C, (count,), generator=generator)
        self.bad = bad

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, index: int) -> Any:
        image = self.images[index]
        if index == self.bad:
            image = image[:-1]
        return image, int(self.labels[index])


class Dying(Digits):
    """A dataset whose item `fatal` ends the process that loads it."""

    def __init__(self, count: int, fatal: int) -> None:
        super().__init__(count)
        self.fatal = fatal

    def __getitem__(self, index: int) -> Any:
        if index == self.fatal:
            os._exit(3)
        return super().__getitem__(index)


class Blocking(Digits):
    """A dataset whose item `stuck` never comes back (its `__getitem__` sleeps for an hour)."""

    def __init__(self, count: int, stuck: int) -> None:
        super().__init__(count)
        self.stuck = stuck

    def __getitem__(self, index: int) -> Any:
        if index == self.stuck:
            time.sleep(3600)
        return super().__getitem__(index)
