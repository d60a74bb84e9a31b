"""Check modes: when the argument and shape checks, and the value checks, run.

`always` runs them even under `python -O`, `debug` unless Python runs with `-O` (the
generator puts them under `if __debug__:`), and `never` doesn't generate them (`off` is
accepted for `never`). The defaults are `checks="always"` and `value_checks="debug"`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from shapescript.check_modes import (  # noqa: F401 - re-exported
    ALIASES,
    DEFAULT_CHECKS,
    DEFAULT_VALUE_CHECKS,
    MODES,
    normalize,
)


@dataclass(frozen=True, slots=True)
class CheckModes:
    """The modes a module is compiled with."""

    checks: str = DEFAULT_CHECKS
    value_checks: str = DEFAULT_VALUE_CHECKS

    @classmethod
    def of(cls, checks: str, value_checks: str) -> CheckModes:
        return cls(normalize(checks, "checks"), normalize(value_checks, "value_checks"))

    def cache_key(self) -> str:
        """The modes and Python's -O level, which decide what compiled code contains."""
        return f"{self.checks}-{self.value_checks}-O{sys.flags.optimize}"


_installed = CheckModes()


def install(checks: str = DEFAULT_CHECKS, value_checks: str = DEFAULT_VALUE_CHECKS) -> CheckModes:
    """Set the modes the import hook compiles with (both are checked before either is set)."""
    global _installed
    _installed = CheckModes.of(checks, value_checks)
    return _installed


def installed() -> CheckModes:
    """The modes `install()` set last, or the defaults."""
    return _installed


def resolve(checks: str | None, value_checks: str | None) -> CheckModes:
    """Modes for one compilation: those given, else the installed ones."""
    return CheckModes.of(
        _installed.checks if checks is None else checks,
        _installed.value_checks if value_checks is None else value_checks,
    )
