"""Paths as the command line prints them: control characters escaped, so a file's name
can't set the terminal's title, clear the screen or forge a line of output."""

from __future__ import annotations

import os
import re

#: C0 controls, DEL, C1 controls, and the marks that reorder or hide text (bidi overrides
#: and isolates, zero-width characters, the line and paragraph separators).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(path: str | os.PathLike[str]) -> str:
    """`path` with each control character written as a `\\xNN` or `\\uNNNN` escape.

    Only for text meant for people; JSON output keeps paths exact."""
    return _UNSAFE.sub(_escape, os.fspath(path))
