"""Entry point of `shapescript-lsp` and `python -m shapescript_lsp`."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """The language server isn't built yet; say so instead of failing obscurely."""
    del argv
    print("shapescript-lsp: the language server is not implemented yet", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
