"""One mistake, one diagnostic (issue 31, item 1): changing a dim's size in an example may
make that size not fit (E0305, E0402, ...), but never says a name that exists is unknown
(E0301, E0302) somewhere else.

Each example's integer dims are changed one at a time, to the value plus 2 (which breaks
the divisions and shapes built on it); about 26 checks, a few seconds in all.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: A dim given as a number, on a line of its own.
_DIM = re.compile(r"^dim (\w+) = (\d+)[ \t]*$", re.MULTILINE)
#: Names said to be unknown (or undefined) where a changed size can't be the reason.
UNKNOWN_NAME_CODES = frozenset({"E0301", "E0302"})


def _checked(path: Path, text: str):
    return check_source(SourceFile.from_text(str(path), text), search_path=[str(EXAMPLES)])


def _changed_dims(text: str) -> list[tuple[str, str]]:
    """Each integer dim's name and the text with its value raised by 2."""
    return [
        (
            match.group(1),
            text[: match.start(2)] + str(int(match.group(2)) + 2) + text[match.end(2) :],
        )
        for match in _DIM.finditer(text)
    ]


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.ss")), ids=lambda path: path.stem)
def test_changing_a_dim_names_no_unknown_name(path: Path):
    text = path.read_text(encoding="utf-8")
    assert not [d for d in _checked(path, text).diagnostics if d.code in UNKNOWN_NAME_CODES]
    found = []
    for name, changed in _changed_dims(text):
        for diagnostic in _checked(path, changed).diagnostics:
            if diagnostic.code in UNKNOWN_NAME_CODES:
                line = changed.count("\n", 0, diagnostic.span.start) + 1
                found.append(
                    f"dim {name} changed: {diagnostic.code} line {line}: {diagnostic.message}"
                )
    assert found == []


def test_the_examples_have_dims_to_change():
    """The property above is only worth something if most examples give it dims."""
    counts = [len(_DIM.findall(path.read_text(encoding="utf-8"))) for path in EXAMPLES.glob("*.ss")]
    assert sum(counts) >= 20
