"""`%%shapescript` cells in Jupyter: `%load_ext shapescript` calls `load_ipython_extension`."""

from __future__ import annotations

from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    """Register the `%%shapescript` cell magic (what `%load_ext shapescript` runs)."""
    from shapescript.notebook.magic import register

    register(ipython)
