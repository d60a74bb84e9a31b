"""The compiler's version, in a module of its own so the checker can read it without
importing the package's lazily loaded public names."""

from __future__ import annotations

__version__ = "0.1.0"
