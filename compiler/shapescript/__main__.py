"""`python -m shapescript`: the same command line as the `shapescript` script."""

from __future__ import annotations

from shapescript.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
