"""Checking a small program and reading its model's architecture, for the tests."""

from __future__ import annotations

import textwrap

from shapescript.analysis import check
from shapescript.architecture import architecture
from shapescript.architecture.nodes import Architecture, Node, walk
from shapescript.syntax.source import SourceFile

HEADER = """\
dim D = 8
dim Hd = 16
dim C = 4
dim V = 32
dim L = 3
"""


def read(source: str, model: str = "M", detail: str = "layers") -> Architecture:
    """The architecture of `model` in the program (after the usual dims), checked clean."""
    text = HEADER + textwrap.dedent(source)
    checked = check(SourceFile.from_text("case.ss", text))
    assert not checked.errors, [error.message for error in checked.errors]
    found = architecture(checked, model, detail)
    assert found is not None
    return found


def boxes(found: Architecture, section: int = 0) -> list[Node]:
    """Every box of one section, frames' boxes included, but not its inputs and output."""
    return [
        node for node in walk(found.sections[section].nodes) if node.kind not in ("input", "output")
    ]
