"""ShapeScript: tensor programs whose shapes are checked before they run."""

from __future__ import annotations

__version__ = "0.1.0"
