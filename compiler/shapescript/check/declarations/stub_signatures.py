"""A prelude stub's declaration as one line, `fn layer_norm(x: [... D], ...) -> [... D]`,
for messages and the built-ins page."""

from __future__ import annotations

import re

_TARGET = re.compile(r'\s*=\s*"[^"]*"\s*$')
_OPEN = re.compile(r"^fn (\w+)\(\s+")


def one_line(detail: str) -> str:
    """`Symbol.detail` of a stub (its source, whitespace folded) without `extern`, the
    Python target and the trailing comma of a parameter per line."""
    text = _TARGET.sub("", detail).removeprefix("extern ")
    return _OPEN.sub(r"fn \1(", text).replace(", )", ")")
