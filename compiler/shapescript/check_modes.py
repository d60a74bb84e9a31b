"""The names of the check modes, shared by the runtime and the command line.

Kept apart from `shapescript.rt` so that `shapescript check`, which builds the whole
command line, never loads the runtime.
"""

from __future__ import annotations

MODES = ("always", "debug", "never")
ALIASES = {"off": "never"}
DEFAULT_CHECKS = "always"
DEFAULT_VALUE_CHECKS = "debug"


def normalize(mode: str, option: str = "checks") -> str:
    """The mode's canonical name; ValueError naming the valid ones for anything else."""
    if isinstance(mode, str):
        canonical = ALIASES.get(mode, mode)
        if canonical in MODES:
            return canonical
    valid = ", ".join(MODES)
    raise ValueError(f"{option} must be one of {valid} (or off for never), not {mode!r}")
