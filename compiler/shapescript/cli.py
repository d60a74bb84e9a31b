"""The `shapescript` console script's target (pyproject.toml): the command line itself is
`shapescript.commands.entry`."""

from __future__ import annotations

from shapescript.commands.entry import main

__all__ = ["main"]
