"""The notebook's Python variables, as the checker sees them while it checks a cell."""

from __future__ import annotations

from contextvars import ContextVar

#: Names the checker takes as Python values when nothing else has them (a notebook's
#: variables); empty outside a notebook.
PYTHON_NAMES: ContextVar[frozenset[str]] = ContextVar("PYTHON_NAMES", default=frozenset())
