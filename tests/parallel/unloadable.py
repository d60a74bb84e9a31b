"""A dataset that the workers can't load (for the test of an error in what is sent ahead
of a call)."""

from __future__ import annotations

import os

import torch


class Unloadable:
    """Eight labelled examples of 784 features that fail to unpickle on a worker."""

    def __init__(self) -> None:
        generator = torch.Generator().manual_seed(0)
        images = torch.rand(8, 784, generator=generator)
        labels = torch.randint(0, 10, (8,), generator=generator)
        self.items = [{"img": images[i], "label": labels[i]} for i in range(8)]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        return self.items[index]

    def __setstate__(self, state: dict) -> None:
        if os.environ.get("SHAPESCRIPT_WORKER") is not None:
            raise RuntimeError("this dataset can't be loaded on a worker")
        self.__dict__.update(state)
