"""Keystrokes in a big program, analysed as the server does from the last analysis (the
declarations pass, signatures, models, records, exports and reads reused), give the
diagnostics, hovers, definitions, references and outline of a fresh analysis of the
same text."""

from __future__ import annotations

import json
import random
import re

import pytest

from benchmarks.generate import generate_program
from shapescript.check.checker import check_source
from shapescript.syntax.source import SourceFile
from shapescript_lsp.features.diagnostics import publishable
from shapescript_lsp.features.hover import HoverRenderer
from shapescript_lsp.features.symbols import document_symbols
from shapescript_lsp.protocol import strict_converter

PATH = "/tmp/lsp-tests/keystrokes.ss"
URI = "file:///tmp/lsp-tests/keystrokes.ss"
CONVERTER = strict_converter()


def _analysis(text: str, previous=None):
    return check_source(SourceFile.from_text(PATH, text), previous, padding_later=True)


def _answers(checked, offsets: list[int]) -> tuple:
    renderer = HoverRenderer(images=False)
    hovers = []
    definitions = []
    for offset in offsets:
        hover = renderer.hover(checked, offset)
        hovers.append(None if hover is None else json.dumps(CONVERTER.unstructure(hover)))
        symbol = checked.definition_at(offset)
        definitions.append(
            None
            if symbol is None
            else (
                (symbol.name, symbol.kind, symbol.span, symbol.detail, symbol.doc),
                sorted(checked.references_to(symbol)),
            )
        )
    return (
        [json.dumps(CONVERTER.unstructure(d)) for d in publishable(checked, URI)],
        hovers,
        definitions,
        [json.dumps(CONVERTER.unstructure(s)) for s in document_symbols(checked)],
    )


def _keystroke(text: str, rng: random.Random) -> str:
    """An edit as typing makes one: mostly inside a function's body, sometimes in a
    declaration, a model or a record, or a line above everything."""
    kind = rng.random()
    if kind < 0.6:
        bodies = [m.end() for m in re.finditer(r"^fn [^\n]*->[^\n]*:\n    ", text, re.M)]
        at = rng.choice(bodies)
        return text[:at] + rng.choice(["z = 1\n    ", "x", " ", "print(1)\n    "]) + text[at:]
    if kind < 0.75:
        heads = [m.start() for m in re.finditer(r"^(model|data|logs) ", text, re.M)]
        at = text.index("\n", rng.choice(heads)) + 1
        return text[:at] + rng.choice(["    ## note\n", "    extra: [] mean\n"]) + text[at:]
    if kind < 0.9:
        at = rng.choice([m.end() for m in re.finditer(r"^dim \w+ = ", text, re.M)])
        return text[:at] + "1" + text[at:]
    return "# a line above\n" + text


@pytest.mark.parametrize("seed", [0, 1])
def test_keystrokes_answer_as_a_fresh_analysis(seed: int) -> None:
    rng = random.Random(seed)
    text = generate_program(800, seed)
    checked = _analysis(text)
    for _ in range(8):
        text = _keystroke(text, rng)
        checked = _analysis(text, checked)
        names = [m.start() for m in re.finditer(r"\b[A-Za-z_]\w*", text)]
        offsets = sorted(rng.sample(names, 25))
        assert _answers(checked, offsets) == _answers(_analysis(text), offsets)


def _other_keystroke(text: str, rng: random.Random) -> str:
    """The edits `_keystroke` leaves out: a deletion in a body, a changed return type, a
    line that doesn't parse, a deleted line above everything, a renamed function."""
    kind = rng.randrange(5)
    if kind == 0:
        bodies = [m.end() for m in re.finditer(r"^fn [^\n]*->[^\n]*:\n    ", text, re.M)]
        at = rng.choice(bodies)
        return text[:at] + text[at + 1 :]
    if kind == 1:
        arrows = [m.end() for m in re.finditer(r"^fn [^\n]*-> ", text, re.M)]
        at = rng.choice(arrows)
        return text[:at] + "[] " + text[at:]
    if kind == 2:
        bodies = [m.end() for m in re.finditer(r"^fn [^\n]*->[^\n]*:\n    ", text, re.M)]
        at = rng.choice(bodies)
        return text[:at] + "y = (1 +\n    " + text[at:]
    if kind == 3:
        return text[text.index("\n") + 1 :]
    names = [m for m in re.finditer(r"^fn (\w+)", text, re.M)]
    found = rng.choice(names)
    return text[: found.end()] + "_r" + text[found.end() :]


@pytest.mark.parametrize("seed", [2, 3])
def test_deletions_signatures_and_broken_lines_answer_as_a_fresh_analysis(seed: int) -> None:
    rng = random.Random(seed)
    text = generate_program(400, seed)
    checked = _analysis(text)
    for _ in range(6):
        text = _other_keystroke(text, rng)
        checked = _analysis(text, checked)
        names = [m.start() for m in re.finditer(r"\b[A-Za-z_]\w*", text)]
        offsets = sorted(rng.sample(names, 25))
        assert _answers(checked, offsets) == _answers(_analysis(text), offsets)
