"""Small synthetic datasets and a sink that keeps its rows, for the training tests.

Datasets live in a module of their own so that loader worker processes can unpickle them.
"""

from __future__ import annotations

import torch


class ListDigits:
    """`count` labelled examples of 784 features as a list of dicts, a map-style dataset."""

    def __init__(self, count: int, seed: int = 0) -> None:
        generator = torch.Generator().manual_seed(seed)
        images = torch.rand(count, 784, generator=generator)
        labels = torch.randint(0, 10, (count,), generator=generator)
        self.items = [{"img": images[i], "label": labels[i]} for i in range(count)]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return self.items[index]


class ListSink:
    """A sink that keeps every record written to it and counts its flushes."""

    def __init__(self) -> None:
        self.rows: list[dict] = []
        self.flushes = 0

    def write(self, record: dict) -> None:
        self.rows.append(dict(record))

    def flush(self) -> None:
        self.flushes += 1
