"""A synthetic in-memory dataset of digits for the training-loop benchmark.

It lives in a module of its own so that loader worker processes, which never import the
benchmark's main module, can unpickle it.
"""

from __future__ import annotations

import torch


class SyntheticDigits(torch.utils.data.Dataset):
    """`count` examples of `features` floats and a label below `classes`, as dicts."""

    def __init__(self, count: int, features: int = 784, classes: int = 10, seed: int = 0) -> None:
        generator = torch.Generator().manual_seed(seed)
        self.images = torch.rand(count, features, generator=generator)
        self.labels = torch.randint(0, classes, (count,), generator=generator)

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return {"img": self.images[index], "label": self.labels[index]}
