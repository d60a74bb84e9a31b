"""One mistake, one diagnostic (issue 31, item 1): changing a dim's size or an axis of a
signature in an example may make shapes not fit (E0305, E0402, ...), but never says a name
that exists is unknown (E0301, E0302) somewhere else.

Each example's integer dims are changed one at a time, to the value plus 2 (which breaks
the divisions and shapes built on it). Each axis written in a function's parameter types is
changed, one at a time, to another axis of the same signature (which breaks the shapes of
the body and of the calls). A few seconds in all.
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
#: A function's parameter list, on its `fn` line.
_SIGNATURE = re.compile(r"^(?:export )?fn \w+\((.*?)\)\s*->", re.MULTILINE)
#: A tensor type's brackets (not a type argument, `Index[V]`), and an axis name in them
#: (dims are capitalised in the examples).
_BRACKETS = re.compile(r"(?<![\w\]])\[([^\[\]]*)\]")
_AXIS = re.compile(r"\b[a-z]\w*\b")
#: A name declared at the top of a file.
_DECLARED = re.compile(r"^(?:export )?(?:dim|fn|model|data|record|logs) (\w+)", re.MULTILINE)
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


def _changed_axes(text: str) -> list[tuple[str, str, set[str]]]:
    """For each axis written in a signature's parameter types, and each other axis of that
    signature: what was changed, the text with the change, and the signature's axes after it."""
    changes = []
    for signature in _SIGNATURE.finditer(text):
        start = signature.start(1)
        spots = [
            (start + bracket.start(1) + axis.start(), axis.group())
            for bracket in _BRACKETS.finditer(signature.group(1))
            for axis in _AXIS.finditer(bracket.group(1))
        ]
        axes = {name for _, name in spots}
        for at, name in spots:
            for other in sorted(axes - {name}):
                changed = text[:at] + other + text[at + len(name) :]
                after = {n for spot, n in spots if spot != at} | {other}
                line = text.count("\n", 0, at) + 1
                changes.append((f"line {line}: `{name}` -> `{other}`", changed, after))
    return changes


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.ss")), ids=lambda path: path.stem)
def test_changing_an_axis_of_a_signature_names_no_unknown_name_that_exists(path: Path):
    """An axis no longer written in the signature may be unknown in the body: the change
    caused that. A name still declared (the signature's other axes, the file's dims and
    functions) must never be."""
    text = path.read_text(encoding="utf-8")
    declared = set(_DECLARED.findall(text))
    found = []
    for what, changed, axes in _changed_axes(text):
        for diagnostic in _checked(path, changed).diagnostics:
            if diagnostic.code not in UNKNOWN_NAME_CODES:
                continue
            named = changed[diagnostic.span.start : diagnostic.span.end]
            if named in axes or named in declared:
                line = changed.count("\n", 0, diagnostic.span.start) + 1
                found.append(f"{what}: {diagnostic.code} line {line}: {diagnostic.message}")
    assert found == []


def test_the_examples_have_axes_to_change():
    changes = sum(
        len(_changed_axes(path.read_text(encoding="utf-8"))) for path in EXAMPLES.glob("*.ss")
    )
    assert changes >= 50


def test_the_examples_have_dims_to_change():
    """The property above is only worth something if most examples give it dims."""
    counts = [len(_DIM.findall(path.read_text(encoding="utf-8"))) for path in EXAMPLES.glob("*.ss")]
    assert sum(counts) >= 20
