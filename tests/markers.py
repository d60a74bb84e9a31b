"""Expected-diagnostic markers in `.ss` test files.

`x + y  # E0404` expects E0404 on that line; a line `#^ E0102` expects it on the line above
and `#v H0601` on the line below (for lines where a trailing comment would change the code,
such as a doc comment). Several codes: `# E0401, E0404`.
"""

from __future__ import annotations

import re
from collections import Counter

_TRAILING = re.compile(r"#\s*((?:[EWH]\d{4})(?:\s*,\s*[EWH]\d{4})*)\s*$")
_BELOW = re.compile(r"^\s*#\^\s*((?:[EWH]\d{4})(?:\s*,\s*[EWH]\d{4})*)\s*$")
_ABOVE = re.compile(r"^\s*#v\s*((?:[EWH]\d{4})(?:\s*,\s*[EWH]\d{4})*)\s*$")


def _codes(group: str) -> list[str]:
    return [code.strip() for code in group.split(",")]


def expected_markers(text: str) -> Counter[tuple[int, str]]:
    """The (1-based line, code) pairs a test file expects, with multiplicity."""
    expected: Counter[tuple[int, str]] = Counter()
    last_code_line = 0
    pending: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        above = _ABOVE.match(line)
        if above:
            pending.extend(_codes(above.group(1)))
            continue
        if pending and line.strip():
            for code in pending:
                expected[(number, code)] += 1
            pending = []
        below = _BELOW.match(line)
        if below:
            for code in _codes(below.group(1)):
                expected[(last_code_line, code)] += 1
            continue
        trailing = _TRAILING.search(line)
        if trailing:
            for code in _codes(trailing.group(1)):
                expected[(number, code)] += 1
        if line.strip():
            last_code_line = number
    return expected
