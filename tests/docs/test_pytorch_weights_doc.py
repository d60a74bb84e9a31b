"""docs/pytorch-weights.md tells an outsider which names are the library's and which the
example's own, so a port written from the page alone calls the right functions."""

from __future__ import annotations

import re
from pathlib import Path

from shapescript.check.declarations.builtin_table import BUILTINS
from tests.docs.doc_blocks import errors_of, shapescript_blocks

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "pytorch-weights.md").read_text(encoding="utf-8")
EXAMPLE = (ROOT / "examples" / "gpt2_hf.ss").read_text(encoding="utf-8")
LIBRARY = [
    ROOT / "compiler" / "shapescript" / "prelude.ss",
    ROOT / "compiler" / "shapescript" / "nn.ss",
]

_FN = re.compile(r"^(?:extern\s+)?fn\s+(\w+)", re.MULTILINE)


def _library_names() -> set[str]:
    declared = {name for path in LIBRARY for name in _FN.findall(path.read_text("utf-8"))}
    return declared | set(BUILTINS)


def test_the_example_defines_no_function_named_like_a_library_function() -> None:
    own = set(_FN.findall(EXAMPLE))
    assert own & _library_names() == set()


def test_the_page_gives_gelu_new_as_the_examples_own_definition() -> None:
    definition = re.search(r"^fn gelu_new\(.*\n\s+return .*$", EXAMPLE, re.MULTILINE)
    assert definition is not None
    body = definition.group().split("return ", 1)[1]
    assert body in PAGE
    assert "`gelu` is exact GELU" in PAGE


def test_the_pages_snippets_call_no_example_function_named_like_a_library_one() -> None:
    own = set(_FN.findall(EXAMPLE))
    snippets = re.findall(r"```shapescript\n(.*?)```", PAGE, re.DOTALL)
    called = {name for snippet in snippets for name in re.findall(r"\b(\w+)\(", snippet)}
    assert called & own & _library_names() == set()


def _whole_program() -> str:
    assert "## The whole program" in PAGE
    section = PAGE.split("## The whole program", 1)[1]
    return shapescript_blocks(section)[0]


def test_the_page_shows_the_whole_example_program() -> None:
    assert _whole_program() == EXAMPLE


def test_the_pages_whole_program_checks() -> None:
    assert errors_of(_whole_program(), "gpt2_hf.ss") == []
