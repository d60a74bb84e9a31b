"""The scan for `import python` lines finds what a multiline pattern over the text finds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from shapescript_lsp.features.python_members import python_imports

WHOLE_TEXT = re.compile(r"^[ \t]*import[ \t]+python[ \t]+([\w.]+)", re.MULTILINE)
PIECES = [
    "import python torch",
    "import python numpy.linalg",
    "import  python\tx.y",
    " \timport python a",
    "# import python no",
    "python",
    "import",
    "import python",
    " ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "x",
    ".",
    "é",
    "fn f() = 1",
]


def expected(text: str) -> tuple[str, ...]:
    return tuple(match.group(1) for match in WHOLE_TEXT.finditer(text))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_the_scan_finds_what_the_pattern_finds(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert python_imports(text) == expected(text)


def test_several_imports_in_order() -> None:
    text = "dim D = 4\nimport python torch\n  import python numpy.fft\nx = python\n"
    assert python_imports(text) == ("torch", "numpy.fft")
    assert python_imports("no imports here") == ()
