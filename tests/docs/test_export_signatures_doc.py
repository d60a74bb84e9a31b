"""docs/running.md gives the Python export functions' parameters, so someone with only the
site can call them; the listing must be the functions' own signatures."""

from __future__ import annotations

import ast
import inspect
import re

import pytest

import shapescript
from shapescript.export.api import export
from tests.docs.doc_blocks import ROOT, fenced_blocks

PAGE = ROOT / "docs" / "running.md"
FUNCTIONS = {
    "export": export,
    "export_hf": shapescript.export_hf,
    "export_gguf": shapescript.export_gguf,
}


def _documented() -> dict[str, ast.arguments]:
    """Each `shapescript.NAME(...)` of the page's listing, parsed as a def's parameters."""
    text = PAGE.read_text(encoding="utf-8")
    line = text[: text.index("From Python, the three forms")].count("\n") + 1
    listing = next(
        block.text
        for block in fenced_blocks(PAGE)
        if block.line > line and block.language == "python"
    )
    calls = re.findall(r"^shapescript\.(\w+)\((.*?)\)\n", listing, re.MULTILINE | re.DOTALL)
    return {
        name: ast.parse(f"def f({' '.join(parameters.split())}): pass").body[0].args
        for name, parameters in calls
    }


def _described(arguments: ast.arguments) -> list[tuple[str, str, object]]:
    """(kind, name, default) of each parameter of a parsed def."""
    positional = arguments.args
    firsts = [None] * (len(positional) - len(arguments.defaults))
    rows = [
        ("positional", parameter.arg, _value(default))
        for parameter, default in zip(positional, firsts + arguments.defaults, strict=True)
    ]
    rows += [
        ("keyword", parameter.arg, _value(default))
        for parameter, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    ]
    return rows


def _value(node: ast.expr | None) -> object:
    return inspect.Parameter.empty if node is None else ast.literal_eval(node)


def _actual(function: object) -> list[tuple[str, str, object]]:
    kinds = {inspect.Parameter.KEYWORD_ONLY: "keyword"}
    return [
        (kinds.get(parameter.kind, "positional"), parameter.name, parameter.default)
        for parameter in inspect.signature(function).parameters.values()
    ]


def test_the_page_lists_every_export_function() -> None:
    assert sorted(_documented()) == sorted(FUNCTIONS)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_listed_signature_is_the_functions_own(name: str) -> None:
    assert _described(_documented()[name]) == _actual(FUNCTIONS[name])
