"""The scan for a line importing a `.ss` file answers as a multiline pattern over the
text does."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from shapescript_lsp.dependents import imports_a_file

WHOLE_TEXT = re.compile(r"^import\s+(?!python\b)\w", re.M)
PIECES = [
    "import attention",
    "import python torch",
    "import\n  layers",
    "import  pythonic",
    " import x",
    "# import y",
    "import",
    "python",
    "\n",
    "\r\n",
    " ",
    "\t",
    "x",
    "fn f() = 1",
    "é",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=20))
def test_the_scan_answers_as_the_pattern(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert imports_a_file(text) == (WHOLE_TEXT.search(text) is not None)


def test_an_import_of_a_file_is_found_and_a_python_one_is_not() -> None:
    assert imports_a_file("dim D = 4\nimport attention\n")
    assert not imports_a_file("import python torch\nfn f() = 1\n")
    assert not imports_a_file("x = 1  # import y\n")
